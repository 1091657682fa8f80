//! The world's kill plane: a dynamic body that falls below it, or leaves
//! the world's extent on any axis, is removed (with its joints) or put back
//! where it was created, at rest. Each case is reported, so the engine can
//! retire the entity and log what happened. Checked after every step, in
//! handle order.

use limina_ops::OpError;
use rapier3d::math::{Pose, Vector};

use crate::world::{finite, unit_quat, BodyKind, PhysicsWorld};

/// The world's extent on each axis, in metres (as the engine's skills enforce it).
pub const WORLD_EXTENT: f32 = 1e5;

/// Where bodies fall out of the world and what happens to them.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KillPlane {
  /// The height below which a dynamic body is out.
  pub y: f32,
  /// Put it back at its spawn pose instead of removing it.
  #[serde(default)]
  pub respawn: bool,
}

impl Default for KillPlane {
  fn default() -> Self {
    // Deep enough for any built world, reached about 10 s into a fall from the ground.
    Self { y: -500.0, respawn: false }
  }
}

/// A body that left the world during a step.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fallen {
  pub handle: u32,
  pub eid: Option<u32>,
  /// Where it was when it left.
  pub position: [f32; 3],
  /// Put back at its spawn pose; otherwise removed (its joints too).
  pub respawned: bool,
}

fn out_of_bounds(p: Vector, kill_y: f32) -> bool {
  !(p.y >= kill_y && p.x.abs() <= WORLD_EXTENT && p.y <= WORLD_EXTENT && p.z.abs() <= WORLD_EXTENT)
}

impl PhysicsWorld {
  /// Sets the kill plane, or (None) lets bodies fall forever.
  pub fn set_kill_plane(&mut self, plane: Option<KillPlane>) -> Result<(), OpError> {
    if let Some(p) = plane {
      finite("kill plane y", &[p.y])?;
      if p.y.abs() > WORLD_EXTENT {
        return Err(OpError::invalid_input(format!("kill plane y must be within ±{WORLD_EXTENT} m, got {}", p.y)));
      }
    }
    self.kill_plane = plane;
    Ok(())
  }

  pub fn kill_plane(&self) -> Option<KillPlane> {
    self.kill_plane
  }

  pub(crate) fn apply_kill_plane(&mut self) {
    let Some(plane) = self.kill_plane else { return };
    let out: Vec<(u32, Vector)> = self
      .bodies
      .iter()
      .filter(|(_, e)| e.kind == BodyKind::Dynamic)
      .map(|(&h, e)| (h, self.rapier.bodies[e.body].translation()))
      .filter(|&(_, p)| out_of_bounds(p, plane.y))
      .collect();
    for (handle, p) in out {
      let eid = self.bodies[&handle].eid;
      if plane.respawn {
        let entry = &self.bodies[&handle];
        let (t, q) = entry.spawn;
        let pose = Pose::from_parts(Vector::from_array(t), unit_quat(q).expect("a spawn rotation was validated"));
        let rb = &mut self.rapier.bodies[entry.body];
        rb.set_position(pose, true);
        rb.set_linvel(Vector::ZERO, true);
        rb.set_angvel(Vector::ZERO, true);
      } else {
        self.destroy_body(handle).expect("an out-of-bounds body exists");
      }
      self.fallen.push(Fallen { handle, eid, position: [p.x, p.y, p.z], respawned: plane.respawn });
    }
  }

  /// The bodies that left the world since the last drain, in order.
  pub fn drain_fallen(&mut self) -> Vec<Fallen> {
    std::mem::take(&mut self.fallen)
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::shapes::Shape;
  use crate::world::BodyDesc;

  fn ball(y: f32, eid: u32) -> BodyDesc {
    serde_json::from_value(serde_json::json!({ "kind": "dynamic", "shape": Shape::Sphere { radius: 0.5 }, "position": [1.0, y, 2.0], "eid": eid })).unwrap()
  }

  #[test]
  fn a_body_below_the_plane_is_removed_and_reported_once() {
    let mut w = PhysicsWorld::new();
    w.set_kill_plane(Some(KillPlane { y: -5.0, respawn: false })).unwrap();
    let h = w.create_body(&ball(0.0, 3)).unwrap();
    let mut fallen = Vec::new();
    for _ in 0..120 {
      w.step(1.0 / 60.0).unwrap();
      fallen.extend(w.drain_fallen());
    }
    assert_eq!(fallen.len(), 1, "{fallen:?}");
    assert_eq!((fallen[0].handle, fallen[0].eid, fallen[0].respawned), (h, Some(3), false));
    assert!(fallen[0].position[1] < -5.0);
    assert_eq!(w.body_count(), 0);
    assert_eq!(w.body_state(h).unwrap_err().code, limina_ops::ErrorCode::NotFound);
  }

  #[test]
  fn respawn_puts_it_back_at_rest_and_off_lets_it_fall() {
    let mut w = PhysicsWorld::new();
    w.set_kill_plane(Some(KillPlane { y: -5.0, respawn: true })).unwrap();
    let h = w.create_body(&ball(2.0, 1)).unwrap();
    let mut respawns = 0;
    for _ in 0..120 {
      w.step(1.0 / 60.0).unwrap();
      for f in w.drain_fallen() {
        assert!(f.respawned);
        respawns += 1;
        let s = w.body_state(h).unwrap();
        assert_eq!((s.position, s.linear_velocity), ([1.0, 2.0, 2.0], [0.0; 3]));
      }
    }
    assert_eq!(respawns, 1);
    w.set_kill_plane(None).unwrap();
    for _ in 0..600 {
      w.step(1.0 / 60.0).unwrap();
    }
    assert!(w.drain_fallen().is_empty() && w.body_state(h).unwrap().position[1] < -100.0);
    assert!(w.set_kill_plane(Some(KillPlane { y: f32::NAN, respawn: false })).is_err());
    assert!(w.set_kill_plane(Some(KillPlane { y: -2e5, respawn: false })).is_err());
  }

  #[test]
  fn the_plane_is_world_state_the_digest_and_snapshots_see() {
    let mut a = PhysicsWorld::new();
    let b = PhysicsWorld::new();
    assert_eq!(a.digest_bytes(), b.digest_bytes());
    a.set_kill_plane(Some(KillPlane { y: -10.0, respawn: true })).unwrap();
    assert_ne!(a.digest_bytes(), b.digest_bytes());
    let restored = PhysicsWorld::restore(&a.snapshot().unwrap()).unwrap();
    assert_eq!(restored.kill_plane(), Some(KillPlane { y: -10.0, respawn: true }));
    assert_eq!(restored.digest_bytes(), a.digest_bytes());
  }
}
