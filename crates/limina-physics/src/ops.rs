//! Thin ops over the `PhysicsWorld` in `OpState`.

use deno_core::{op2, OpState};
use limina_ops::OpError;

use crate::world::{BodyDesc, BodyState, CollisionRecord, PhysicsWorld, TransformColumns};

fn world(state: &mut OpState) -> &mut PhysicsWorld {
  state.borrow_mut::<PhysicsWorld>()
}

/// Takes the description as plain JSON so a malformed one (unknown shape,
/// unknown field, wrong type) is an `invalid_input` error naming the problem.
#[op2]
pub fn op_physics_create_body(state: &mut OpState, #[serde] desc: serde_json::Value) -> Result<u32, OpError> {
  let desc: BodyDesc = serde_json::from_value(desc)
    .map_err(|e| OpError::invalid_input(format!("bad body description: {e}")))?;
  world(state).create_body(&desc)
}

#[op2(fast)]
pub fn op_physics_destroy_body(state: &mut OpState, handle: u32) -> Result<(), OpError> {
  world(state).destroy_body(handle)
}

#[op2(fast)]
pub fn op_physics_step(state: &mut OpState, dt: f32) -> Result<(), OpError> {
  world(state).step(dt)
}

#[op2(fast)]
pub fn op_physics_apply_impulse(state: &mut OpState, handle: u32, x: f32, y: f32, z: f32) -> Result<(), OpError> {
  world(state).apply_impulse(handle, [x, y, z])
}

#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_physics_set_pose(
  state: &mut OpState,
  handle: u32,
  px: f32,
  py: f32,
  pz: f32,
  qx: f32,
  qy: f32,
  qz: f32,
  qw: f32,
) -> Result<(), OpError> {
  world(state).set_pose(handle, [px, py, pz], [qx, qy, qz, qw])
}

#[op2(fast)]
pub fn op_physics_set_linear_velocity(state: &mut OpState, handle: u32, x: f32, y: f32, z: f32) -> Result<(), OpError> {
  world(state).set_linear_velocity(handle, [x, y, z])
}

#[op2]
#[serde]
pub fn op_physics_body_state(state: &mut OpState, handle: u32) -> Result<BodyState, OpError> {
  world(state).body_state(handle)
}

/// Casts a ray; on a hit writes `[distance, px, py, pz, nx, ny, nz, eid]`
/// (eid -1 when the body has none) into `out` and returns the body handle,
/// otherwise returns 0 (no body has handle 0).
#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_physics_raycast(
  state: &mut OpState,
  ox: f32,
  oy: f32,
  oz: f32,
  dx: f32,
  dy: f32,
  dz: f32,
  max_distance: f32,
  solid: bool,
  #[buffer] out: &mut [f64],
) -> Result<u32, OpError> {
  if out.len() < 8 {
    return Err(OpError::invalid_input(format!("raycast output needs 8 Float64 slots, got {}", out.len())));
  }
  let hit = world(state).raycast([ox, oy, oz], [dx, dy, dz], max_distance, solid)?;
  Ok(match hit {
    Some(h) => {
      out[0] = h.distance as f64;
      for k in 0..3 {
        out[1 + k] = h.point[k] as f64;
        out[4 + k] = h.normal[k] as f64;
      }
      out[7] = h.eid.map_or(-1.0, |e| e as f64);
      h.handle
    }
    None => 0,
  })
}

#[op2]
#[serde]
pub fn op_physics_drain_collision_events(state: &mut OpState) -> Vec<CollisionRecord> {
  world(state).drain_collisions()
}

/// The per-tick zero-copy write-back into the SoA transform columns.
#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_physics_write_transforms(
  state: &mut OpState,
  #[buffer] px: &mut [f32],
  #[buffer] py: &mut [f32],
  #[buffer] pz: &mut [f32],
  #[buffer] rx: &mut [f32],
  #[buffer] ry: &mut [f32],
  #[buffer] rz: &mut [f32],
  #[buffer] rw: &mut [f32],
) -> Result<u32, OpError> {
  world(state).write_transforms(TransformColumns { px, py, pz, rx, ry, rz, rw })
}

#[op2(fast)]
pub fn op_physics_body_count(state: &mut OpState) -> u32 {
  world(state).body_count() as u32
}

#[op2(fast)]
pub fn op_physics_set_gravity(state: &mut OpState, x: f32, y: f32, z: f32) -> Result<(), OpError> {
  world(state).set_gravity([x, y, z])
}

#[op2(fast)]
pub fn op_physics_clear(state: &mut OpState) {
  world(state).clear()
}
