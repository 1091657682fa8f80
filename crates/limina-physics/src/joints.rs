//! Joints between two bodies: fixed, revolute (hinge) and prismatic
//! (slider) with limits and motors, spherical (ball), rope (a maximum
//! distance) and spring. Joints get stable `u32` handles like bodies, never
//! reused; destroying a body removes its joints with it.
//!
//! A joint is described in world space, as it is now: the anchor where the
//! two bodies meet and, for hinges and sliders, the axis. Each body's local
//! frame is derived from its current pose, so both frames coincide at
//! creation: a hinge starts at angle 0 and a slider at 0 m, whatever the
//! bodies' rotations, and limits and motor targets are measured from there.

use limina_ops::OpError;
use rapier3d::math::{Pose, Rotation, Vector};
use rapier3d::prelude::*;

use crate::world::{finite, non_negative, positive, PhysicsWorld};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JointType {
  /// Locks the bodies' relative pose.
  Fixed,
  /// A hinge: rotation about `axis` only.
  Revolute,
  /// A slider: translation along `axis` only.
  Prismatic,
  /// A ball joint: any rotation about the anchor.
  Spherical,
  /// The anchors stay at most `length` apart.
  Rope,
  /// The anchors are pulled toward `length` apart by a damped spring.
  Spring,
}

/// A joint motor on a hinge's angle or a slider's position: it drives the
/// joint toward `targetVelocity`, and toward `targetPosition` when given,
/// with at most `maxForce` (N·m for a hinge, N for a slider).
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Motor {
  #[serde(default)]
  pub target_velocity: f32,
  pub target_position: Option<f32>,
  /// How hard the motor pulls toward the target position (default 50 with one, else 0).
  pub stiffness: Option<f32>,
  /// How hard it holds the target velocity (default 10).
  pub damping: Option<f32>,
  pub max_force: Option<f32>,
}

impl Motor {
  fn validate(&self) -> Result<(), OpError> {
    finite("motor targetVelocity", &[self.target_velocity])?;
    if let Some(p) = self.target_position {
      finite("motor targetPosition", &[p])?;
    }
    if let Some(s) = self.stiffness {
      non_negative("motor stiffness", s)?;
    }
    if let Some(d) = self.damping {
      non_negative("motor damping", d)?;
    }
    if let Some(f) = self.max_force {
      non_negative("motor maxForce", f)?;
    }
    Ok(())
  }

  /// `(target position, target velocity, stiffness, damping, max force)`.
  fn params(&self) -> (f32, f32, f32, f32, f32) {
    let stiffness = self.stiffness.unwrap_or(if self.target_position.is_some() { 50.0 } else { 0.0 });
    (
      self.target_position.unwrap_or(0.0),
      self.target_velocity,
      stiffness,
      self.damping.unwrap_or(10.0),
      self.max_force.unwrap_or(f32::MAX),
    )
  }
}

/// Everything needed to create one joint.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JointDesc {
  #[serde(rename = "type")]
  pub kind: JointType,
  pub body_a: u32,
  pub body_b: u32,
  /// Where the bodies are joined, in world space (default: body B's centre).
  pub anchor: Option<[f32; 3]>,
  /// The hinge's or slider's axis, in world space (default +Y).
  pub axis: Option<[f32; 3]>,
  /// A hinge's angle range in radians, or a slider's range in metres.
  pub limits: Option<[f32; 2]>,
  /// A rope's maximum length or a spring's rest length, in metres
  /// (default: how far apart the two attachment points are now). Ropes and
  /// springs hold body A at `anchor` (default its centre), body B at its centre.
  pub length: Option<f32>,
  /// A spring's stiffness (N/m) and damping (N·s/m).
  pub stiffness: Option<f32>,
  pub damping: Option<f32>,
  pub motor: Option<Motor>,
  /// Whether the two joined bodies still collide with each other (default false).
  #[serde(default)]
  pub contacts: bool,
}

pub(crate) struct JointEntry {
  pub(crate) joint: ImpulseJointHandle,
  pub(crate) kind: JointType,
  pub(crate) a: u32,
  pub(crate) b: u32,
}

/// A joint's current configuration and, for hinges, sliders, ropes and
/// springs, the value of its free coordinate.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JointState {
  pub handle: u32,
  #[serde(rename = "type")]
  pub kind: JointType,
  pub body_a: u32,
  pub body_b: u32,
  /// Hinge: its angle (radians); slider: its offset along the axis (m);
  /// rope and spring: the distance between the anchors (m).
  pub position: Option<f32>,
  pub limits: Option<[f32; 2]>,
  pub motor: Option<Motor>,
  pub contacts: bool,
}

fn free_axis(kind: JointType) -> Option<JointAxis> {
  match kind {
    JointType::Revolute => Some(JointAxis::AngX),
    JointType::Prismatic => Some(JointAxis::LinX),
    _ => None,
  }
}

impl JointDesc {
  fn validate(&self) -> Result<(), OpError> {
    if let Some(a) = self.anchor {
      finite("joint anchor", &a)?;
    }
    if let Some(axis) = self.axis {
      finite("joint axis", &axis)?;
      if Vector::from_array(axis).length() < 1e-6 {
        return Err(OpError::invalid_input("joint axis must be non-zero"));
      }
    }
    let axial = free_axis(self.kind).is_some();
    if self.axis.is_some() && !axial {
      return Err(OpError::invalid_input(format!("a {:?} joint has no axis (only revolute and prismatic do)", self.kind).to_lowercase()));
    }
    if let Some([lo, hi]) = self.limits {
      if !axial {
        return Err(OpError::invalid_input("only revolute and prismatic joints take limits"));
      }
      finite("joint limits", &[lo, hi])?;
      if lo > hi {
        return Err(OpError::invalid_input(format!("joint limits [{lo}, {hi}] must be [min, max] with min ≤ max")));
      }
    }
    if let Some(m) = &self.motor {
      if !axial {
        return Err(OpError::invalid_input("only revolute and prismatic joints take a motor"));
      }
      m.validate()?;
    }
    let spring = self.kind == JointType::Spring;
    if (self.stiffness.is_some() || self.damping.is_some()) && !spring {
      return Err(OpError::invalid_input("stiffness and damping are a spring joint's (a motor has its own)"));
    }
    if let Some(l) = self.length {
      if !matches!(self.kind, JointType::Rope | JointType::Spring) {
        return Err(OpError::invalid_input("only rope and spring joints take a length"));
      }
      positive("joint length", l)?;
    }
    if let Some(s) = self.stiffness {
      non_negative("spring stiffness", s)?;
    }
    if let Some(d) = self.damping {
      non_negative("spring damping", d)?;
    }
    if self.body_a == self.body_b {
      return Err(OpError::invalid_input(format!("a joint needs two different bodies, got body {} twice", self.body_a)));
    }
    Ok(())
  }
}

fn pose_of(w: &PhysicsWorld, handle: u32) -> Result<Pose, OpError> {
  let entry = w.entry(handle)?;
  Ok(*w.rapier.bodies[entry.body].position())
}

impl PhysicsWorld {
  pub fn create_joint(&mut self, desc: &JointDesc) -> Result<u32, OpError> {
    desc.validate()?;
    let (pa, pb) = (pose_of(self, desc.body_a)?, pose_of(self, desc.body_b)?);
    let anchor = desc.anchor.map(Vector::from_array).unwrap_or(pb.translation);
    let axis = desc.axis.map(|a| Vector::from_array(a).normalize()).unwrap_or(Vector::Y);
    // One world frame, X along the axis, seen from each body.
    let frame = Pose::from_parts(anchor, Rotation::from_rotation_arc(Vector::X, axis));
    let (frame_a, frame_b) = (pa.inverse() * frame, pb.inverse() * frame);
    // Ropes and springs hold A at the anchor (or its centre) and B at its centre.
    let hold_a = desc.anchor.map(Vector::from_array).unwrap_or(pa.translation);
    let spread = (hold_a - pb.translation).length();
    let mut joint: GenericJoint = match desc.kind {
      JointType::Fixed => FixedJointBuilder::new().into(),
      JointType::Revolute => RevoluteJointBuilder::new(Vector::X).into(),
      JointType::Prismatic => PrismaticJointBuilder::new(Vector::X).into(),
      JointType::Spherical => SphericalJointBuilder::new().into(),
      JointType::Rope => RopeJointBuilder::new(desc.length.unwrap_or(spread.max(1e-3))).into(),
      JointType::Spring => {
        SpringJointBuilder::new(desc.length.unwrap_or(spread), desc.stiffness.unwrap_or(100.0), desc.damping.unwrap_or(5.0)).into()
      }
    };
    if matches!(desc.kind, JointType::Rope | JointType::Spring) {
      joint.local_frame1 = Pose::from_translation(if desc.anchor.is_some() { frame_a.translation } else { Vector::ZERO });
      joint.local_frame2 = Pose::IDENTITY;
    } else {
      joint.local_frame1 = frame_a;
      joint.local_frame2 = frame_b;
    }
    joint.set_contacts_enabled(desc.contacts);
    if let (Some(axis), Some(limits)) = (free_axis(desc.kind), desc.limits) {
      joint.set_limits(axis, limits);
    }
    if let (Some(axis), Some(motor)) = (free_axis(desc.kind), &desc.motor) {
      apply_motor(&mut joint, axis, motor);
    }
    let handle = self.next_joint;
    self.next_joint =
      self.next_joint.checked_add(1).ok_or_else(|| OpError::capacity_exceeded("physics joint handles exhausted"))?;
    let (a, b) = (self.entry(desc.body_a)?.body, self.entry(desc.body_b)?.body);
    let joint = self.rapier.insert_impulse_joint(a, b, joint);
    self.joints.insert(handle, JointEntry { joint, kind: desc.kind, a: desc.body_a, b: desc.body_b });
    Ok(handle)
  }

  fn joint_entry(&self, handle: u32) -> Result<&JointEntry, OpError> {
    self.joints.get(&handle).ok_or_else(|| unknown_joint(handle))
  }

  pub fn remove_joint(&mut self, handle: u32) -> Result<(), OpError> {
    let entry = self.joints.remove(&handle).ok_or_else(|| unknown_joint(handle))?;
    self.rapier.remove_impulse_joint(entry.joint);
    Ok(())
  }

  /// Sets (or, with `None`, switches off) a hinge's or slider's motor.
  pub fn set_motor(&mut self, handle: u32, motor: Option<&Motor>) -> Result<(), OpError> {
    let entry = self.joint_entry(handle)?;
    let Some(axis) = free_axis(entry.kind) else {
      return Err(OpError::invalid_input(format!("joint {handle} is {:?}: only revolute and prismatic joints have a motor", entry.kind).to_lowercase()));
    };
    if let Some(m) = motor {
      m.validate()?;
    }
    let joint = entry.joint;
    let j = self.rapier.impulse_joints.get_mut(joint, true).ok_or_else(|| unknown_joint(handle))?;
    match motor {
      Some(m) => apply_motor(&mut j.data, axis, m),
      None => {
        j.data.set_motor(axis, 0.0, 0.0, 0.0, 0.0);
        j.data.set_motor_max_force(axis, 0.0);
        j.data.motor_axes.remove(axis.into());
      }
    }
    Ok(())
  }

  pub fn joint_state(&self, handle: u32) -> Result<JointState, OpError> {
    let entry = self.joint_entry(handle)?;
    let j = self.rapier.impulse_joints.get(entry.joint).ok_or_else(|| unknown_joint(handle))?;
    let data = &j.data;
    let (p1, p2) = (self.rapier.bodies[j.body1()].position(), self.rapier.bodies[j.body2()].position());
    let (f1, f2) = (*p1 * data.local_frame1, *p2 * data.local_frame2);
    let position = match entry.kind {
      JointType::Revolute => {
        let err = f1.rotation.inverse() * f2.rotation;
        let angle = err.x.clamp(-1.0, 1.0).asin() * 2.0;
        Some(if f1.rotation.dot(f2.rotation) < 0.0 { -angle } else { angle })
      }
      JointType::Prismatic => Some((f2.translation - f1.translation).dot(f1.rotation * Vector::X)),
      JointType::Rope | JointType::Spring => Some((f2.translation - f1.translation).length()),
      JointType::Fixed | JointType::Spherical => None,
    };
    let axis = free_axis(entry.kind);
    let limits = axis.and_then(|a| data.limits(a)).map(|l| [l.min, l.max]);
    let motor = axis.and_then(|a| data.motor(a)).map(|m| Motor {
      target_velocity: m.target_vel,
      target_position: (m.stiffness > 0.0).then_some(m.target_pos),
      stiffness: Some(m.stiffness),
      damping: Some(m.damping),
      max_force: Some(m.max_force),
    });
    Ok(JointState {
      handle,
      kind: entry.kind,
      body_a: entry.a,
      body_b: entry.b,
      position,
      limits,
      motor,
      contacts: data.contacts_enabled(),
    })
  }

  /// Joints in handle order.
  pub fn joint_handles(&self) -> Vec<u32> {
    self.joints.keys().copied().collect()
  }

  /// Forgets the joints attached to `body` (Rapier removes them with it); returns their handles.
  pub(crate) fn drop_joints_of(&mut self, body: u32) -> Vec<u32> {
    let gone: Vec<u32> = self.joints.iter().filter(|(_, j)| j.a == body || j.b == body).map(|(&h, _)| h).collect();
    for h in &gone {
      self.joints.remove(h);
    }
    gone
  }
}

fn apply_motor(joint: &mut GenericJoint, axis: JointAxis, motor: &Motor) {
  let (pos, vel, stiffness, damping, max_force) = motor.params();
  joint.set_motor(axis, pos, vel, stiffness, damping);
  joint.set_motor_max_force(axis, max_force);
}

fn unknown_joint(handle: u32) -> OpError {
  OpError::not_found(format!("unknown physics joint {handle} (never created or already removed)"))
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::shapes::Shape;
  use crate::world::{BodyDesc, BodyKind};

  fn body(kind: BodyKind, shape: Shape, position: [f32; 3]) -> BodyDesc {
    serde_json::from_value(serde_json::json!({ "kind": kind, "shape": shape, "position": position })).unwrap()
  }

  fn joint(json: serde_json::Value) -> JointDesc {
    serde_json::from_value(json).unwrap()
  }

  /// A static post and a 1 m door hinged on it about +Y.
  fn door(w: &mut PhysicsWorld, extra: serde_json::Value) -> (u32, u32, u32) {
    let post = w.create_body(&body(BodyKind::Static, Shape::Cylinder { half_height: 1.0, radius: 0.05 }, [0.0, 1.0, 0.0])).unwrap();
    let slab = w.create_body(&body(BodyKind::Dynamic, Shape::Box { half_extents: [0.5, 1.0, 0.04] }, [0.55, 1.0, 0.0])).unwrap();
    let mut desc = serde_json::json!({ "type": "revolute", "bodyA": post, "bodyB": slab, "anchor": [0.0, 1.0, 0.0], "axis": [0.0, 1.0, 0.0] });
    desc.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    let j = w.create_joint(&joint(desc)).unwrap();
    (post, slab, j)
  }

  fn run(w: &mut PhysicsWorld, steps: usize) {
    for _ in 0..steps {
      w.step(1.0 / 60.0).unwrap();
    }
  }

  #[test]
  fn a_hinge_starts_at_zero_and_its_motor_drives_it_to_a_target_within_limits() {
    let mut w = PhysicsWorld::new();
    let (_, slab, j) = door(&mut w, serde_json::json!({ "motor": { "targetPosition": 1.0, "stiffness": 60.0, "damping": 10.0 } }));
    assert_eq!(w.joint_state(j).unwrap().position, Some(0.0));
    run(&mut w, 240);
    let s = w.joint_state(j).unwrap();
    assert!((s.position.unwrap() - 1.0).abs() < 0.02, "{s:?}");
    let p = w.body_state(slab).unwrap().position;
    assert!(((p[0] * p[0] + p[2] * p[2]).sqrt() - 0.55).abs() < 0.01 && (p[1] - 1.0).abs() < 0.01, "{p:?}");

    let mut v = PhysicsWorld::new();
    let (_, _, j) = door(&mut v, serde_json::json!({ "limits": [-0.3, 0.3], "motor": { "targetVelocity": 4.0, "maxForce": 1000.0 } }));
    run(&mut v, 240);
    let s = v.joint_state(j).unwrap();
    assert_eq!(s.limits, Some([-0.3, 0.3]));
    assert!((s.position.unwrap() - 0.3).abs() < 0.03, "held at the limit: {s:?}");
    v.set_motor(j, None).unwrap();
    assert!(v.joint_state(j).unwrap().motor.is_none());
  }

  #[test]
  fn joints_go_with_their_bodies_and_bad_ones_are_refused() {
    let mut w = PhysicsWorld::new();
    let (post, slab, j) = door(&mut w, serde_json::json!({}));
    assert_eq!(w.destroy_body(slab).unwrap(), vec![j]);
    assert_eq!(w.joint_state(j).unwrap_err().code, limina_ops::ErrorCode::NotFound);
    assert!(w.joint_handles().is_empty());
    let other = w.create_body(&body(BodyKind::Dynamic, Shape::Sphere { radius: 0.2 }, [2.0, 1.0, 0.0])).unwrap();
    for bad in [
      serde_json::json!({ "type": "revolute", "bodyA": post, "bodyB": post }),
      serde_json::json!({ "type": "fixed", "bodyA": post, "bodyB": other, "axis": [1.0, 0.0, 0.0] }),
      serde_json::json!({ "type": "rope", "bodyA": post, "bodyB": other, "motor": {} }),
      serde_json::json!({ "type": "revolute", "bodyA": post, "bodyB": other, "limits": [1.0, -1.0] }),
      serde_json::json!({ "type": "revolute", "bodyA": post, "bodyB": 99 }),
      serde_json::json!({ "type": "spring", "bodyA": post, "bodyB": other, "length": -1.0 }),
    ] {
      assert!(w.create_joint(&joint(bad.clone())).is_err(), "{bad}");
    }
    assert!(w.joint_handles().is_empty(), "a refused joint leaves nothing");
    let rope = w.create_joint(&joint(serde_json::json!({ "type": "rope", "bodyA": post, "bodyB": other, "length": 1.5 }))).unwrap();
    assert!(rope > j, "handles are never reused");
    run(&mut w, 120);
    assert!((w.joint_state(rope).unwrap().position.unwrap() - 1.5).abs() < 0.05);
  }

  #[test]
  fn a_restored_world_keeps_its_joints_and_steps_bit_for_bit() {
    let mut w = PhysicsWorld::new();
    let (_, _, j) = door(&mut w, serde_json::json!({ "limits": [-1.0, 1.0], "motor": { "targetVelocity": 1.0, "maxForce": 30.0 } }));
    run(&mut w, 30);
    let mut r = PhysicsWorld::restore(&w.snapshot().unwrap()).unwrap();
    assert_eq!(r.digest_bytes(), w.digest_bytes());
    for _ in 0..120 {
      w.step(1.0 / 60.0).unwrap();
      r.step(1.0 / 60.0).unwrap();
    }
    assert_eq!(r.digest_bytes(), w.digest_bytes());
    assert_eq!(format!("{:?}", r.joint_state(j).unwrap()), format!("{:?}", w.joint_state(j).unwrap()));
    // The motor is world state: changing it changes the digest.
    let before = w.digest_bytes();
    w.set_motor(j, Some(&Motor { target_velocity: 2.0, target_position: None, stiffness: None, damping: None, max_force: None })).unwrap();
    assert_ne!(w.digest_bytes(), before);
  }
}
