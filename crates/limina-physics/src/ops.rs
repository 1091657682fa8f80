//! Thin ops over the physics worlds in `OpState`: every op names its
//! world, so each world session steps and queries only its own bodies.

use deno_core::{op2, OpState};
use limina_ops::resources::{resource_mut, Handles};
use limina_ops::OpError;

use crate::bounds::{Fallen, KillPlane};
use crate::joints::{JointDesc, JointState, Motor};
use crate::shapes::{ColliderDesc, MeshData};
use crate::world::{BodyDesc, BodyKind, BodyState, ColliderMaterial, CollisionRecord, PhysicsWorld, TransformColumns};

pub(crate) fn world(state: &mut OpState, id: u32) -> Result<&mut PhysicsWorld, OpError> {
  resource_mut::<Handles<PhysicsWorld>>(state).get_mut(id, "physics world")
}

/// Creates an empty physics world; returns its id.
#[op2(fast)]
pub fn op_physics_world_create(state: &mut OpState) -> u32 {
  resource_mut::<Handles<PhysicsWorld>>(state).insert(PhysicsWorld::new())
}

/// Drops a world and every body in it; returns whether it existed.
#[op2(fast)]
pub fn op_physics_world_drop(state: &mut OpState, id: u32) -> bool {
  resource_mut::<Handles<PhysicsWorld>>(state).remove(id).is_some()
}

fn parse<T: serde::de::DeserializeOwned>(what: &str, value: serde_json::Value) -> Result<T, OpError> {
  serde_json::from_value(value).map_err(|e| OpError::invalid_input(format!("bad {what}: {e}")))
}

/// Takes the description as plain JSON so a malformed one (unknown shape,
/// unknown field, wrong type) is an `invalid_input` error naming the
/// problem; mesh colliders read `vertices` (x, y, z triples) and
/// `triangles` (index triples) by range, without a copy.
#[op2]
pub fn op_physics_create_body(
  state: &mut OpState,
  id: u32,
  #[serde] desc: serde_json::Value,
  #[buffer] vertices: &[f32],
  #[buffer] triangles: &[u32],
) -> Result<u32, OpError> {
  let desc: BodyDesc = parse("body description", desc)?;
  world(state, id)?.create_body_with_mesh(&desc, MeshData { vertices, triangles })
}

/// Replaces a body's colliders; `material` holds the defaults they take.
#[op2]
pub fn op_physics_set_colliders(
  state: &mut OpState,
  id: u32,
  handle: u32,
  #[serde] colliders: serde_json::Value,
  #[serde] material: serde_json::Value,
  #[buffer] vertices: &[f32],
  #[buffer] triangles: &[u32],
) -> Result<(), OpError> {
  let colliders: Vec<ColliderDesc> = parse("collider list", colliders)?;
  let material: ColliderMaterial = parse("collider material", material)?;
  world(state, id)?.set_colliders(handle, &colliders, material, MeshData { vertices, triangles })
}

/// Destroys a body; returns the handles of the joints removed with it.
#[op2]
#[serde]
pub fn op_physics_destroy_body(state: &mut OpState, id: u32, handle: u32) -> Result<Vec<u32>, OpError> {
  world(state, id)?.destroy_body(handle)
}

/// Steps the world; returns how many events (collisions, bodies out of bounds) wait to be drained.
#[op2(fast)]
pub fn op_physics_step(state: &mut OpState, id: u32, dt: f32) -> Result<u32, OpError> {
  world(state, id)?.step(dt)
}

#[op2]
pub fn op_physics_set_body_type(state: &mut OpState, id: u32, handle: u32, #[serde] kind: serde_json::Value) -> Result<(), OpError> {
  let kind: BodyKind = parse("body type", kind)?;
  world(state, id)?.set_body_type(handle, kind)
}

#[op2(fast)]
pub fn op_physics_set_angular_velocity(state: &mut OpState, id: u32, handle: u32, x: f32, y: f32, z: f32) -> Result<(), OpError> {
  world(state, id)?.set_angular_velocity(handle, [x, y, z])
}

#[op2]
pub fn op_physics_create_joint(state: &mut OpState, id: u32, #[serde] desc: serde_json::Value) -> Result<u32, OpError> {
  let desc: JointDesc = parse("joint description", desc)?;
  world(state, id)?.create_joint(&desc)
}

#[op2(fast)]
pub fn op_physics_remove_joint(state: &mut OpState, id: u32, handle: u32) -> Result<(), OpError> {
  world(state, id)?.remove_joint(handle)
}

/// Sets a joint's motor, or switches it off (`null`).
#[op2]
pub fn op_physics_set_motor(state: &mut OpState, id: u32, handle: u32, #[serde] motor: serde_json::Value) -> Result<(), OpError> {
  let motor: Option<Motor> = parse("motor", motor)?;
  world(state, id)?.set_motor(handle, motor.as_ref())
}

#[op2]
#[serde]
pub fn op_physics_joint_state(state: &mut OpState, id: u32, handle: u32) -> Result<JointState, OpError> {
  world(state, id)?.joint_state(handle)
}

/// The bodies overlapping a body's sensor colliders now, in handle order.
#[op2]
#[serde]
pub fn op_physics_sensor_contents(state: &mut OpState, id: u32, handle: u32) -> Result<Vec<u32>, OpError> {
  world(state, id)?.sensor_contents(handle)
}

/// Every joint's handle, in order.
#[op2]
#[serde]
pub fn op_physics_joint_handles(state: &mut OpState, id: u32) -> Result<Vec<u32>, OpError> {
  Ok(world(state, id)?.joint_handles())
}

/// Sets the kill plane, or (`null`) switches it off.
#[op2]
pub fn op_physics_set_kill_plane(state: &mut OpState, id: u32, #[serde] plane: serde_json::Value) -> Result<(), OpError> {
  let plane: Option<KillPlane> = parse("kill plane", plane)?;
  world(state, id)?.set_kill_plane(plane)
}

#[op2]
#[serde]
pub fn op_physics_kill_plane(state: &mut OpState, id: u32) -> Result<Option<KillPlane>, OpError> {
  Ok(world(state, id)?.kill_plane())
}

#[op2]
#[serde]
pub fn op_physics_drain_fallen(state: &mut OpState, id: u32) -> Result<Vec<Fallen>, OpError> {
  Ok(world(state, id)?.drain_fallen())
}

#[op2(fast)]
pub fn op_physics_apply_impulse(state: &mut OpState, id: u32, handle: u32, x: f32, y: f32, z: f32) -> Result<(), OpError> {
  world(state, id)?.apply_impulse(handle, [x, y, z])
}

#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_physics_set_pose(
  state: &mut OpState,
  id: u32,
  handle: u32,
  px: f32,
  py: f32,
  pz: f32,
  qx: f32,
  qy: f32,
  qz: f32,
  qw: f32,
) -> Result<(), OpError> {
  world(state, id)?.set_pose(handle, [px, py, pz], [qx, qy, qz, qw])
}

#[op2(fast)]
pub fn op_physics_set_linear_velocity(state: &mut OpState, id: u32, handle: u32, x: f32, y: f32, z: f32) -> Result<(), OpError> {
  world(state, id)?.set_linear_velocity(handle, [x, y, z])
}

#[op2]
#[serde]
pub fn op_physics_body_state(state: &mut OpState, id: u32, handle: u32) -> Result<BodyState, OpError> {
  world(state, id)?.body_state(handle)
}

/// Casts a ray; on a hit writes `[distance, px, py, pz, nx, ny, nz, eid]`
/// (eid -1 when the body has none) into `out` and returns the body handle,
/// otherwise returns 0 (no body has handle 0).
#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_physics_raycast(
  state: &mut OpState,
  id: u32,
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
  let hit = world(state, id)?.raycast([ox, oy, oz], [dx, dy, dz], max_distance, solid)?;
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
pub fn op_physics_drain_collision_events(state: &mut OpState, id: u32) -> Result<Vec<CollisionRecord>, OpError> {
  Ok(world(state, id)?.drain_collisions())
}

/// The per-tick zero-copy write-back into the SoA transform columns; the eids
/// that moved go into `moved`, their count is returned.
#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_physics_write_transforms(
  state: &mut OpState,
  id: u32,
  #[buffer] px: &mut [f32],
  #[buffer] py: &mut [f32],
  #[buffer] pz: &mut [f32],
  #[buffer] rx: &mut [f32],
  #[buffer] ry: &mut [f32],
  #[buffer] rz: &mut [f32],
  #[buffer] rw: &mut [f32],
  #[buffer] moved: &mut [u32],
) -> Result<u32, OpError> {
  world(state, id)?.write_transforms(TransformColumns { px, py, pz, rx, ry, rz, rw }, moved)
}

#[op2(fast)]
pub fn op_physics_body_count(state: &mut OpState, id: u32) -> Result<u32, OpError> {
  Ok(world(state, id)?.body_count() as u32)
}

#[op2(fast)]
pub fn op_physics_set_gravity(state: &mut OpState, id: u32, x: f32, y: f32, z: f32) -> Result<(), OpError> {
  world(state, id)?.set_gravity([x, y, z])
}

/// The world's state as bytes `op_physics_restore` takes back.
#[op2]
#[buffer]
pub fn op_physics_snapshot(state: &mut OpState, id: u32) -> Result<Vec<u8>, OpError> {
  world(state, id)?.snapshot()
}

/// Replaces world `id` with a snapshot's; on bad bytes the world is left as it was.
#[op2(fast)]
pub fn op_physics_restore(state: &mut OpState, id: u32, #[buffer] bytes: &[u8]) -> Result<(), OpError> {
  let restored = PhysicsWorld::restore(bytes)?;
  *world(state, id)? = restored;
  Ok(())
}

/// The physics state the world digest hashes (see `PhysicsWorld::digest_bytes`).
#[op2]
#[buffer]
pub fn op_physics_digest_bytes(state: &mut OpState, id: u32) -> Result<Vec<u8>, OpError> {
  Ok(world(state, id)?.digest_bytes())
}
