//! `PhysicsWorld`: Rapier3D behind stable `u32` body handles.
//!
//! Handles are allocated monotonically and never reused, so a destroyed
//! handle can never address a later body (a tombstone by construction).
//! Bodies are kept in handle order, which fixes the order of every
//! iteration (write-back, events) and keeps runs bit-reproducible.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use limina_ops::OpError;
use rapier3d::geometry::ContactPair;
use rapier3d::math::{Pose, Rotation, Vector};
use rapier3d::pipeline::PhysicsWorld as RapierWorld;
use rapier3d::prelude::*;

use crate::bounds::{Fallen, KillPlane};
use crate::joints::JointEntry;
use crate::shapes::{identity_quat, ColliderDesc, Groups, Material, MeshData, Shape};

/// How a body moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BodyKind {
  /// Moved by forces, impulses and contacts.
  Dynamic,
  /// Never moves.
  Static,
  /// Moved only by setting its pose; pushes dynamic bodies.
  Kinematic,
}

impl BodyKind {
  pub fn name(self) -> &'static str {
    match self {
      BodyKind::Dynamic => "dynamic",
      BodyKind::Static => "static",
      BodyKind::Kinematic => "kinematic",
    }
  }
}

fn rigid_body_type(kind: BodyKind) -> RigidBodyType {
  match kind {
    BodyKind::Dynamic => RigidBodyType::Dynamic,
    BodyKind::Static => RigidBodyType::Fixed,
    BodyKind::Kinematic => RigidBodyType::KinematicPositionBased,
  }
}

fn rigid_body_builder(kind: BodyKind) -> RigidBodyBuilder {
  RigidBodyBuilder::new(rigid_body_type(kind))
}

/// A body's material defaults as `set_colliders` takes them.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ColliderMaterial {
  #[serde(default = "default_friction")]
  pub friction: f32,
  #[serde(default)]
  pub restitution: f32,
  #[serde(default = "default_density")]
  pub density: f32,
  #[serde(default)]
  pub sensor: bool,
  #[serde(default)]
  pub groups: Groups,
}

impl ColliderMaterial {
  fn validate(&self) -> Result<(), OpError> {
    non_negative("friction", self.friction)?;
    non_negative("restitution", self.restitution)?;
    positive("density", self.density)
  }

  fn into_material(self) -> Material {
    Material { friction: self.friction, restitution: self.restitution, density: self.density, sensor: self.sensor, groups: self.groups }
  }
}

/// Everything needed to create one body and its colliders: one `shape` at
/// the body's centre, or several `colliders` (a compound body).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BodyDesc {
  pub kind: BodyKind,
  pub shape: Option<Shape>,
  #[serde(default)]
  pub colliders: Vec<ColliderDesc>,
  #[serde(default)]
  pub position: [f32; 3],
  /// Quaternion `[x, y, z, w]`; normalised on creation.
  #[serde(default = "identity_quat")]
  pub rotation: [f32; 4],
  #[serde(default = "default_friction")]
  pub friction: f32,
  #[serde(default)]
  pub restitution: f32,
  #[serde(default = "default_density")]
  pub density: f32,
  #[serde(default)]
  pub linear_damping: f32,
  #[serde(default)]
  pub angular_damping: f32,
  /// Continuous collision detection, for fast small bodies.
  #[serde(default)]
  pub ccd: bool,
  /// Every collider a sensor: it reports bodies entering and leaving it and stops nothing.
  #[serde(default)]
  pub sensor: bool,
  #[serde(default)]
  pub groups: Groups,
  /// The ECS entity this body drives: its SoA slot for write-back and the
  /// id collision events and raycasts report.
  pub eid: Option<u32>,
}

fn default_friction() -> f32 {
  0.5
}
fn default_density() -> f32 {
  1.0
}

pub(crate) fn finite(name: &str, values: &[f32]) -> Result<(), OpError> {
  if values.iter().all(|v| v.is_finite()) {
    Ok(())
  } else {
    Err(OpError::invalid_input(format!("{name} must be finite numbers, got {values:?}")))
  }
}

pub(crate) fn positive(name: &str, v: f32) -> Result<(), OpError> {
  if v.is_finite() && v > 0.0 {
    Ok(())
  } else {
    Err(OpError::invalid_input(format!("{name} must be a positive number, got {v}")))
  }
}

pub(crate) fn non_negative(name: &str, v: f32) -> Result<(), OpError> {
  if v.is_finite() && v >= 0.0 {
    Ok(())
  } else {
    Err(OpError::invalid_input(format!("{name} must be a number ≥ 0, got {v}")))
  }
}

/// A unit quaternion from `[x, y, z, w]`, rejecting zero or non-finite input.
pub fn unit_quat(q: [f32; 4]) -> Result<Rotation, OpError> {
  finite("rotation", &q)?;
  let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
  if len < 1e-6 {
    return Err(OpError::invalid_input(format!("rotation quaternion must be non-zero, got {q:?}")));
  }
  Ok(Rotation::from_xyzw(q[0] / len, q[1] / len, q[2] / len, q[3] / len))
}

/// The most colliders one body may carry.
pub const MAX_COLLIDERS: usize = 256;

impl BodyDesc {
  /// The body's colliders: `shape` as one collider at its centre, or `colliders`.
  fn collider_descs(&self) -> Result<Vec<ColliderDesc>, OpError> {
    let list = match (self.shape, self.colliders.is_empty()) {
      (Some(shape), true) => {
        vec![ColliderDesc { shape, offset: [0.0; 3], rotation: identity_quat(), friction: None, restitution: None, density: None, sensor: None }]
      }
      (None, false) => self.colliders.clone(),
      (Some(_), false) => return Err(OpError::invalid_input("give a body either a shape or colliders, not both")),
      (None, true) => return Err(OpError::invalid_input("a body needs a shape or at least one collider")),
    };
    if list.len() > MAX_COLLIDERS {
      return Err(OpError::invalid_input(format!("a body carries at most {MAX_COLLIDERS} colliders, got {}", list.len())));
    }
    for c in &list {
      c.validate()?;
    }
    check_solid(self.kind, &list)?;
    Ok(list)
  }

  fn material(&self) -> Material {
    Material { friction: self.friction, restitution: self.restitution, density: self.density, sensor: self.sensor, groups: self.groups }
  }

  fn validate(&self) -> Result<(), OpError> {
    finite("position", &self.position)?;
    non_negative("friction", self.friction)?;
    non_negative("restitution", self.restitution)?;
    positive("density", self.density)?;
    non_negative("linearDamping", self.linear_damping)?;
    non_negative("angularDamping", self.angular_damping)?;
    Ok(())
  }
}

/// Dynamic bodies cannot carry hollow shapes: a triangle mesh or a heightfield has no inside to weigh.
fn check_solid(kind: BodyKind, colliders: &[ColliderDesc]) -> Result<(), OpError> {
  if kind == BodyKind::Dynamic && colliders.iter().any(|c| !c.shape.solid()) {
    return Err(OpError::invalid_input(
      "a trimesh or heightfield collider is for static and kinematic bodies; give a dynamic body a convexHull (or primitive) collider",
    ));
  }
  Ok(())
}

pub(crate) struct BodyEntry {
  pub(crate) body: RigidBodyHandle,
  pub(crate) colliders: Vec<ColliderHandle>,
  pub(crate) kind: BodyKind,
  pub(crate) eid: Option<u32>,
  /// The pose it was created at, where a kill plane set to respawn puts it back.
  pub(crate) spawn: ([f32; 3], [f32; 4]),
}

/// A collision start or stop between two bodies, with the deepest contact
/// point and the normal (from `a` towards `b`) when the narrow phase has one.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CollisionRecord {
  pub started: bool,
  /// One of the two is a sensor: a body entered (`started`) or left it, with no contact.
  pub sensor: bool,
  pub a: u32,
  pub b: u32,
  pub eid_a: Option<u32>,
  pub eid_b: Option<u32>,
  pub point: Option<[f32; 3]>,
  pub normal: Option<[f32; 3]>,
}

/// The raw event as Rapier reports it during a step, before handle mapping.
struct RawCollision {
  started: bool,
  sensor: bool,
  c1: ColliderHandle,
  c2: ColliderHandle,
  contact: Option<([f32; 3], [f32; 3])>,
}

#[derive(Default)]
struct Collector {
  events: Mutex<Vec<RawCollision>>,
}

fn deepest_contact(colliders: &ColliderSet, pair: &ContactPair) -> Option<([f32; 3], [f32; 3])> {
  let (manifold, contact) = pair.find_deepest_contact()?;
  let c1 = colliders.get(pair.collider1)?;
  let p = c1.position().transform_point(contact.local_p1);
  let n = manifold.data.normal;
  Some(([p.x, p.y, p.z], [n.x, n.y, n.z]))
}

impl EventHandler for Collector {
  fn handle_collision_event(
    &self,
    _bodies: &RigidBodySet,
    colliders: &ColliderSet,
    event: CollisionEvent,
    contact_pair: Option<&ContactPair>,
  ) {
    let contact = contact_pair.and_then(|pair| deepest_contact(colliders, pair));
    let sensor = event.sensor();
    let (started, mut c1, mut c2) = match event {
      CollisionEvent::Started(c1, c2, _) => (true, c1, c2),
      CollisionEvent::Stopped(c1, c2, _) => (false, c1, c2),
    };
    // A sensor event names the sensor first.
    let is_sensor = |c| colliders.get(c).is_some_and(|c: &Collider| c.is_sensor());
    if sensor && !is_sensor(c1) && is_sensor(c2) {
      std::mem::swap(&mut c1, &mut c2);
    }
    self.events.lock().expect("collector lock").push(RawCollision { started, sensor, c1, c2, contact });
  }

  fn handle_contact_force_event(
    &self,
    _dt: Real,
    _bodies: &RigidBodySet,
    _colliders: &ColliderSet,
    _contact_pair: &ContactPair,
    _total_force_magnitude: Real,
  ) {
  }

  fn handle_soft_body_tear_event(&self, _soft_bodies: &SoftBodySet, _event: &SoftBodyTearEvent) {}
}

/// The first body a ray hits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayHit {
  pub handle: u32,
  pub eid: Option<u32>,
  pub distance: f32,
  pub point: [f32; 3],
  pub normal: [f32; 3],
}

/// A body's pose and motion, for inspection.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BodyState {
  pub handle: u32,
  pub kind: BodyKind,
  pub eid: Option<u32>,
  pub position: [f32; 3],
  pub rotation: [f32; 4],
  pub linear_velocity: [f32; 3],
  pub angular_velocity: [f32; 3],
  pub sleeping: bool,
}

/// The SoA transform columns a write-back fills, indexed by eid.
pub struct TransformColumns<'a> {
  pub px: &'a mut [f32],
  pub py: &'a mut [f32],
  pub pz: &'a mut [f32],
  pub rx: &'a mut [f32],
  pub ry: &'a mut [f32],
  pub rz: &'a mut [f32],
  pub rw: &'a mut [f32],
}

pub struct PhysicsWorld {
  pub(crate) rapier: RapierWorld,
  pub(crate) bodies: BTreeMap<u32, BodyEntry>,
  pub(crate) by_collider: HashMap<ColliderHandle, u32>,
  pub(crate) next_handle: u32,
  pub(crate) joints: BTreeMap<u32, JointEntry>,
  pub(crate) next_joint: u32,
  pub(crate) kill_plane: Option<KillPlane>,
  collector: Collector,
  pub(crate) pending: Vec<CollisionRecord>,
  pub(crate) fallen: Vec<Fallen>,
  pub(crate) steps: u64,
  /// Character controllers by body handle (see character.rs).
  pub(crate) characters: BTreeMap<u32, crate::character::Character>,
}

impl Default for PhysicsWorld {
  fn default() -> Self {
    Self::new()
  }
}

impl PhysicsWorld {
  /// An empty world with Earth's gravity and the default kill plane.
  pub fn new() -> Self {
    Self {
      rapier: RapierWorld::new(),
      bodies: BTreeMap::new(),
      by_collider: HashMap::new(),
      next_handle: 1,
      joints: BTreeMap::new(),
      next_joint: 1,
      kill_plane: Some(KillPlane::default()),
      collector: Collector::default(),
      pending: Vec::new(),
      fallen: Vec::new(),
      steps: 0,
      characters: BTreeMap::new(),
    }
  }

  pub fn set_gravity(&mut self, g: [f32; 3]) -> Result<(), OpError> {
    finite("gravity", &g)?;
    self.rapier.gravity = Vector::new(g[0], g[1], g[2]);
    Ok(())
  }

  pub fn body_count(&self) -> usize {
    self.bodies.len()
  }

  pub fn steps(&self) -> u64 {
    self.steps
  }

  pub fn create_body(&mut self, desc: &BodyDesc) -> Result<u32, OpError> {
    self.create_body_with_mesh(desc, MeshData::default())
  }

  /// Creates a body whose mesh colliders read their vertices and triangles from `mesh`.
  pub fn create_body_with_mesh(&mut self, desc: &BodyDesc, mesh: MeshData<'_>) -> Result<u32, OpError> {
    desc.validate()?;
    let descs = desc.collider_descs()?;
    let material = desc.material();
    // Every collider is built before anything is inserted: a bad one leaves the world as it was.
    let colliders = descs.iter().map(|c| c.build(&material, mesh)).collect::<Result<Vec<_>, _>>()?;
    let rotation = unit_quat(desc.rotation)?;
    let pose = Pose::from_parts(Vector::from_array(desc.position), rotation);
    let body = rigid_body_builder(desc.kind)
      .pose(pose)
      .linear_damping(desc.linear_damping)
      .angular_damping(desc.angular_damping)
      .ccd_enabled(desc.ccd)
      .build();
    let handle = self.next_handle;
    self.next_handle = self
      .next_handle
      .checked_add(1)
      .ok_or_else(|| OpError::capacity_exceeded("physics body handles exhausted"))?;
    let body = self.rapier.insert_body(body);
    let colliders = self.attach(handle, body, colliders);
    let spawn = (desc.position, [rotation.x, rotation.y, rotation.z, rotation.w]);
    self.bodies.insert(handle, BodyEntry { body, colliders, kind: desc.kind, eid: desc.eid, spawn });
    Ok(handle)
  }

  fn attach(&mut self, handle: u32, body: RigidBodyHandle, colliders: Vec<Collider>) -> Vec<ColliderHandle> {
    colliders
      .into_iter()
      .map(|c| {
        let h = self.rapier.insert_collider(c, Some(body));
        self.by_collider.insert(h, handle);
        h
      })
      .collect()
  }

  /// Replaces a body's colliders (e.g. after the entity was rescaled); on
  /// a bad description the body keeps the ones it had.
  pub fn set_colliders(&mut self, handle: u32, colliders: &[ColliderDesc], material: ColliderMaterial, mesh: MeshData<'_>) -> Result<(), OpError> {
    let kind = self.entry(handle)?.kind;
    if colliders.is_empty() || colliders.len() > MAX_COLLIDERS {
      return Err(OpError::invalid_input(format!("a body carries 1 to {MAX_COLLIDERS} colliders, got {}", colliders.len())));
    }
    for c in colliders {
      c.validate()?;
    }
    check_solid(kind, colliders)?;
    material.validate()?;
    let material = material.into_material();
    let built = colliders.iter().map(|c| c.build(&material, mesh)).collect::<Result<Vec<_>, _>>()?;
    let entry = self.bodies.get_mut(&handle).ok_or_else(|| unknown(handle))?;
    let (body, old) = (entry.body, std::mem::take(&mut entry.colliders));
    for c in old {
      self.by_collider.remove(&c);
      self.rapier.remove_collider(c);
    }
    let new = self.attach(handle, body, built);
    self.bodies.get_mut(&handle).expect("entry").colliders = new;
    self.rapier.wake_up(body, true);
    Ok(())
  }

  pub(crate) fn entry(&self, handle: u32) -> Result<&BodyEntry, OpError> {
    self.bodies.get(&handle).ok_or_else(|| unknown(handle))
  }

  fn rigid_body_mut(&mut self, handle: u32) -> Result<&mut RigidBody, OpError> {
    let body = self.entry(handle)?.body;
    self.rapier.bodies.get_mut(body).ok_or_else(|| unknown(handle))
  }

  /// Destroys a body with its colliders and joints; returns the handles of the joints that went with it.
  pub fn destroy_body(&mut self, handle: u32) -> Result<Vec<u32>, OpError> {
    let entry = self.bodies.remove(&handle).ok_or_else(|| unknown(handle))?;
    for c in &entry.colliders {
      self.by_collider.remove(c);
    }
    self.rapier.remove_body(entry.body);
    Ok(self.drop_joints_of(handle))
  }

  /// Advances the simulation by `dt` seconds, queues the collision events,
  /// then applies the kill plane. Returns how many events (collisions and
  /// bodies out of bounds) wait to be drained.
  pub fn step(&mut self, dt: f32) -> Result<u32, OpError> {
    if !(dt.is_finite() && dt > 0.0 && dt <= 1.0) {
      return Err(OpError::invalid_input(format!("physics dt must be in (0, 1] seconds, got {dt}")));
    }
    self.rapier.integration_parameters.dt = dt;
    self.rapier.step_with_events(&(), &self.collector);
    self.steps += 1;
    self.collect_events();
    self.apply_kill_plane();
    Ok((self.pending.len() + self.fallen.len()) as u32)
  }

  /// Brings contacts and scene queries (raycasts) up to date with colliders added or changed
  /// since the last step, without advancing the simulation; contacts it starts or ends are
  /// reported like a step's.
  pub(crate) fn detect_collisions_now(&mut self) {
    self.rapier.detect_collisions(&(), &self.collector);
    self.collect_events();
  }

  /// Moves the collision events Rapier reported into the queue, as body handles.
  fn collect_events(&mut self) {
    let raw = std::mem::take(&mut *self.collector.events.lock().expect("collector lock"));
    for e in raw {
      // A collider removed during the step (none today) would have no body.
      let (Some(&a), Some(&b)) = (self.by_collider.get(&e.c1), self.by_collider.get(&e.c2)) else {
        continue;
      };
      self.pending.push(CollisionRecord {
        started: e.started,
        sensor: e.sensor,
        a,
        b,
        eid_a: self.bodies[&a].eid,
        eid_b: self.bodies[&b].eid,
        point: e.contact.map(|c| c.0),
        normal: e.contact.map(|c| c.1),
      });
    }
  }

  /// The collision events since the last drain, in the order they happened.
  pub fn drain_collisions(&mut self) -> Vec<CollisionRecord> {
    std::mem::take(&mut self.pending)
  }

  /// The bodies overlapping any sensor collider of body `handle` now, in handle order.
  pub fn sensor_contents(&self, handle: u32) -> Result<Vec<u32>, OpError> {
    let entry = self.entry(handle)?;
    let mut inside = std::collections::BTreeSet::new();
    for &c in &entry.colliders {
      if !self.rapier.colliders[c].is_sensor() {
        continue;
      }
      for (h1, _, h2, _, intersecting) in self.rapier.intersection_pairs_with(c) {
        let other = if h1 == c { h2 } else { h1 };
        if let (true, Some(&b)) = (intersecting, self.by_collider.get(&other)) {
          if b != handle {
            inside.insert(b);
          }
        }
      }
    }
    Ok(inside.into_iter().collect())
  }

  /// Changes how a body moves. A body becoming dynamic keeps its pose and starts at rest.
  pub fn set_body_type(&mut self, handle: u32, kind: BodyKind) -> Result<(), OpError> {
    let entry = self.entry(handle)?;
    if kind == entry.kind {
      return Ok(());
    }
    if kind == BodyKind::Dynamic {
      let hollow = entry.colliders.iter().any(|c| {
        let shape = self.rapier.colliders[*c].shape();
        shape.as_trimesh().is_some() || shape.as_heightfield().is_some()
      });
      if hollow {
        return Err(OpError::invalid_input(format!(
          "body {handle} has a trimesh or heightfield collider, which only static and kinematic bodies may carry"
        )));
      }
    }
    let body = self.rigid_body_mut(handle)?;
    body.set_body_type(rigid_body_type(kind), true);
    body.set_linvel(Vector::ZERO, true);
    body.set_angvel(Vector::ZERO, true);
    self.bodies.get_mut(&handle).expect("entry").kind = kind;
    Ok(())
  }

  pub fn set_angular_velocity(&mut self, handle: u32, w: [f32; 3]) -> Result<(), OpError> {
    finite("angular velocity", &w)?;
    self.dynamic(handle, "have a velocity to set")?;
    self.rigid_body_mut(handle)?.set_angvel(Vector::from_array(w), true);
    Ok(())
  }

  fn dynamic(&self, handle: u32, what: &str) -> Result<(), OpError> {
    let kind = self.entry(handle)?.kind;
    if kind != BodyKind::Dynamic {
      return Err(OpError::invalid_input(format!("body {handle} is {}: only dynamic bodies {what}", kind.name())));
    }
    Ok(())
  }

  pub fn apply_impulse(&mut self, handle: u32, impulse: [f32; 3]) -> Result<(), OpError> {
    finite("impulse", &impulse)?;
    self.dynamic(handle, "take impulses")?;
    self.rigid_body_mut(handle)?.apply_impulse(Vector::from_array(impulse), true);
    Ok(())
  }

  /// Teleports a body (or, for a kinematic body, moves it there over the next step).
  pub fn set_pose(&mut self, handle: u32, position: [f32; 3], rotation: [f32; 4]) -> Result<(), OpError> {
    finite("position", &position)?;
    let pose = Pose::from_parts(Vector::from_array(position), unit_quat(rotation)?);
    let kind = self.entry(handle)?.kind;
    let body = self.rigid_body_mut(handle)?;
    if kind == BodyKind::Kinematic {
      body.set_next_kinematic_position(pose);
    } else {
      body.set_position(pose, true);
    }
    Ok(())
  }

  pub fn set_linear_velocity(&mut self, handle: u32, v: [f32; 3]) -> Result<(), OpError> {
    finite("velocity", &v)?;
    self.dynamic(handle, "have a velocity to set")?;
    self.rigid_body_mut(handle)?.set_linvel(Vector::from_array(v), true);
    Ok(())
  }

  pub fn body_state(&self, handle: u32) -> Result<BodyState, OpError> {
    let entry = self.entry(handle)?;
    let rb = self.rapier.bodies.get(entry.body).ok_or_else(|| unknown(handle))?;
    let t = rb.translation();
    let q = rb.rotation();
    let v = rb.linvel();
    let w = rb.angvel();
    Ok(BodyState {
      handle,
      kind: entry.kind,
      eid: entry.eid,
      position: [t.x, t.y, t.z],
      rotation: [q.x, q.y, q.z, q.w],
      linear_velocity: [v.x, v.y, v.z],
      angular_velocity: [w.x, w.y, w.z],
      sleeping: rb.is_sleeping(),
    })
  }

  /// The first body hit by a ray from `origin` along `dir` within `max_distance`.
  pub fn raycast(&self, origin: [f32; 3], dir: [f32; 3], max_distance: f32, solid: bool) -> Result<Option<RayHit>, OpError> {
    finite("ray origin", &origin)?;
    finite("ray direction", &dir)?;
    non_negative("ray maxDistance", max_distance)?;
    let d = Vector::from_array(dir);
    let len = d.length();
    if len < 1e-9 {
      return Err(OpError::invalid_input("ray direction must be non-zero"));
    }
    let ray = Ray::new(Vector::from_array(origin), d / len);
    let Some((collider, hit)) =
      self.rapier.cast_ray_and_get_normal(&ray, max_distance, solid, QueryFilter::default().exclude_sensors())
    else {
      return Ok(None);
    };
    let Some(&handle) = self.by_collider.get(&collider) else {
      return Ok(None);
    };
    let p = ray.point_at(hit.time_of_impact);
    Ok(Some(RayHit {
      handle,
      eid: self.bodies[&handle].eid,
      distance: hit.time_of_impact,
      point: [p.x, p.y, p.z],
      normal: [hit.normal.x, hit.normal.y, hit.normal.z],
    }))
  }

  /// Writes each dynamic body's position and quaternion into the SoA
  /// columns at its eid, and the eids whose transform changed (bit for bit)
  /// into `moved`; returns how many changed. Bodies that did not move (asleep,
  /// or at rest) leave their columns as they were and are not listed, so the
  /// scene follows only what moved.
  pub fn write_transforms(&self, cols: TransformColumns<'_>, moved: &mut [u32]) -> Result<u32, OpError> {
    let len = [cols.px.len(), cols.py.len(), cols.pz.len(), cols.rx.len(), cols.ry.len(), cols.rz.len(), cols.rw.len()]
      .into_iter()
      .min()
      .unwrap_or(0);
    let mut n = 0;
    for (&handle, entry) in &self.bodies {
      let (BodyKind::Dynamic, Some(eid)) = (entry.kind, entry.eid) else { continue };
      let i = eid as usize;
      if i >= len {
        return Err(OpError::invalid_input(format!(
          "body {handle} drives eid {eid}, outside the {len}-entity transform buffers"
        )));
      }
      let rb = &self.rapier.bodies[entry.body];
      let t = rb.translation();
      let q = rb.rotation();
      let pose = [t.x, t.y, t.z, q.x, q.y, q.z, q.w];
      let held = [cols.px[i], cols.py[i], cols.pz[i], cols.rx[i], cols.ry[i], cols.rz[i], cols.rw[i]];
      if pose.iter().zip(held).all(|(a, b)| a.to_bits() == b.to_bits()) {
        continue;
      }
      let room = moved.len();
      let slot = moved.get_mut(n).ok_or_else(|| OpError::invalid_input(format!("more bodies moved than the {room}-eid list of moved bodies holds")))?;
      *slot = eid;
      n += 1;
      [cols.px[i], cols.py[i], cols.pz[i], cols.rx[i], cols.ry[i], cols.rz[i], cols.rw[i]] = pose;
    }
    Ok(n as u32)
  }
}

fn unknown(handle: u32) -> OpError {
  OpError::not_found(format!("unknown physics body {handle} (never created or already destroyed)"))
}

#[cfg(test)]
mod tests {
  use super::*;

  fn ball(eid: u32, position: [f32; 3]) -> BodyDesc {
    BodyDesc {
      kind: BodyKind::Dynamic,
      shape: Some(Shape::Sphere { radius: 0.5 }),
      colliders: Vec::new(),
      position,
      rotation: identity_quat(),
      friction: 0.3,
      restitution: 0.4,
      density: 1.0,
      linear_damping: 0.0,
      angular_damping: 0.0,
      ccd: false,
      sensor: false,
      groups: Groups::default(),
      eid: Some(eid),
    }
  }

  fn ground() -> BodyDesc {
    BodyDesc {
      kind: BodyKind::Static,
      shape: Some(Shape::Box { half_extents: [50.0, 0.5, 50.0] }),
      position: [0.0, -0.5, 0.0],
      eid: Some(0),
      ..ball(0, [0.0; 3])
    }
  }

  struct Soa {
    cols: [Vec<f32>; 7],
  }

  impl Soa {
    fn new(n: usize) -> Self {
      Self { cols: std::array::from_fn(|_| vec![0.0; n]) }
    }
    /// The eids `write_transforms` reported moved, in the order it wrote them.
    fn write(&mut self, w: &PhysicsWorld) -> Vec<u32> {
      let [px, py, pz, rx, ry, rz, rw] = &mut self.cols;
      let mut moved = vec![0; px.len()];
      let n = w.write_transforms(TransformColumns { px, py, pz, rx, ry, rz, rw }, &mut moved).unwrap();
      moved.truncate(n as usize);
      moved
    }
    fn bits(&self) -> Vec<u32> {
      self.cols.iter().flatten().map(|v| v.to_bits()).collect()
    }
  }

  fn pile(w: &mut PhysicsWorld) {
    w.create_body(&ground()).unwrap();
    for i in 0..40u32 {
      let x = (i % 5) as f32 * 0.9 - 2.0;
      let z = (i / 5 % 4) as f32 * 0.9 - 1.5;
      let h = w.create_body(&ball(i + 1, [x, 1.0 + (i / 20) as f32 * 1.1 + (i % 3) as f32 * 0.3, z])).unwrap();
      if i % 7 == 0 {
        w.apply_impulse(h, [0.5, 0.0, -0.3]).unwrap();
      }
    }
  }

  #[test]
  fn identical_inputs_give_bit_identical_transforms_after_600_steps() {
    let mut runs = Vec::new();
    for _ in 0..2 {
      let mut w = PhysicsWorld::new();
      pile(&mut w);
      for _ in 0..600 {
        w.step(1.0 / 60.0).unwrap();
      }
      let mut soa = Soa::new(64);
      assert_eq!(soa.write(&w).len(), 40);
      runs.push(soa.bits());
    }
    assert_eq!(runs[0], runs[1]);
  }

  #[test]
  fn the_write_back_lists_only_bodies_that_moved_and_matches_writing_every_body() {
    let mut w = PhysicsWorld::new();
    pile(&mut w);
    // Balls roll on; a box dropped beside them comes to rest and sleeps.
    let drop = [10.0, 0.8, 10.0];
    w.create_body(&BodyDesc { shape: Some(Shape::Box { half_extents: [0.5; 3] }), position: drop, ..ball(41, drop) }).unwrap();
    let mut soa = Soa::new(64);
    let mut listed = std::collections::BTreeSet::new();
    let asleep = |w: &PhysicsWorld| -> Vec<u32> {
      w.bodies.values().filter(|e| e.kind == BodyKind::Dynamic && w.rapier.bodies[e.body].is_sleeping()).map(|e| e.eid.unwrap()).collect()
    };
    let mut slept = 0;
    for step in 0..900 {
      let before = asleep(&w);
      w.step(1.0 / 60.0).unwrap();
      let moved = soa.write(&w);
      // A body asleep through the whole step did not move, so it is not listed.
      for eid in asleep(&w).into_iter().filter(|e| before.contains(e)) {
        assert!(!moved.contains(&eid), "eid {eid} slept through step {step} and was listed");
        slept += 1;
      }
      // Every body's columns hold its pose now, listed or not: the same bits as writing them all.
      for entry in w.bodies.values().filter(|e| e.kind == BodyKind::Dynamic) {
        let (rb, i) = (&w.rapier.bodies[entry.body], entry.eid.unwrap() as usize);
        let (t, q) = (rb.translation(), rb.rotation());
        let want = [t.x, t.y, t.z, q.x, q.y, q.z, q.w];
        let held: Vec<f32> = soa.cols.iter().map(|c| c[i]).collect();
        assert!(want.iter().zip(&held).all(|(a, b)| a.to_bits() == b.to_bits()), "eid {i} at step {step}");
      }
      listed.extend(moved);
    }
    assert_eq!(listed.len(), 41, "every body moved at some point");
    assert!(slept > 0, "the box came to rest and slept through steps");
    assert!(soa.write(&w).is_empty(), "nothing moves between steps");
  }

  #[test]
  fn the_write_back_refuses_a_list_too_short_for_what_moved() {
    let mut w = PhysicsWorld::new();
    pile(&mut w);
    w.step(1.0 / 60.0).unwrap();
    let mut soa = Soa::new(64);
    let [px, py, pz, rx, ry, rz, rw] = &mut soa.cols;
    let err = w.write_transforms(TransformColumns { px, py, pz, rx, ry, rz, rw }, &mut [0; 3]).unwrap_err();
    assert!(err.message.contains("3-eid list"), "{}", err.message);
  }

  #[test]
  fn destroyed_handles_stay_dead_and_are_never_reissued() {
    let mut w = PhysicsWorld::new();
    let a = w.create_body(&ball(1, [0.0, 1.0, 0.0])).unwrap();
    w.destroy_body(a).unwrap();
    let b = w.create_body(&ball(2, [0.0, 1.0, 0.0])).unwrap();
    assert_ne!(a, b);
    for err in [
      w.apply_impulse(a, [0.0, 1.0, 0.0]).unwrap_err(),
      w.destroy_body(a).unwrap_err(),
      w.body_state(a).unwrap_err(),
    ] {
      assert_eq!(err.code, limina_ops::ErrorCode::NotFound);
      assert!(err.message.contains(&a.to_string()), "{}", err.message);
    }
  }

  #[test]
  fn a_falling_ball_lands_and_reports_the_collision() {
    let mut w = PhysicsWorld::new();
    let g = w.create_body(&ground()).unwrap();
    let b = w.create_body(&ball(7, [0.0, 3.0, 0.0])).unwrap();
    let mut events = Vec::new();
    for _ in 0..120 {
      w.step(1.0 / 60.0).unwrap();
      events.extend(w.drain_collisions());
    }
    let started: Vec<_> = events.iter().filter(|e| e.started).collect();
    assert!(!started.is_empty(), "no collision start in {events:?}");
    let e = started[0];
    let mut pair = [(e.a, e.eid_a), (e.b, e.eid_b)];
    pair.sort();
    assert_eq!(pair, [(g, Some(0)), (b, Some(7))]);
    let p = e.point.expect("contact point");
    assert!(p[1].abs() < 0.1, "contact near the ground plane: {p:?}");
    let n = e.normal.expect("normal");
    assert!((n[1].abs() - 1.0).abs() < 1e-3, "vertical normal: {n:?}");
    let s = w.body_state(b).unwrap();
    assert!((s.position[1] - 0.5).abs() < 0.05, "resting on the ground: {:?}", s.position);
  }

  #[test]
  fn raycasts_hit_the_nearest_body() {
    let mut w = PhysicsWorld::new();
    w.create_body(&ground()).unwrap();
    let near = w.create_body(&BodyDesc { kind: BodyKind::Static, ..ball(3, [0.0, 1.0, 5.0]) }).unwrap();
    w.create_body(&BodyDesc { kind: BodyKind::Static, ..ball(4, [0.0, 1.0, 10.0]) }).unwrap();
    w.step(1.0 / 60.0).unwrap();
    let hit = w.raycast([0.0, 1.0, 0.0], [0.0, 0.0, 2.0], 100.0, true).unwrap().unwrap();
    assert_eq!((hit.handle, hit.eid), (near, Some(3)));
    assert!((hit.distance - 4.5).abs() < 1e-4, "{}", hit.distance);
    assert!((hit.point[2] - 4.5).abs() < 1e-4);
    assert!((hit.normal[2] + 1.0).abs() < 1e-4);
    assert!(w.raycast([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], 4.0, true).unwrap().is_none(), "out of range");
    let down = w.raycast([3.0, 5.0, 3.0], [0.0, -1.0, 0.0], 100.0, true).unwrap().unwrap();
    assert_eq!(down.eid, Some(0));
    assert!((down.distance - 5.0).abs() < 1e-4);
    assert!(w.raycast([0.0; 3], [0.0; 3], 1.0, true).is_err());
  }

  #[test]
  fn bad_descriptions_are_rejected_and_create_nothing() {
    let mut w = PhysicsWorld::new();
    let cases = [
      BodyDesc { shape: Some(Shape::Sphere { radius: 0.0 }), ..ball(1, [0.0; 3]) },
      BodyDesc { shape: Some(Shape::Box { half_extents: [1.0, -1.0, 1.0] }), ..ball(1, [0.0; 3]) },
      BodyDesc { shape: Some(Shape::Cylinder { half_height: 1.0, radius: f32::INFINITY }), ..ball(1, [0.0; 3]) },
      BodyDesc { shape: None, ..ball(1, [0.0; 3]) },
      BodyDesc { position: [f32::NAN, 0.0, 0.0], ..ball(1, [0.0; 3]) },
      BodyDesc { rotation: [0.0; 4], ..ball(1, [0.0; 3]) },
      BodyDesc { friction: -1.0, ..ball(1, [0.0; 3]) },
    ];
    for desc in cases {
      let err = w.create_body(&desc).unwrap_err();
      assert_eq!(err.code, limina_ops::ErrorCode::InvalidInput, "{desc:?}");
    }
    assert_eq!(w.body_count(), 0);
    assert!(w.step(0.0).is_err() && w.step(f32::NAN).is_err());
  }

  #[test]
  fn impulses_wake_and_move_dynamic_bodies_only() {
    let mut w = PhysicsWorld::new();
    w.set_gravity([0.0, 0.0, 0.0]).unwrap();
    let b = w.create_body(&ball(1, [0.0; 3])).unwrap();
    let s = w.create_body(&BodyDesc { kind: BodyKind::Static, ..ball(2, [5.0, 0.0, 0.0]) }).unwrap();
    w.apply_impulse(b, [1.0, 0.0, 0.0]).unwrap();
    assert!(w.apply_impulse(s, [1.0, 0.0, 0.0]).is_err());
    w.step(1.0 / 60.0).unwrap();
    let st = w.body_state(b).unwrap();
    assert!(st.linear_velocity[0] > 0.0 && !st.sleeping);
  }
}
