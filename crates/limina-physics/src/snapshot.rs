//! Snapshots of a `PhysicsWorld`: Rapier's own serialization (its
//! `serde-serialize` feature, encoded with bincode: bodies, colliders,
//! joints) plus the handle tables around it and the kill plane, so a
//! restored world steps bit-for-bit like the original and keeps issuing the
//! same body and joint handles. Also the physics part of the world digest:
//! every body's identity, pose, motion, sleep state and colliders, every
//! joint, the gravity and the kill plane, in handle order.

use std::collections::{BTreeMap, HashMap};

use limina_ops::OpError;
use rapier3d::pipeline::PhysicsWorld as RapierWorld;
use rapier3d::prelude::{ColliderHandle, ImpulseJointHandle, RigidBodyHandle};

use crate::bounds::{Fallen, KillPlane};
use crate::joints::{JointEntry, JointType};
use crate::world::{BodyEntry, BodyKind, CollisionRecord, PhysicsWorld};

/// Bumped whenever the encoding below changes; older snapshots are refused by name.
const SNAPSHOT_VERSION: u32 = 2;

#[derive(serde::Serialize, serde::Deserialize)]
struct SavedBody {
  handle: u32,
  body: RigidBodyHandle,
  colliders: Vec<ColliderHandle>,
  kind: BodyKind,
  eid: Option<u32>,
  spawn: ([f32; 3], [f32; 4]),
}

#[derive(serde::Serialize, serde::Deserialize)]
struct SavedJoint {
  handle: u32,
  joint: ImpulseJointHandle,
  kind: JointType,
  a: u32,
  b: u32,
}

#[derive(serde::Serialize)]
struct SnapshotRef<'a> {
  version: u32,
  rapier: &'a RapierWorld,
  bodies: Vec<SavedBody>,
  next_handle: u32,
  joints: Vec<SavedJoint>,
  next_joint: u32,
  kill_plane: Option<KillPlane>,
  pending: &'a [CollisionRecord],
  fallen: &'a [Fallen],
  steps: u64,
}

#[derive(serde::Deserialize)]
struct Snapshot {
  _version: u32,
  rapier: RapierWorld,
  bodies: Vec<SavedBody>,
  next_handle: u32,
  joints: Vec<SavedJoint>,
  next_joint: u32,
  kill_plane: Option<KillPlane>,
  pending: Vec<CollisionRecord>,
  fallen: Vec<Fallen>,
  steps: u64,
}

impl PhysicsWorld {
  /// The whole world as bytes [`PhysicsWorld::restore`] takes back.
  pub fn snapshot(&self) -> Result<Vec<u8>, OpError> {
    let bodies = self
      .bodies
      .iter()
      .map(|(&handle, e)| SavedBody {
        handle,
        body: e.body,
        colliders: e.colliders.clone(),
        kind: e.kind,
        eid: e.eid,
        spawn: e.spawn,
      })
      .collect();
    let joints =
      self.joints.iter().map(|(&handle, j)| SavedJoint { handle, joint: j.joint, kind: j.kind, a: j.a, b: j.b }).collect();
    let snap = SnapshotRef {
      version: SNAPSHOT_VERSION,
      rapier: &self.rapier,
      bodies,
      next_handle: self.next_handle,
      joints,
      next_joint: self.next_joint,
      kill_plane: self.kill_plane,
      pending: &self.pending,
      fallen: &self.fallen,
      steps: self.steps,
    };
    bincode::serialize(&snap).map_err(|e| OpError::internal(format!("cannot serialise the physics world: {e}")))
  }

  /// A world rebuilt from [`PhysicsWorld::snapshot`]'s bytes; malformed bytes are `invalid_input`.
  pub fn restore(bytes: &[u8]) -> Result<PhysicsWorld, OpError> {
    // The version leads, so an older layout is named, not misread.
    let version: u32 =
      bincode::deserialize(bytes).map_err(|e| OpError::invalid_input(format!("not a physics snapshot: {e}")))?;
    if version != SNAPSHOT_VERSION {
      return Err(OpError::invalid_input(format!(
        "physics snapshot version {version} is not supported (this engine reads version {SNAPSHOT_VERSION})"
      )));
    }
    let snap: Snapshot =
      bincode::deserialize(bytes).map_err(|e| OpError::invalid_input(format!("not a physics snapshot: {e}")))?;
    let mut bodies = BTreeMap::new();
    let mut by_collider = HashMap::new();
    for b in snap.bodies {
      if b.handle == 0 || b.handle >= snap.next_handle {
        return Err(OpError::invalid_input(format!("physics snapshot body handle {} is not below {}", b.handle, snap.next_handle)));
      }
      if snap.rapier.bodies.get(b.body).is_none() || b.colliders.iter().any(|&c| snap.rapier.colliders.get(c).is_none()) {
        return Err(OpError::invalid_input(format!("physics snapshot body {} has no Rapier body or lacks a collider", b.handle)));
      }
      for &c in &b.colliders {
        by_collider.insert(c, b.handle);
      }
      bodies.insert(b.handle, BodyEntry { body: b.body, colliders: b.colliders, kind: b.kind, eid: b.eid, spawn: b.spawn });
    }
    let mut joints = BTreeMap::new();
    for j in snap.joints {
      let bad_handle = j.handle == 0 || j.handle >= snap.next_joint;
      if bad_handle || snap.rapier.impulse_joints.get(j.joint).is_none() || !bodies.contains_key(&j.a) || !bodies.contains_key(&j.b) {
        return Err(OpError::invalid_input(format!("physics snapshot joint {} does not join two of its bodies", j.handle)));
      }
      joints.insert(j.handle, JointEntry { joint: j.joint, kind: j.kind, a: j.a, b: j.b });
    }
    let mut world = PhysicsWorld::new();
    world.rapier = snap.rapier;
    world.bodies = bodies;
    world.by_collider = by_collider;
    world.next_handle = snap.next_handle;
    world.joints = joints;
    world.next_joint = snap.next_joint;
    world.kill_plane = snap.kill_plane;
    world.pending = snap.pending;
    world.fallen = snap.fallen;
    world.steps = snap.steps;
    Ok(world)
  }

  /// The physics state the world digest covers, as little-endian bytes:
  /// the next handles, gravity and kill plane; per body in handle order its
  /// handle, kind, eid, CCD flag, position, rotation, linear and angular
  /// velocity, sleep flag, spawn pose and each collider (shape kind and
  /// bounds, pose on the body, friction, restitution, density, sensor flag,
  /// groups); per joint in handle order its handle, type, bodies, frames,
  /// contacts flag, limits and motor.
  pub fn digest_bytes(&self) -> Vec<u8> {
    let mut out = Digest(Vec::with_capacity(64 + self.bodies.len() * 160 + self.joints.len() * 96));
    out.u32(self.next_handle);
    out.u32(self.next_joint);
    let g = self.rapier.gravity;
    out.f32s(&[g.x, g.y, g.z]);
    match self.kill_plane {
      Some(k) => {
        out.byte(1 + k.respawn as u8);
        out.f32s(&[k.y]);
      }
      None => out.byte(0),
    }
    for (&handle, e) in &self.bodies {
      out.u32(handle);
      out.byte(e.kind as u8);
      out.0.extend(e.eid.map_or(-1i64, i64::from).to_le_bytes());
      let rb = &self.rapier.bodies[e.body];
      out.byte(rb.is_ccd_enabled() as u8);
      let (t, q, v, w) = (rb.translation(), rb.rotation(), rb.linvel(), rb.angvel());
      out.f32s(&[t.x, t.y, t.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z]);
      out.byte(rb.is_sleeping() as u8);
      out.f32s(&e.spawn.0);
      out.f32s(&e.spawn.1);
      out.u32(e.colliders.len() as u32);
      for &c in &e.colliders {
        let c = &self.rapier.colliders[c];
        out.byte(c.shape().shape_type() as u8);
        let aabb = c.shape().compute_local_aabb();
        out.f32s(&[aabb.mins.x, aabb.mins.y, aabb.mins.z, aabb.maxs.x, aabb.maxs.y, aabb.maxs.z]);
        let p = c.position_wrt_parent().copied().unwrap_or_default();
        out.pose(&p);
        out.f32s(&[c.friction(), c.restitution(), c.density()]);
        out.byte(c.is_sensor() as u8);
        let groups = c.collision_groups();
        out.u32(groups.memberships.bits());
        out.u32(groups.filter.bits());
      }
    }
    for (&handle, j) in &self.joints {
      out.u32(handle);
      out.byte(j.kind as u8);
      out.u32(j.a);
      out.u32(j.b);
      let data = &self.rapier.impulse_joints.get(j.joint).expect("a listed joint exists").data;
      out.pose(&data.local_frame1);
      out.pose(&data.local_frame2);
      out.byte(data.contacts_enabled() as u8);
      out.byte(data.limit_axes.bits());
      out.byte(data.motor_axes.bits());
      for l in &data.limits {
        out.f32s(&[l.min, l.max]);
      }
      for m in &data.motors {
        out.f32s(&[m.target_pos, m.target_vel, m.stiffness, m.damping, m.max_force]);
      }
    }
    out.0
  }
}

/// A little-endian byte writer for the digest.
struct Digest(Vec<u8>);

impl Digest {
  fn byte(&mut self, b: u8) {
    self.0.push(b);
  }
  fn u32(&mut self, v: u32) {
    self.0.extend(v.to_le_bytes());
  }
  fn f32s(&mut self, vs: &[f32]) {
    for v in vs {
      self.0.extend(v.to_bits().to_le_bytes());
    }
  }
  fn pose(&mut self, p: &rapier3d::math::Pose) {
    let (t, q) = (p.translation, p.rotation);
    self.f32s(&[t.x, t.y, t.z, q.x, q.y, q.z, q.w]);
  }
}

#[cfg(test)]
mod tests {
  use crate::shapes::Shape;
  use crate::world::BodyDesc;

  use super::*;

  fn desc(kind: BodyKind, shape: Shape, position: [f32; 3], eid: u32) -> BodyDesc {
    serde_json::from_value(serde_json::json!({ "kind": kind, "shape": shape, "position": position, "restitution": 0.3, "eid": eid }))
      .unwrap()
  }

  fn scene() -> PhysicsWorld {
    let mut w = PhysicsWorld::new();
    w.create_body(&desc(BodyKind::Static, Shape::Box { half_extents: [20.0, 0.5, 20.0] }, [0.0, -0.5, 0.0], 1)).unwrap();
    for i in 0..24u32 {
      let p = [(i % 4) as f32 * 0.8 - 1.2, 1.0 + (i / 4) as f32 * 0.9, (i % 3) as f32 * 0.5];
      let h = w.create_body(&desc(BodyKind::Dynamic, Shape::Sphere { radius: 0.4 }, p, i + 2)).unwrap();
      if i % 5 == 0 {
        w.apply_impulse(h, [0.7, 0.0, -0.4]).unwrap();
      }
    }
    w
  }

  #[test]
  fn a_restored_world_steps_bit_for_bit_like_the_original_and_keeps_its_handles() {
    let mut original = scene();
    for _ in 0..90 {
      original.step(1.0 / 60.0).unwrap();
    }
    let mut restored = PhysicsWorld::restore(&original.snapshot().unwrap()).unwrap();
    assert_eq!(restored.digest_bytes(), original.digest_bytes());
    for _ in 0..240 {
      original.step(1.0 / 60.0).unwrap();
      restored.step(1.0 / 60.0).unwrap();
      assert_eq!(restored.digest_bytes(), original.digest_bytes());
    }
    assert_eq!(restored.drain_collisions(), original.drain_collisions());
    let shape = Shape::Sphere { radius: 0.2 };
    assert_eq!(
      restored.create_body(&desc(BodyKind::Dynamic, shape, [0.0, 5.0, 0.0], 40)).unwrap(),
      original.create_body(&desc(BodyKind::Dynamic, shape, [0.0, 5.0, 0.0], 40)).unwrap()
    );
  }

  #[test]
  fn garbage_is_not_a_snapshot() {
    let err = PhysicsWorld::restore(b"not a snapshot").err().unwrap();
    assert_eq!(err.code, limina_ops::ErrorCode::InvalidInput);
    let mut bytes = scene().snapshot().unwrap();
    bytes[0] = 1;
    assert!(PhysicsWorld::restore(&bytes).err().unwrap().message.contains("version 1 is not supported"));
  }
}
