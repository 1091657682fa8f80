//! Thin ops over the worlds' characters (see character.rs).

use deno_core::{op2, OpState};
use limina_ops::resources::{resource_mut, Handles};
use limina_ops::OpError;

use crate::character::{CharacterDesc, CharacterState};
use crate::world::{PhysicsWorld, TransformColumns};

fn world(state: &mut OpState, id: u32) -> Result<&mut PhysicsWorld, OpError> {
  resource_mut::<Handles<PhysicsWorld>>(state).get_mut(id, "physics world")
}

/// Creates a character from a JSON description; returns its body handle.
#[op2]
pub fn op_physics_character_create(state: &mut OpState, id: u32, #[serde] desc: serde_json::Value) -> Result<u32, OpError> {
  let desc: CharacterDesc = serde_json::from_value(desc).map_err(|e| OpError::invalid_input(format!("bad character description: {e}")))?;
  world(state, id)?.create_character(&desc)
}

#[op2(fast)]
pub fn op_physics_character_set_velocity(state: &mut OpState, id: u32, handle: u32, x: f32, z: f32) -> Result<(), OpError> {
  world(state, id)?.set_character_velocity(handle, [x, z])
}

#[op2(fast)]
pub fn op_physics_character_set_facing(state: &mut OpState, id: u32, handle: u32, x: f32, z: f32) -> Result<(), OpError> {
  world(state, id)?.set_character_facing(handle, [x, z])
}

#[op2(fast)]
pub fn op_physics_character_jump(state: &mut OpState, id: u32, handle: u32, speed: f32) -> Result<bool, OpError> {
  world(state, id)?.jump_character(handle, speed)
}

#[op2]
#[serde]
pub fn op_physics_character_state(state: &mut OpState, id: u32, handle: u32) -> Result<CharacterState, OpError> {
  world(state, id)?.character_state(handle)
}

/// Each of `handles`' last motion (velocity x, y, z, grounded) into `out`, MOTION_FLOATS per character.
#[op2(fast)]
pub fn op_physics_characters_motion(state: &mut OpState, id: u32, #[buffer] handles: &[u32], #[buffer] out: &mut [f32]) -> Result<(), OpError> {
  world(state, id)?.characters_motion(handles, out)
}

/// Moves every character one step, writing feet and facing into the SoA columns.
#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_physics_characters_step(
  state: &mut OpState,
  id: u32,
  dt: f32,
  #[buffer] px: &mut [f32],
  #[buffer] py: &mut [f32],
  #[buffer] pz: &mut [f32],
  #[buffer] rx: &mut [f32],
  #[buffer] ry: &mut [f32],
  #[buffer] rz: &mut [f32],
  #[buffer] rw: &mut [f32],
) -> Result<u32, OpError> {
  world(state, id)?.step_characters(dt, TransformColumns { px, py, pz, rx, ry, rz, rw })
}

#[op2]
#[buffer]
pub fn op_physics_characters_snapshot(state: &mut OpState, id: u32) -> Result<Vec<u8>, OpError> {
  world(state, id)?.characters_snapshot()
}

#[op2(fast)]
pub fn op_physics_characters_restore(state: &mut OpState, id: u32, #[buffer] bytes: &[u8]) -> Result<(), OpError> {
  world(state, id)?.restore_characters(bytes)
}

#[op2]
#[buffer]
pub fn op_physics_characters_digest_bytes(state: &mut OpState, id: u32) -> Result<Vec<u8>, OpError> {
  Ok(world(state, id)?.characters_digest_bytes())
}
