//! Navigation against real physics worlds: bakes, paths, rebuilds and crowds.

use limina_physics::{BodyDesc, BodyKind, Groups, PhysicsWorld, Shape, TransformColumns};

use crate::crowd::{AgentDesc, CrowdEvent};
use crate::math::V3;
use crate::params::{AreaVolume, NavParams, OffMeshLink};
use crate::world::NavWorld;

fn static_box(w: &mut PhysicsWorld, half: V3, at: V3) -> u32 {
  static_body(w, Shape::Box { half_extents: half }, at)
}

/// A static body of `shape` at `at`.
pub(crate) fn static_body(w: &mut PhysicsWorld, shape: Shape, at: V3) -> u32 {
  w.create_body(&BodyDesc {
    kind: BodyKind::Static,
    shape: Some(shape),
    colliders: Vec::new(),
    position: at,
    rotation: [0.0, 0.0, 0.0, 1.0],
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

/// A 40 × 40 m floor whose top is y = 0, and a wall across x = 0 from z = -6 to 6.
fn floor_and_wall() -> PhysicsWorld {
  let mut w = PhysicsWorld::new();
  static_box(&mut w, [20.0, 0.5, 20.0], [0.0, -0.5, 0.0]);
  static_box(&mut w, [0.25, 1.5, 6.0], [0.0, 1.5, 0.0]);
  w.step(1.0 / 60.0).unwrap();
  w
}

fn params() -> NavParams {
  NavParams { tile_size: 32, ..NavParams::default() }
}

/// Whether segment a–b (x, z) crosses the box [min, max] (x, z).
fn crosses(a: V3, b: V3, min: [f32; 2], max: [f32; 2]) -> bool {
  (0..=200).any(|k| {
    let t = k as f32 / 200.0;
    let (x, z) = (a[0] + (b[0] - a[0]) * t, a[2] + (b[2] - a[2]) * t);
    x > min[0] && x < max[0] && z > min[1] && z < max[1]
  })
}

#[test]
fn a_path_goes_around_a_wall() {
  let w = floor_and_wall();
  let mut nav = NavWorld::default();
  let mesh = nav.build(&w, params()).unwrap();
  assert!(mesh.counts().0 > 4, "polygons: {:?}", mesh.counts());
  let (from, to) = ([-5.0, 0.0, 0.0], [5.0, 0.0, 0.0]);
  let path = nav.find_path(from, to).unwrap().unwrap();
  assert!(path.found);
  assert!(path.points.len() >= 4, "it bends round both ends of the wall's side: {:?}", path.points);
  assert!((path.points[0][0] - from[0]).abs() < 1e-3 && (path.points.last().unwrap()[0] - to[0]).abs() < 1e-3);
  let straight = 10.0;
  assert!(path.length() > straight + 2.0, "longer than the straight line: {}", path.length());
  for seg in path.points.windows(2) {
    assert!(!crosses(seg[0], seg[1], [-0.25, -6.0], [0.25, 6.0]), "segment {seg:?} crosses the wall");
    // Agents keep their radius from the wall.
    assert!(!crosses(seg[0], seg[1], [-0.25 - 0.35, -6.0 - 0.35], [0.25 + 0.35, 6.0 + 0.35]), "segment {seg:?} brushes the wall");
  }
  for p in &path.points {
    assert!(p[1].abs() < 1e-3, "on the floor: {p:?}");
  }
  // Near-optimal: round the end of the wall (kept 0.5 m off it), not far out.
  assert!(path.length() < 2.0 * (4.25f32 * 4.25 + 6.75 * 6.75).sqrt() + 1.5 + 0.5, "{}", path.length());
  assert_eq!(nav.reachable(from, to).unwrap(), Some(true));
  // Inside the wall or far off the floor there is no mesh.
  assert_eq!(nav.find_path([0.0, 3.0, 0.0], to).unwrap(), None);
  assert_eq!(nav.find_path([100.0, 0.0, 0.0], to).unwrap(), None);
}

#[test]
fn bakes_are_deterministic_and_a_local_rebuild_equals_a_fresh_bake() {
  let mut w = floor_and_wall();
  let mut a = NavWorld::default();
  a.build(&w, params()).unwrap();
  let mut b = NavWorld::default();
  b.build(&w, params()).unwrap();
  assert_eq!(a.digest_bytes(), b.digest_bytes());
  let before = a.mesh().unwrap().counts();
  // A pillar appears: only the tiles under it are rebuilt.
  let pillar = static_box(&mut w, [1.0, 1.0, 1.0], [6.0, 1.0, 6.0]);
  w.step(1.0 / 60.0).unwrap();
  let rebuilt = a.refresh(&w);
  assert!(rebuilt >= 1 && (rebuilt as usize) < a.mesh().unwrap().tiles.len(), "{rebuilt} tiles rebuilt");
  assert_eq!(a.refresh(&w), 0, "nothing changed since");
  let mut fresh = NavWorld::default();
  fresh.build(&w, params()).unwrap();
  assert_eq!(a.mesh().unwrap().tiles, fresh.mesh().unwrap().tiles, "the rebuilt tiles are what a whole bake gives");
  assert_ne!(a.mesh().unwrap().counts(), before);
  // And it goes away again.
  w.destroy_body(pillar).unwrap();
  w.step(1.0 / 60.0).unwrap();
  assert!(a.refresh(&w) >= 1);
  assert_eq!(a.mesh().unwrap().tiles, b.mesh().unwrap().tiles);
}

#[test]
fn area_costs_steer_paths_and_blocked_areas_are_never_entered() {
  let mut w = PhysicsWorld::new();
  static_box(&mut w, [20.0, 0.5, 20.0], [0.0, -0.5, 0.0]);
  w.step(1.0 / 60.0).unwrap();
  // Mud across the direct line: 10× the cost, 4 m deep, 12 m wide.
  let mud = AreaVolume { min: [-2.0, -1.0, -6.0], max: [2.0, 1.0, 6.0], cost: Some(10.0) };
  let mut nav = NavWorld::default();
  nav.build(&w, NavParams { areas: vec![mud], ..params() }).unwrap();
  let path = nav.find_path([-8.0, 0.0, 0.0], [8.0, 0.0, 0.0]).unwrap().unwrap();
  assert!(path.found);
  assert!(path.points.iter().any(|p| p[2].abs() > 5.5), "it walks round the mud: {:?}", path.points);
  // Blocked: a wall of forbidden floor from z = -30 to 30 splits the world.
  let gate = AreaVolume { min: [-1.0, -1.0, -30.0], max: [1.0, 1.0, 30.0], cost: None };
  nav.build(&w, NavParams { areas: vec![gate], ..params() }).unwrap();
  let path = nav.find_path([-8.0, 0.0, 0.0], [8.0, 0.0, 0.0]).unwrap().unwrap();
  assert!(!path.found, "no way across a blocked strip");
  assert!(path.points.last().unwrap()[0] < -1.0, "the partial path stops before it: {:?}", path.points);
  assert_eq!(nav.reachable([-8.0, 0.0, 0.0], [8.0, 0.0, 0.0]).unwrap(), Some(false));
}

#[test]
fn off_mesh_links_join_what_the_floor_does_not() {
  let mut w = PhysicsWorld::new();
  // Two platforms 3 m apart with a drop between them.
  static_box(&mut w, [5.0, 0.5, 5.0], [-7.0, -0.5, 0.0]);
  static_box(&mut w, [5.0, 0.5, 5.0], [7.0, -0.5, 0.0]);
  w.step(1.0 / 60.0).unwrap();
  let mut nav = NavWorld::default();
  nav.build(&w, params()).unwrap();
  assert_eq!(nav.reachable([-6.0, 0.0, 0.0], [6.0, 0.0, 0.0]).unwrap(), Some(false));
  let link = OffMeshLink { from: [-2.3, 0.0, 0.0], to: [2.3, 0.0, 0.0], bidirectional: false, cost: None };
  nav.build(&w, NavParams { links: vec![link], ..params() }).unwrap();
  let path = nav.find_path([-6.0, 0.0, 1.0], [6.0, 0.0, -1.0]).unwrap().unwrap();
  assert!(path.found, "{path:?}");
  assert!(path.points.iter().any(|p| (p[0] + 2.3).abs() < 0.3) && path.points.iter().any(|p| (p[0] - 2.3).abs() < 0.3), "through the link: {:?}", path.points);
  assert_eq!(nav.reachable([6.0, 0.0, 0.0], [-6.0, 0.0, 0.0]).unwrap(), Some(false), "a one-way link");
  // A crowd agent takes it.
  let mut soa = Soa::new(8);
  let id = nav.crowd.add(AgentDesc { eid: Some(1), ..agent([-6.0, 0.0, 1.0]) }).unwrap();
  nav.crowd.set_target(nav.mesh.as_ref().unwrap(), id, [6.0, 0.0, -1.0], None).unwrap();
  let mut phys = w;
  let events = run(&mut nav, &mut phys, &mut soa, 600);
  assert!(events.iter().any(|e| matches!(e, CrowdEvent::Arrived { agent, .. } if *agent == id)), "{events:?}");
  assert!((soa.cols[0][1] - 6.0).abs() < 0.3 && (soa.cols[2][1] + 1.0).abs() < 0.3);
}

#[test]
fn a_heightfield_terrain_is_walked_over_and_its_cliffs_are_not() {
  use limina_physics::rapier3d::math::Vector;
  use limina_physics::rapier3d::parry::shape::HeightField;
  use limina_physics::rapier3d::parry::utils::Array2;
  // 41 × 41 heights over 40 m: a gentle hill in the west, a 4 m cliff step at x = 10.
  let heights = Array2::from_fn(41, 41, |i, j| {
    let (x, z) = (j as f32 - 20.0, i as f32 - 20.0);
    let hill = 2.0 - ((x + 8.0) * (x + 8.0) + z * z) / 32.0;
    hill.max(0.0) + if x >= 10.0 { 4.0 } else { 0.0 }
  });
  let field = HeightField::new(heights, Vector::new(40.0, 1.0, 40.0));
  let pose = crate::geometry::PoseF { rotation: [0.0, 0.0, 0.0, 1.0], translation: [0.0; 3] };
  let source = crate::geometry::Source {
    key: 1,
    min: [-20.0, 0.0, -20.0],
    max: [20.0, 6.0, 20.0],
    fingerprint: 1,
    shape: crate::geometry::SourceShape::HeightField { field: &field, pose, bottom: 0.0 },
  };
  let mesh = crate::navmesh::NavMesh::bake_from(&[source], params()).unwrap();
  let mut nav = NavWorld { mesh: Some(mesh), ..NavWorld::default() };
  let over = nav.find_path([-14.0, 0.0, 0.0], [-2.0, 0.0, 0.0]).unwrap().unwrap();
  assert!(over.found);
  let crest = nav.locate([-8.0, 2.0, 0.0]).unwrap().unwrap();
  assert!((crest.point[1] - 2.0).abs() < 0.15, "the hill's top is 2 m up: {:?}", crest.point);
  assert_eq!(nav.reachable([0.0, 0.0, 0.0], [15.0, 4.0, 0.0]).unwrap(), Some(false), "a 4 m cliff is no step");
  assert_eq!(nav.reachable([12.0, 4.0, -5.0], [15.0, 4.0, 5.0]).unwrap(), Some(true), "but the plateau is walkable");
}

fn agent(at: V3) -> AgentDesc {
  AgentDesc { position: at, radius: 0.35, max_speed: 2.0, max_accel: 10.0, arrive_distance: 0.2, character: None, eid: None }
}

struct Soa {
  cols: [Vec<f32>; 7],
}

impl Soa {
  fn new(n: usize) -> Self {
    Soa { cols: std::array::from_fn(|_| vec![0.0; n]) }
  }
}

fn run(nav: &mut NavWorld, w: &mut PhysicsWorld, soa: &mut Soa, steps: usize) -> Vec<CrowdEvent> {
  let mut events = Vec::new();
  for _ in 0..steps {
    nav.refresh(w);
    let [px, py, pz, rx, ry, rz, rw] = &mut soa.cols;
    let mut cols = TransformColumns { px, py, pz, rx, ry, rz, rw };
    nav.crowd.step(nav.mesh.as_ref(), w, 1.0 / 60.0, &mut cols).unwrap();
    {
      let [px, py, pz, rx, ry, rz, rw] = &mut soa.cols;
      w.step_characters(1.0 / 60.0, TransformColumns { px, py, pz, rx, ry, rz, rw }).unwrap();
    }
    w.step(1.0 / 60.0).unwrap();
    events.extend(nav.crowd.drain_events());
  }
  events
}

#[test]
fn a_new_obstacle_reroutes_a_walking_agent() {
  let mut w = PhysicsWorld::new();
  static_box(&mut w, [20.0, 0.5, 20.0], [0.0, -0.5, 0.0]);
  w.step(1.0 / 60.0).unwrap();
  let mut nav = NavWorld::default();
  nav.build(&w, params()).unwrap();
  let mut soa = Soa::new(4);
  let id = nav.crowd.add(AgentDesc { eid: Some(1), ..agent([-8.0, 0.0, 0.0]) }).unwrap();
  nav.crowd.set_target(nav.mesh.as_ref().unwrap(), id, [8.0, 0.0, 0.0], None).unwrap();
  run(&mut nav, &mut w, &mut soa, 60);
  let x = soa.cols[0][1];
  assert!(x > -7.0 && x < -5.0, "walking straight at first: {x}");
  // A wall drops across its way.
  static_box(&mut w, [0.25, 1.5, 5.0], [0.0, 1.5, 0.0]);
  let mut trail = Vec::new();
  let mut arrived = false;
  for _ in 0..900 {
    arrived |= run(&mut nav, &mut w, &mut soa, 1).iter().any(|e| matches!(e, CrowdEvent::Arrived { .. }));
    trail.push([soa.cols[0][1], soa.cols[1][1], soa.cols[2][1]]);
    if arrived {
      break;
    }
  }
  assert!(arrived, "it got there: last {:?}", trail.last());
  for p in &trail {
    assert!(!(p[0].abs() < 0.25 + 0.3 && p[2].abs() < 5.0 + 0.3), "it never walks through the wall: {p:?}");
  }
  assert!(trail.iter().any(|p| p[2].abs() > 5.0), "it went round an end");
  let last = trail.last().unwrap();
  assert!(((last[0] - 8.0).powi(2) + last[2].powi(2)).sqrt() < 0.3);
}

/// 200 agents crossing a plaza to random points for `steps`, optionally restored from a snapshot halfway.
fn crowd_run(steps: usize, restore_at: Option<usize>) -> (Vec<u8>, f32) {
  let mut w = PhysicsWorld::new();
  static_box(&mut w, [25.0, 0.5, 25.0], [0.0, -0.5, 0.0]);
  for k in 0..6 {
    static_box(&mut w, [0.6, 1.0, 0.6], [-12.0 + 5.0 * k as f32, 1.0, (k as f32 * 1.7) % 5.0 - 2.0]);
  }
  w.step(1.0 / 60.0).unwrap();
  let mut nav = NavWorld::default();
  nav.build(&w, params()).unwrap();
  let mut rng = 0x1234_5678u32;
  let mut next = move || {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    (rng as f32 / u32::MAX as f32) * 36.0 - 18.0
  };
  let mut ids = Vec::new();
  for i in 0..200u32 {
    let at = [(i % 20) as f32 * 1.6 - 15.0, 0.0, (i / 20) as f32 * 1.6 - 15.0];
    ids.push(nav.crowd.add(AgentDesc { eid: Some(i + 1), radius: 0.3 + (i % 3) as f32 * 0.05, ..agent(at) }).unwrap());
  }
  let mut soa = Soa::new(256);
  let mut min_ratio = f32::MAX;
  for step in 0..steps {
    if restore_at == Some(step) {
      let bytes = nav.snapshot().unwrap();
      let physics = PhysicsWorld::restore(&w.snapshot().unwrap()).unwrap();
      w = physics;
      nav = NavWorld::restore(&bytes, &w).unwrap();
    }
    if step % 60 == 0 {
      for (k, &id) in ids.iter().enumerate() {
        if k % 3 == (step / 60) % 3 && !nav.crowd.moving(id) {
          let target = [next(), 0.0, next()];
          let _ = nav.crowd.set_target(nav.mesh.as_ref().unwrap(), id, target, None);
        }
      }
    }
    run(&mut nav, &mut w, &mut soa, 1);
    let agents: Vec<_> = nav.crowd.agents.values().map(|a| (a.pos, a.desc.radius)).collect();
    for i in 0..agents.len() {
      for j in i + 1..agents.len() {
        let (a, b) = (agents[i], agents[j]);
        let d = ((a.0[0] - b.0[0]).powi(2) + (a.0[2] - b.0[2]).powi(2)).sqrt();
        min_ratio = min_ratio.min(d / (a.1 + b.1));
      }
    }
  }
  (nav.digest_bytes(), min_ratio)
}

#[test]
fn two_hundred_agents_never_interpenetrate_and_replay_bit_for_bit() {
  let (a, min_ratio) = crowd_run(3000, None);
  assert!(min_ratio >= 0.9, "closest pair at {min_ratio} × the sum of their radii");
  let (b, _) = crowd_run(3000, Some(1500));
  assert_eq!(a, b, "a run restored from a snapshot halfway ends bit for bit where the straight run did");
}

#[test]
fn bad_parameters_and_requests_are_refused() {
  let w = floor_and_wall();
  let mut nav = NavWorld::default();
  assert!(nav.find_path([0.0; 3], [1.0, 0.0, 0.0]).is_err(), "no navmesh yet");
  for bad in [
    NavParams { cell_size: 0.0, ..params() },
    NavParams { agent_radius: f32::NAN, ..params() },
    NavParams { tile_size: 4, ..params() },
    NavParams { areas: vec![AreaVolume { min: [1.0; 3], max: [0.0; 3], cost: Some(1.0) }], ..params() },
    NavParams { cell_size: 0.05, bounds: Some(crate::params::Bounds { min: [-1e5; 3], max: [1e5; 3] }), ..params() },
  ] {
    assert!(nav.build(&w, bad).is_err());
  }
  assert!(nav.mesh.is_none(), "a refused build leaves nothing");
  nav.build(&w, params()).unwrap();
  assert!(nav.crowd.add(agent([f32::INFINITY, 0.0, 0.0])).is_err());
  let id = nav.crowd.add(agent([-5.0, 0.0, 0.0])).unwrap();
  assert!(nav.crowd.set_target(nav.mesh.as_ref().unwrap(), id, [0.0, 0.0, 100.0], None).is_err(), "off the mesh");
  assert!(!nav.crowd.moving(id), "a refused target starts nothing");
  assert!(nav.crowd.set_target(nav.mesh.as_ref().unwrap(), 99, [5.0, 0.0, 0.0], None).is_err());
}
