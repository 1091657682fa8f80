//! Characters: upright capsules on kinematic bodies, moved each fixed step
//! by Rapier's kinematic character controller — sliding along walls,
//! climbing slopes up to a limit, stepping up small steps, snapping down to
//! the ground, falling under the world's gravity, jumping, and pushing the
//! dynamic bodies they walk into. A character is a body like any other (its
//! handle, its entity); what it wants to do (a velocity, a jump, a facing)
//! is set between steps and carried out by [`PhysicsWorld::step_characters`].

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use limina_ops::OpError;
use rapier3d::control::{CharacterAutostep, CharacterCollision, CharacterLength, EffectiveCharacterMovement, KinematicCharacterController};
use rapier3d::math::{Pose, Vector};
use rapier3d::prelude::*;

use crate::world::{BodyKind, PhysicsWorld, TransformColumns};

/// What a new character is.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CharacterDesc {
  /// Where its feet stand.
  pub position: [f32; 3],
  #[serde(default = "d_radius")]
  pub radius: f32,
  /// Head to feet (m), at least twice the radius.
  #[serde(default = "d_height")]
  pub height: f32,
  /// The steepest slope it walks up, degrees.
  #[serde(default = "d_slope")]
  pub max_slope: f32,
  /// The highest step it steps up without jumping (m).
  #[serde(default = "d_step")]
  pub step_height: f32,
  /// How far down it sticks to the ground when walking off a small drop (m).
  #[serde(default = "d_snap")]
  pub snap_distance: f32,
  /// Its mass for pushing dynamic bodies (kg).
  #[serde(default = "d_mass")]
  pub mass: f32,
  pub eid: Option<u32>,
}

fn d_radius() -> f32 {
  0.3
}
fn d_height() -> f32 {
  1.8
}
fn d_slope() -> f32 {
  45.0
}
fn d_step() -> f32 {
  0.35
}
fn d_snap() -> f32 {
  0.3
}
fn d_mass() -> f32 {
  70.0
}

/// A character's controller and what it is doing.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Character {
  controller: KinematicCharacterController,
  radius: f32,
  half_height: f32,
  mass: f32,
  /// The horizontal velocity it wants (m/s).
  wanted: [f32; 2],
  /// Vertical speed while airborne (m/s, up positive).
  vertical: f32,
  jump: Option<f32>,
  grounded: bool,
  sliding: bool,
  /// Unit direction it faces in the ground plane (x, z); (0, 1) faces +z.
  facing: [f32; 2],
  /// Horizontal and vertical velocity actually achieved last step.
  moved: [f32; 3],
}

/// One character's step as planned before the moves are computed.
struct Plan {
  handle: u32,
  body: RigidBodyHandle,
  collider: ColliderHandle,
  eid: Option<u32>,
  ch: Character,
}

/// Characters whose moves one thread takes at a time.
const MOVE_CHUNK: usize = 8;

/// What one character's move is computed from.
struct MoveInput {
  body: RigidBodyHandle,
  collider: ColliderHandle,
  desired: Vector,
  rising: bool,
  controller: KinematicCharacterController,
}

/// A character's move: where the controller lets it go, and what it hit on the way.
type Move = (EffectiveCharacterMovement, Vec<CharacterCollision>);

/// The world the moves read, shared with the pool's threads for one step.
struct WorldRef(*const rapier3d::pipeline::PhysicsWorld);
// SAFETY: the world is only read through it, and `Moves::compute` keeps it alive and unchanged while any claimed chunk is computed.
unsafe impl Send for WorldRef {}
unsafe impl Sync for WorldRef {}

/// One step's moves, computed in chunks by whichever threads claim them: the stepping thread
/// and any of the pool's that start in time. A chunk is only computed after it is claimed, and
/// the stepping thread waits only for chunks that were claimed, never for a pool thread to
/// start: one that starts late (its core busy elsewhere) finds every chunk taken and leaves
/// without touching the world. So the moves take no longer than on the stepping thread alone.
struct Moves {
  world: WorldRef,
  dt: f32,
  inputs: Vec<MoveInput>,
  next: AtomicUsize,
  results: Vec<Mutex<Vec<Move>>>,
  /// Chunks computed so far, and the stepping thread waiting for the last of them.
  done: Mutex<usize>,
  finished: Condvar,
}

impl Moves {
  /// Every input's move, in input order; the same bits on any number of threads.
  fn compute(world: &rapier3d::pipeline::PhysicsWorld, dt: f32, inputs: Vec<MoveInput>) -> Vec<Move> {
    let chunks = inputs.len().div_ceil(MOVE_CHUNK);
    let moves = Arc::new(Moves { world: WorldRef(world), dt, inputs, next: AtomicUsize::new(0), results: (0..chunks).map(|_| Mutex::new(Vec::new())).collect(), done: Mutex::new(0), finished: Condvar::new() });
    if chunks > 1 {
      for _ in 1..rayon::current_num_threads() {
        let helper = Arc::clone(&moves);
        rayon::spawn(move || helper.work());
      }
    }
    let own = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| moves.work()));
    // No chunk is claimed from here on (even if this thread's move panicked): wait for the ones helpers are computing.
    let claimed = moves.next.swap(chunks, Ordering::Relaxed).min(chunks);
    let abandoned = usize::from(own.is_err());
    let mut done = moves.done.lock().expect("moves lock");
    while *done + abandoned < claimed {
      done = moves.finished.wait(done).expect("moves lock");
    }
    drop(done);
    if let Err(panic) = own {
      std::panic::resume_unwind(panic);
    }
    moves.results.iter().flat_map(|r| std::mem::take(&mut *r.lock().expect("moves lock"))).collect()
  }

  /// Claims chunks and computes them until none is left.
  fn work(&self) {
    let chunks = self.results.len();
    loop {
      let c = self.next.fetch_add(1, Ordering::Relaxed);
      if c >= chunks {
        return;
      }
      // SAFETY: chunk c is claimed and not yet counted done, so the stepping thread is still
      // inside `compute` (which waits for every claimed chunk, even when unwinding), holding the
      // world borrowed.
      let world = unsafe { &*self.world.0 };
      let out: Vec<Move> = self.inputs[c * MOVE_CHUNK..((c + 1) * MOVE_CHUNK).min(self.inputs.len())].iter().map(|m| Self::one(world, self.dt, m)).collect();
      *self.results[c].lock().expect("moves lock") = out;
      *self.done.lock().expect("moves lock") += 1;
      self.finished.notify_all();
    }
  }

  fn one(world: &rapier3d::pipeline::PhysicsWorld, dt: f32, m: &MoveInput) -> Move {
    let pose: Pose = *world.bodies[m.body].position();
    let shape = world.colliders[m.collider].shape();
    let queries = world.query_pipeline_with_filter(QueryFilter::default().exclude_rigid_body(m.body).exclude_sensors());
    // Rising, it must not be snapped back down to the ground it left.
    let controller = if m.rising { KinematicCharacterController { snap_to_ground: None, ..m.controller } } else { m.controller };
    let mut hits = Vec::new();
    let effective = controller.move_shape(dt, &queries, shape, &pose, m.desired, |c| hits.push(c));
    (effective, hits)
  }
}

/// Floats per character that [`PhysicsWorld::characters_motion`] writes.
pub const MOTION_FLOATS: usize = 4;

/// A character's state, for its skills and its animation.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CharacterState {
  /// Feet position.
  pub position: [f32; 3],
  /// Velocity achieved over the last step.
  pub velocity: [f32; 3],
  pub grounded: bool,
  pub sliding: bool,
  pub facing: [f32; 2],
}

/// The gap the controller keeps between a character and what it touches:
/// its capsule floats this far above the ground, and its feet are reported
/// this far below the capsule.
const SKIN: f32 = 0.02;

/// Radians in degrees' clothing: the controller takes an angle; this keeps
/// the conversion in one place.
fn radians(deg: f32) -> f32 {
  deg * (std::f32::consts::PI / 180.0)
}

/// The rotation about y that turns +z to `facing` (x, z), from half-angle
/// identities: only square roots, so the bits are the same everywhere.
pub fn yaw_quat(facing: [f32; 2]) -> [f32; 4] {
  let (fx, fz) = (facing[0], facing[1]);
  let c = ((1.0 + fz) * 0.5).max(0.0).sqrt();
  let s = ((1.0 - fz) * 0.5).max(0.0).sqrt();
  let s = if fx < 0.0 { -s } else { s };
  [0.0, s, 0.0, c]
}

impl CharacterDesc {
  fn validate(&self) -> Result<(), OpError> {
    let check = |name: &str, v: f32, lo: f32, hi: f32| -> Result<(), OpError> {
      if v.is_finite() && v >= lo && v <= hi {
        Ok(())
      } else {
        Err(OpError::invalid_input(format!("character {name} must be in [{lo}, {hi}], got {v}")))
      }
    };
    if !self.position.iter().all(|c| c.is_finite() && c.abs() <= 1e5) {
      return Err(OpError::invalid_input(format!("character position must be finite and within ±1e5 m, got {:?}", self.position)));
    }
    check("radius", self.radius, 0.05, 5.0)?;
    check("height", self.height, 2.0 * self.radius, 20.0)?;
    check("maxSlope", self.max_slope, 0.0, 89.0)?;
    check("stepHeight", self.step_height, 0.0, self.height)?;
    check("snapDistance", self.snap_distance, 0.0, 5.0)?;
    check("mass", self.mass, 0.1, 1e5)
  }
}

impl PhysicsWorld {
  /// Creates a character: a kinematic upright capsule and its controller.
  pub fn create_character(&mut self, desc: &CharacterDesc) -> Result<u32, OpError> {
    desc.validate()?;
    let half_height = (desc.height * 0.5 - desc.radius).max(0.0);
    // Spawned clear of the ground by the controller's own gap: a capsule that starts touching it sticks.
    let center = [desc.position[0], desc.position[1] + desc.height * 0.5 + SKIN, desc.position[2]];
    let handle = self.create_body(&crate::world::BodyDesc {
      kind: BodyKind::Kinematic,
      shape: Some(if half_height > 0.0 {
        crate::shapes::Shape::Capsule { half_height, radius: desc.radius }
      } else {
        crate::shapes::Shape::Sphere { radius: desc.radius }
      }),
      colliders: Vec::new(),
      position: center,
      rotation: [0.0, 0.0, 0.0, 1.0],
      friction: 0.0,
      restitution: 0.0,
      density: 1.0,
      linear_damping: 0.0,
      angular_damping: 0.0,
      ccd: false,
      sensor: false,
      groups: crate::shapes::Groups::default(),
      eid: desc.eid,
    })?;
    let controller = KinematicCharacterController {
      up: Vector::Y,
      offset: CharacterLength::Absolute(SKIN),
      slide: true,
      autostep: (desc.step_height > 0.0).then_some(CharacterAutostep {
        max_height: CharacterLength::Absolute(desc.step_height),
        min_width: CharacterLength::Absolute(desc.radius * 0.5),
        include_dynamic_bodies: false,
      }),
      max_slope_climb_angle: radians(desc.max_slope),
      min_slope_slide_angle: radians(desc.max_slope),
      snap_to_ground: (desc.snap_distance > 0.0).then_some(CharacterLength::Absolute(desc.snap_distance)),
      ..KinematicCharacterController::default()
    };
    self.characters.insert(
      handle,
      Character {
        controller,
        radius: desc.radius,
        half_height,
        mass: desc.mass,
        wanted: [0.0, 0.0],
        vertical: 0.0,
        jump: None,
        grounded: false,
        sliding: false,
        facing: [0.0, 1.0],
        moved: [0.0; 3],
      },
    );
    Ok(handle)
  }

  fn character_mut(&mut self, handle: u32) -> Result<&mut Character, OpError> {
    if !self.bodies.contains_key(&handle) {
      self.characters.remove(&handle);
    }
    self.characters.get_mut(&handle).ok_or_else(|| OpError::not_found(format!("physics body {handle} is no character (never created, destroyed, or an ordinary body)")))
  }

  /// The horizontal velocity (x, z) the character walks at from the next step on.
  pub fn set_character_velocity(&mut self, handle: u32, v: [f32; 2]) -> Result<(), OpError> {
    if !v.iter().all(|c| c.is_finite() && c.abs() <= 1e3) {
      return Err(OpError::invalid_input(format!("character velocity must be finite and at most 1000 m/s, got {v:?}")));
    }
    self.character_mut(handle)?.wanted = v;
    Ok(())
  }

  /// Turns the character to face direction (x, z); a zero direction changes nothing.
  pub fn set_character_facing(&mut self, handle: u32, d: [f32; 2]) -> Result<(), OpError> {
    if !d.iter().all(|c| c.is_finite()) {
      return Err(OpError::invalid_input(format!("facing must be finite, got {d:?}")));
    }
    let ch = self.character_mut(handle)?;
    let l = (d[0] * d[0] + d[1] * d[1]).sqrt();
    if l > 1e-6 {
      ch.facing = [d[0] / l, d[1] / l];
    }
    Ok(())
  }

  /// Makes the character jump at `speed` (m/s up) at the next step, if it stands on the ground; returns whether it will.
  pub fn jump_character(&mut self, handle: u32, speed: f32) -> Result<bool, OpError> {
    if !(speed.is_finite() && speed > 0.0 && speed <= 50.0) {
      return Err(OpError::invalid_input(format!("jump speed must be in (0, 50] m/s, got {speed}")));
    }
    let ch = self.character_mut(handle)?;
    if !ch.grounded {
      return Ok(false);
    }
    ch.jump = Some(speed);
    Ok(true)
  }

  pub fn character_state(&mut self, handle: u32) -> Result<CharacterState, OpError> {
    let ch = self.character_mut(handle)?.clone();
    let body = self.bodies[&handle].body;
    let t = self.rapier.bodies[body].translation();
    Ok(CharacterState {
      position: [t.x, t.y - ch.half_height - ch.radius - SKIN, t.z],
      velocity: ch.moved,
      grounded: ch.grounded,
      sliding: ch.sliding,
      facing: ch.facing,
    })
  }

  /// Whether `handle` is a live character.
  pub fn is_character(&self, handle: u32) -> bool {
    self.characters.contains_key(&handle) && self.bodies.contains_key(&handle)
  }

  /// Feet position of a character (where its body stands now).
  pub fn character_feet(&self, handle: u32) -> Option<[f32; 3]> {
    let ch = self.characters.get(&handle)?;
    let body = self.bodies.get(&handle)?.body;
    let t = self.rapier.bodies.get(body)?.translation();
    Some([t.x, t.y - ch.half_height - ch.radius - SKIN, t.z])
  }

  /// Moves every character one step of `dt`, pushing what it walks into, and
  /// writes each one's feet and facing into the SoA columns at its eid. Call
  /// before `step`, which carries the bodies there. The moves are computed
  /// on this thread and whichever of the rayon pool's start in time (see
  /// [`Moves`]): each reads only colliders'
  /// poses, which nothing changes until `step` (a move sets a kinematic
  /// body's next pose, an impulse a dynamic body's velocity); then they are
  /// applied and their pushes solved one by one in handle order, so the bits
  /// are the same on any number of threads.
  pub fn step_characters(&mut self, dt: f32, cols: TransformColumns<'_>) -> Result<u32, OpError> {
    if !(dt.is_finite() && dt > 0.0 && dt <= 1.0) {
      return Err(OpError::invalid_input(format!("character dt must be in (0, 1] seconds, got {dt}")));
    }
    self.characters.retain(|h, _| self.bodies.contains_key(h));
    let gravity = self.rapier.gravity.y;
    // What each character wants this step, in handle order.
    let plans: Vec<Plan> = self
      .characters
      .iter()
      .map(|(&handle, ch)| {
        let entry = &self.bodies[&handle];
        // A character's body is its one capsule.
        let mut ch = ch.clone();
        // On the ground it only walks (snapping down slopes and small drops); in the air gravity pulls.
        if let Some(speed) = ch.jump.take() {
          ch.vertical = speed;
          ch.grounded = false;
        } else if ch.grounded {
          ch.vertical = 0.0;
        } else {
          ch.vertical += gravity * dt;
        }
        Plan { handle, body: entry.body, collider: entry.colliders[0], eid: entry.eid, ch }
      })
      .collect();
    // A dynamic body is all that the pushes below act on; without one they change nothing.
    let pushable = self.rapier.bodies.iter().any(|(_, b)| b.is_dynamic());
    let moves = Moves::compute(&self.rapier, dt, plans.iter().map(|p| MoveInput { body: p.body, collider: p.collider, desired: Vector::new(p.ch.wanted[0] * dt, p.ch.vertical * dt, p.ch.wanted[1] * dt), rising: p.ch.vertical > 0.0, controller: p.ch.controller }).collect());
    let mut moved = 0;
    for (Plan { handle, body, collider, eid, mut ch }, (effective, hits)) in plans.into_iter().zip(moves) {
      let desired_y = ch.vertical * dt;
      let rising = ch.vertical > 0.0;
      let pose: Pose = *self.rapier.bodies[body].position();
      let t = effective.translation;
      ch.grounded = effective.grounded && !rising;
      ch.sliding = effective.is_sliding_down_slope;
      // Landing, or a head hitting a ceiling, ends the vertical motion.
      if (ch.grounded && ch.vertical < 0.0) || (ch.vertical > 0.0 && t.y < desired_y * 0.5) {
        ch.vertical = 0.0;
      }
      ch.moved = [t.x / dt, t.y / dt, t.z / dt];
      let hx = ch.wanted[0];
      let hz = ch.wanted[1];
      let l = (hx * hx + hz * hz).sqrt();
      if l > 1e-3 {
        ch.facing = [hx / l, hz / l];
      }
      let next = Pose::from_translation(pose.translation + t);
      self.rapier.bodies[body].set_next_kinematic_position(next);
      if pushable && !hits.is_empty() {
        let shape = self.rapier.colliders[collider].shared_shape().clone();
        let filter = QueryFilter::default().exclude_rigid_body(body).exclude_sensors();
        let dispatcher = self.rapier.narrow_phase.query_dispatcher();
        let mut queries = self.rapier.broad_phase.as_query_pipeline_mut(dispatcher, &mut self.rapier.bodies, &mut self.rapier.colliders, filter);
        ch.controller.solve_character_collision_impulses(dt, &mut queries, shape.as_ref(), ch.mass, &hits);
      }
      if let Some(eid) = eid {
        let i = eid as usize;
        if i < cols.px.len().min(cols.rw.len()) {
          let c = next.translation;
          let q = yaw_quat(ch.facing);
          cols.px[i] = c.x;
          cols.py[i] = c.y - ch.half_height - ch.radius - SKIN;
          cols.pz[i] = c.z;
          cols.rx[i] = q[0];
          cols.ry[i] = q[1];
          cols.rz[i] = q[2];
          cols.rw[i] = q[3];
        }
      }
      self.characters.insert(handle, ch);
      moved += 1;
    }
    Ok(moved)
  }

  /// Each of `handles`' motion over the last step into `out`, MOTION_FLOATS
  /// per character: velocity x, y, z and 1 if grounded (else 0); a handle
  /// that is no live character gets NaN velocity. What every character's
  /// animation takes each step, in one call.
  pub fn characters_motion(&self, handles: &[u32], out: &mut [f32]) -> Result<(), OpError> {
    if out.len() < handles.len() * MOTION_FLOATS {
      return Err(OpError::invalid_input(format!("motion output holds {} floats, {} characters need {}", out.len(), handles.len(), handles.len() * MOTION_FLOATS)));
    }
    for (h, o) in handles.iter().zip(out.chunks_exact_mut(MOTION_FLOATS)) {
      match self.characters.get(h).filter(|_| self.bodies.contains_key(h)) {
        Some(ch) => o.copy_from_slice(&[ch.moved[0], ch.moved[1], ch.moved[2], if ch.grounded { 1.0 } else { 0.0 }]),
        None => o.copy_from_slice(&[f32::NAN, f32::NAN, f32::NAN, 0.0]),
      }
    }
    Ok(())
  }

  /// Every character's controller and state, for a world snapshot (the bodies travel in the physics snapshot).
  pub fn characters_snapshot(&self) -> Result<Vec<u8>, OpError> {
    let live: BTreeMap<&u32, &Character> = self.characters.iter().filter(|(h, _)| self.bodies.contains_key(h)).collect();
    bincode::serialize(&live).map_err(|e| OpError::internal(format!("cannot serialise the characters: {e}")))
  }

  /// Puts back what [`Self::characters_snapshot`] saved; every character's body must exist.
  pub fn restore_characters(&mut self, bytes: &[u8]) -> Result<(), OpError> {
    let saved: BTreeMap<u32, Character> = bincode::deserialize(bytes).map_err(|e| OpError::invalid_input(format!("not a characters snapshot: {e}")))?;
    if let Some(h) = saved.keys().find(|h| self.bodies.get(h).is_none_or(|e| e.kind != BodyKind::Kinematic)) {
      return Err(OpError::invalid_input(format!("characters snapshot names body {h}, which is no kinematic body of this world")));
    }
    self.characters = saved;
    Ok(())
  }

  /// Characters' state for the world digest, in handle order.
  pub fn characters_digest_bytes(&self) -> Vec<u8> {
    let mut out = Vec::new();
    for (h, ch) in self.characters.iter().filter(|(h, _)| self.bodies.contains_key(h)) {
      out.extend(h.to_le_bytes());
      for v in [ch.wanted[0], ch.wanted[1], ch.vertical, ch.facing[0], ch.facing[1], ch.moved[0], ch.moved[1], ch.moved[2]] {
        out.extend(v.to_bits().to_le_bytes());
      }
      out.push(ch.grounded as u8);
    }
    out
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::shapes::{Groups, Shape};
  use crate::world::BodyDesc;

  fn solid(w: &mut PhysicsWorld, half: [f32; 3], position: [f32; 3], rotation: [f32; 4]) -> u32 {
    w.create_body(&BodyDesc {
      kind: BodyKind::Static,
      shape: Some(Shape::Box { half_extents: half }),
      colliders: Vec::new(),
      position,
      rotation,
      friction: 0.5,
      restitution: 0.0,
      density: 1.0,
      linear_damping: 0.0,
      angular_damping: 0.0,
      ccd: false,
      sensor: false,
      groups: Groups::default(),
      eid: None,
    })
    .unwrap()
  }

  fn character(w: &mut PhysicsWorld, at: [f32; 3]) -> u32 {
    let desc: CharacterDesc = serde_json::from_value(serde_json::json!({ "position": at, "eid": 1 })).unwrap();
    w.create_character(&desc).unwrap()
  }

  struct Soa([Vec<f32>; 7]);
  impl Soa {
    fn new() -> Self {
      Soa(std::array::from_fn(|_| vec![0.0; 4]))
    }
  }

  fn run(w: &mut PhysicsWorld, soa: &mut Soa, steps: usize) {
    for _ in 0..steps {
      let [px, py, pz, rx, ry, rz, rw] = &mut soa.0;
      w.step_characters(1.0 / 60.0, TransformColumns { px, py, pz, rx, ry, rz, rw }).unwrap();
      w.step(1.0 / 60.0).unwrap();
    }
  }

  fn floor(w: &mut PhysicsWorld) {
    solid(w, [50.0, 0.5, 50.0], [0.0, -0.5, 0.0], [0.0, 0.0, 0.0, 1.0]);
  }

  #[test]
  fn falls_lands_and_walks_at_the_speed_asked() {
    let mut w = PhysicsWorld::new();
    floor(&mut w);
    let c = character(&mut w, [0.0, 2.0, 0.0]);
    let mut soa = Soa::new();
    run(&mut w, &mut soa, 90);
    let s = w.character_state(c).unwrap();
    assert!(s.grounded, "landed: {s:?}");
    assert!(s.position[1].abs() < 0.05, "feet on the floor: {s:?}");
    assert!((soa.0[1][1] - s.position[1]).abs() < 1e-5, "the SoA holds the feet");
    w.set_character_velocity(c, [2.0, 0.0]).unwrap();
    run(&mut w, &mut soa, 60);
    let s = w.character_state(c).unwrap();
    assert!((s.position[0] - 2.0).abs() < 0.1, "a second at 2 m/s: {s:?}");
    assert!((s.velocity[0] - 2.0).abs() < 0.05 && s.grounded);
    assert!((s.facing[0] - 1.0).abs() < 1e-6, "turned to face where it walks");
    let q = yaw_quat(s.facing);
    assert!((q[1] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6 && (q[3] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
  }

  #[test]
  fn walls_stop_it_steps_are_climbed_and_steep_slopes_are_not() {
    let mut w = PhysicsWorld::new();
    floor(&mut w);
    // A wall across +x at x = 3, a 0.25 m step across -x at x = -3, a 60° ramp along +z.
    solid(&mut w, [0.2, 2.0, 5.0], [3.2, 2.0, 0.0], [0.0, 0.0, 0.0, 1.0]);
    solid(&mut w, [2.0, 0.125, 5.0], [-5.0, 0.125, 0.0], [0.0, 0.0, 0.0, 1.0]);
    let s60 = (30.0f32 * std::f32::consts::PI / 180.0).sin();
    let c60 = (30.0f32 * std::f32::consts::PI / 180.0).cos();
    solid(&mut w, [3.0, 0.1, 4.0], [0.0, 0.0, 6.0], [-s60, 0.0, 0.0, c60]);
    let mut soa = Soa::new();
    let wall = character(&mut w, [0.0, 0.0, 0.0]);
    run(&mut w, &mut soa, 30);
    w.set_character_velocity(wall, [3.0, 0.0]).unwrap();
    run(&mut w, &mut soa, 120);
    let s = w.character_state(wall).unwrap();
    assert!(s.position[0] < 3.0 - 0.3 + 0.05 && s.position[0] > 2.5, "stopped by the wall: {s:?}");
    w.set_character_velocity(wall, [-3.0, 0.0]).unwrap();
    run(&mut w, &mut soa, 180);
    let s = w.character_state(wall).unwrap();
    assert!(s.position[0] < -3.5 && (s.position[1] - 0.25).abs() < 0.06, "up the step: {s:?}");
    w.set_character_velocity(wall, [0.0, 0.0]).unwrap();
    let ramp = character(&mut w, [0.0, 0.0, 2.5]);
    run(&mut w, &mut soa, 30);
    w.set_character_velocity(ramp, [0.0, 2.0]).unwrap();
    run(&mut w, &mut soa, 180);
    let s = w.character_state(ramp).unwrap();
    assert!(s.position[1] < 0.6, "a 60° slope is too steep to walk up: {s:?}");
  }

  #[test]
  fn jumps_only_from_the_ground_and_pushes_a_box() {
    let mut w = PhysicsWorld::new();
    floor(&mut w);
    let c = character(&mut w, [0.0, 0.0, 0.0]);
    let mut soa = Soa::new();
    run(&mut w, &mut soa, 20);
    assert!(w.jump_character(c, 5.0).unwrap());
    run(&mut w, &mut soa, 15);
    let up = w.character_state(c).unwrap();
    assert!(up.position[1] > 0.5 && !up.grounded, "in the air: {up:?}");
    assert!(!w.jump_character(c, 5.0).unwrap(), "no jumping in mid-air");
    run(&mut w, &mut soa, 90);
    assert!(w.character_state(c).unwrap().grounded, "landed again");
    let crate_ = w
      .create_body(&BodyDesc {
        kind: BodyKind::Dynamic,
        shape: Some(Shape::Box { half_extents: [0.3, 0.3, 0.3] }),
        colliders: Vec::new(),
        position: [1.5, 0.3, 0.0],
        rotation: [0.0, 0.0, 0.0, 1.0],
        friction: 0.2,
        restitution: 0.0,
        density: 20.0,
        linear_damping: 0.0,
        angular_damping: 0.0,
        ccd: false,
        sensor: false,
        groups: Groups::default(),
        eid: Some(2),
      })
      .unwrap();
    w.set_character_velocity(c, [1.5, 0.0]).unwrap();
    run(&mut w, &mut soa, 120);
    let b = w.body_state(crate_).unwrap();
    assert!(b.position[0] > 2.0, "the box was pushed along: {b:?}");
    assert!(w.set_character_velocity(crate_, [1.0, 0.0]).is_err(), "an ordinary body is no character");
  }

  /// Characters walking into one another and into a box they push, one jumping; the world's and the characters' digest bytes after.
  fn jostle() -> (Vec<u8>, Vec<u8>) {
    let mut w = PhysicsWorld::new();
    floor(&mut w);
    let handles: Vec<u32> = (0..12).map(|i| character(&mut w, [(i % 4) as f32 * 0.7, 0.0, (i / 4) as f32 * 0.7])).collect();
    let mut soa = Soa::new();
    run(&mut w, &mut soa, 10);
    for (i, &h) in handles.iter().enumerate() {
      w.set_character_velocity(h, [1.5 - (i % 4) as f32, 1.0 - (i / 4) as f32]).unwrap();
    }
    w.jump_character(handles[5], 4.0).unwrap();
    run(&mut w, &mut soa, 90);
    let mut motion = vec![0.0; handles.len() * MOTION_FLOATS];
    w.characters_motion(&handles, &mut motion).unwrap();
    for (k, &h) in handles.iter().enumerate() {
      let s = w.character_state(h).unwrap();
      assert_eq!(&motion[k * MOTION_FLOATS..(k + 1) * MOTION_FLOATS], &[s.velocity[0], s.velocity[1], s.velocity[2], if s.grounded { 1.0 } else { 0.0 }]);
    }
    (w.digest_bytes(), w.characters_digest_bytes())
  }

  #[test]
  fn moves_are_the_same_bits_on_one_thread_or_many_and_motion_reads_every_state() {
    let run_on = |threads: usize| rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(jostle);
    assert_eq!(run_on(1), run_on(4));
    let w = PhysicsWorld::new();
    let mut out = [0.0; MOTION_FLOATS];
    w.characters_motion(&[7], &mut out).unwrap();
    assert!(out[0].is_nan() && out[3] == 0.0, "no character 7: {out:?}");
    assert!(w.characters_motion(&[7, 8], &mut out).is_err(), "too small an output is refused");
  }

  #[test]
  fn moves_never_wait_for_a_pool_thread_that_has_not_started() {
    // Every thread of the global pool held busy while characters step from outside it (as the
    // host's loop thread does): the stepping thread computes every move itself and goes on,
    // with the same bits as when the pool is free.
    let threads = rayon::current_num_threads();
    let started = Arc::new(std::sync::Barrier::new(threads + 1));
    let gate = Arc::new((Mutex::new(false), Condvar::new()));
    for _ in 0..threads {
      let (started, gate) = (Arc::clone(&started), Arc::clone(&gate));
      rayon::spawn(move || {
        started.wait();
        let mut open = gate.0.lock().unwrap();
        while !*open {
          open = gate.1.wait(open).unwrap();
        }
      });
    }
    started.wait();
    let held = jostle();
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
    assert_eq!(held, jostle());
  }

  #[test]
  fn snapshots_carry_the_controllers_and_replay_bit_for_bit() {
    let mut a = PhysicsWorld::new();
    floor(&mut a);
    let c = character(&mut a, [0.0, 1.0, 0.0]);
    let mut soa = Soa::new();
    run(&mut a, &mut soa, 30);
    a.set_character_velocity(c, [1.0, 0.5]).unwrap();
    run(&mut a, &mut soa, 10);
    let mut b = PhysicsWorld::restore(&a.snapshot().unwrap()).unwrap();
    b.restore_characters(&a.characters_snapshot().unwrap()).unwrap();
    let mut soa_b = Soa::new();
    for _ in 0..60 {
      run(&mut a, &mut soa, 1);
      run(&mut b, &mut soa_b, 1);
      assert_eq!(a.digest_bytes(), b.digest_bytes());
      assert_eq!(a.characters_digest_bytes(), b.characters_digest_bytes());
    }
    assert!(b.restore_characters(b"junk").is_err());
  }
}
