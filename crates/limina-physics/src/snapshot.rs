//! Snapshots of a `PhysicsWorld`: Rapier's own serialization (its
//! `serde-serialize` feature, encoded with bincode) plus the handle table
//! around it, so a restored world steps bit-for-bit like the original and
//! keeps issuing the same body handles. Also the physics part of the world
//! digest: every body's identity, pose, motion and sleep state in handle order.

use std::collections::{BTreeMap, HashMap};

use limina_ops::OpError;
use rapier3d::pipeline::PhysicsWorld as RapierWorld;
use rapier3d::prelude::{ColliderHandle, RigidBodyHandle};

use crate::world::{BodyEntry, BodyKind, CollisionRecord, PhysicsWorld};

/// Bumped whenever the encoding below changes; older snapshots are refused by name.
const SNAPSHOT_VERSION: u32 = 1;

#[derive(serde::Serialize, serde::Deserialize)]
struct SavedBody {
  handle: u32,
  body: RigidBodyHandle,
  collider: ColliderHandle,
  kind: BodyKind,
  eid: Option<u32>,
}

#[derive(serde::Serialize)]
struct SnapshotRef<'a> {
  version: u32,
  rapier: &'a RapierWorld,
  bodies: Vec<SavedBody>,
  next_handle: u32,
  pending: &'a [CollisionRecord],
  steps: u64,
}

#[derive(serde::Deserialize)]
struct Snapshot {
  version: u32,
  rapier: RapierWorld,
  bodies: Vec<SavedBody>,
  next_handle: u32,
  pending: Vec<CollisionRecord>,
  steps: u64,
}

impl PhysicsWorld {
  /// The whole world as bytes [`PhysicsWorld::restore`] takes back.
  pub fn snapshot(&self) -> Result<Vec<u8>, OpError> {
    let bodies = self
      .bodies
      .iter()
      .map(|(&handle, e)| SavedBody { handle, body: e.body, collider: e.collider, kind: e.kind, eid: e.eid })
      .collect();
    let snap = SnapshotRef {
      version: SNAPSHOT_VERSION,
      rapier: &self.rapier,
      bodies,
      next_handle: self.next_handle,
      pending: &self.pending,
      steps: self.steps,
    };
    bincode::serialize(&snap).map_err(|e| OpError::internal(format!("cannot serialise the physics world: {e}")))
  }

  /// A world rebuilt from [`PhysicsWorld::snapshot`]'s bytes; malformed bytes are `invalid_input`.
  pub fn restore(bytes: &[u8]) -> Result<PhysicsWorld, OpError> {
    let snap: Snapshot =
      bincode::deserialize(bytes).map_err(|e| OpError::invalid_input(format!("not a physics snapshot: {e}")))?;
    if snap.version != SNAPSHOT_VERSION {
      return Err(OpError::invalid_input(format!(
        "physics snapshot version {} is not supported (this engine reads version {SNAPSHOT_VERSION})",
        snap.version
      )));
    }
    let mut bodies = BTreeMap::new();
    let mut by_collider = HashMap::new();
    for b in snap.bodies {
      if b.handle == 0 || b.handle >= snap.next_handle {
        return Err(OpError::invalid_input(format!("physics snapshot body handle {} is not below {}", b.handle, snap.next_handle)));
      }
      if snap.rapier.bodies.get(b.body).is_none() || snap.rapier.colliders.get(b.collider).is_none() {
        return Err(OpError::invalid_input(format!("physics snapshot body {} has no Rapier body or collider", b.handle)));
      }
      by_collider.insert(b.collider, b.handle);
      bodies.insert(b.handle, BodyEntry { body: b.body, collider: b.collider, kind: b.kind, eid: b.eid });
    }
    let mut world = PhysicsWorld::new();
    world.rapier = snap.rapier;
    world.bodies = bodies;
    world.by_collider = by_collider;
    world.next_handle = snap.next_handle;
    world.pending = snap.pending;
    world.steps = snap.steps;
    Ok(world)
  }

  /// The physics state the world digest covers, as little-endian bytes:
  /// the next handle and gravity, then per body in handle order its handle,
  /// kind, eid, position, rotation, linear and angular velocity and sleep flag.
  pub fn digest_bytes(&self) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + self.bodies.len() * 66);
    out.extend(self.next_handle.to_le_bytes());
    let g = self.rapier.gravity;
    for v in [g.x, g.y, g.z] {
      out.extend(v.to_bits().to_le_bytes());
    }
    for (&handle, e) in &self.bodies {
      out.extend(handle.to_le_bytes());
      out.push(e.kind as u8);
      out.extend(e.eid.map_or(-1i64, i64::from).to_le_bytes());
      let rb = &self.rapier.bodies[e.body];
      let (t, q, v, w) = (rb.translation(), rb.rotation(), rb.linvel(), rb.angvel());
      for f in [t.x, t.y, t.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z] {
        out.extend(f.to_bits().to_le_bytes());
      }
      out.push(rb.is_sleeping() as u8);
    }
    out
  }
}

#[cfg(test)]
mod tests {
  use crate::world::{BodyDesc, Shape};

  use super::*;

  fn desc(kind: BodyKind, shape: Shape, position: [f32; 3], eid: u32) -> BodyDesc {
    serde_json::from_value(serde_json::json!({ "kind": kind, "shape": match shape {
      Shape::Sphere { radius } => serde_json::json!({ "type": "sphere", "radius": radius }),
      Shape::Box { half_extents } => serde_json::json!({ "type": "box", "halfExtents": half_extents }),
      Shape::Capsule { half_height, radius } => serde_json::json!({ "type": "capsule", "halfHeight": half_height, "radius": radius }),
    }, "position": position, "restitution": 0.3, "eid": eid }))
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
    bytes[0] = 9;
    assert!(PhysicsWorld::restore(&bytes).err().unwrap().message.contains("version 9"));
  }
}
