//! Rapier3D physics for Limina: [`PhysicsWorld`]s in `OpState`, one per
//! world session, addressed by id; bodies (each with one or more colliders)
//! and joints addressed by stable `u32` handles, stepped at the loop's fixed
//! dt, with each tick's dynamic transforms written straight into the SoA
//! buffers and what fell out of the world reported. The typed JS face is
//! `js/physics.ts`.

mod bounds;
mod character;
mod character_ops;
mod heightfield;
mod joints;
mod ops;
mod shapes;
mod snapshot;
mod statics;
mod world;

pub use bounds::{Fallen, KillPlane, WORLD_EXTENT};
pub use character::{yaw_quat, CharacterDesc, CharacterState, MOTION_FLOATS};
pub use heightfield::{PropShape, Water};
pub use joints::{JointDesc, JointState, JointType, Motor};
pub use shapes::{ColliderDesc, Groups, MeshData, Shape};
pub use world::{BodyDesc, BodyKind, BodyState, ColliderMaterial, CollisionRecord, PhysicsWorld, RayHit, TransformColumns};
/// The Rapier build the worlds use, for crates that read them (navigation).
pub use rapier3d;

deno_core::extension!(
  limina_physics,
  deps = [limina_ops],
  ops = [
    ops::op_physics_world_create,
    ops::op_physics_world_drop,
    ops::op_physics_create_body,
    ops::op_physics_set_colliders,
    ops::op_physics_destroy_body,
    ops::op_physics_step,
    ops::op_physics_set_body_type,
    ops::op_physics_set_angular_velocity,
    ops::op_physics_create_joint,
    ops::op_physics_remove_joint,
    ops::op_physics_set_motor,
    ops::op_physics_joint_state,
    ops::op_physics_joint_handles,
    ops::op_physics_sensor_contents,
    ops::op_physics_set_kill_plane,
    ops::op_physics_kill_plane,
    ops::op_physics_drain_fallen,
    ops::op_physics_apply_impulse,
    ops::op_physics_set_pose,
    ops::op_physics_set_linear_velocity,
    ops::op_physics_body_state,
    ops::op_physics_raycast,
    ops::op_physics_drain_collision_events,
    ops::op_physics_write_transforms,
    ops::op_physics_body_count,
    ops::op_physics_set_gravity,
    ops::op_physics_snapshot,
    ops::op_physics_restore,
    ops::op_physics_digest_bytes,
    character_ops::op_physics_character_create,
    character_ops::op_physics_character_set_velocity,
    character_ops::op_physics_character_set_facing,
    character_ops::op_physics_character_jump,
    character_ops::op_physics_character_state,
    character_ops::op_physics_characters_step,
    character_ops::op_physics_characters_motion,
    character_ops::op_physics_characters_snapshot,
    character_ops::op_physics_characters_restore,
    character_ops::op_physics_characters_digest_bytes,
    heightfield::op_physics_create_heightfield,
    heightfield::op_physics_set_heightfield,
    heightfield::op_physics_create_props,
    heightfield::op_physics_apply_water,
    heightfield::op_physics_refresh_queries,
  ],
);
