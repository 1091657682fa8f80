//! The navigation benchmark, run on demand (its figures are in docs/PERF.md):
//!
//! cargo test --release -p limina-nav --lib -- --ignored --nocapture bench_
//!
//! A 256 m × 256 m heightfield terrain (the collider type terrain uses) with
//! 500 box obstacles: the whole bake, a local rebuild after one obstacle
//! appears, path queries between random points, and a 500-agent crowd step.
//! And `bench_walkers`: the humanoids bench's plaza (examples/crowd_walk_core.ts)
//! with 200 crowd agents each driving a physics character, timing the crowd
//! step, the 200 controllers' moves and the physics step apart. Native
//! figures: no JS, no op crossing. The last line printed is JSON.

use std::time::Instant;

use limina_physics::rapier3d::math::Vector;
use limina_physics::rapier3d::parry::shape::HeightField;
use limina_physics::rapier3d::parry::utils::Array2;
use limina_physics::{PhysicsWorld, TransformColumns};

use crate::crowd::AgentDesc;
use crate::geometry::{cuboid, Fnv, PoseF, Source, SourceShape};
use crate::navmesh::NavMesh;
use crate::params::NavParams;
use crate::tests::static_body;
use crate::world::{query_reach, NavWorld};

struct Rng(u32);
impl Rng {
  fn next(&mut self) -> f32 {
    self.0 ^= self.0 << 13;
    self.0 ^= self.0 >> 17;
    self.0 ^= self.0 << 5;
    self.0 as f32 / u32::MAX as f32
  }
}

fn terrain() -> HeightField {
  // Rolling hills up to ~6 m, 1 m between samples.
  let heights = Array2::from_fn(257, 257, |i, j| {
    let (x, z) = (j as f32, i as f32);
    3.0 + 2.0 * (x * 0.045).sin() * (z * 0.038).cos() + 1.0 * (x * 0.11 + z * 0.07).sin()
  });
  HeightField::new(heights, Vector::new(256.0, 1.0, 256.0))
}

fn height(x: f32, z: f32) -> f32 {
  let (x, z) = (x + 128.0, z + 128.0);
  3.0 + 2.0 * (x * 0.045).sin() * (z * 0.038).cos() + 1.0 * (x * 0.11 + z * 0.07).sin()
}

fn obstacle(key: u64, at: [f32; 3], half: [f32; 3]) -> Source<'static> {
  let pose = PoseF { rotation: [0.0, 0.0, 0.0, 1.0], translation: at };
  let mut triangles = Vec::new();
  cuboid(&pose, half, &mut triangles);
  Source {
    key,
    min: [at[0] - half[0], at[1] - half[1], at[2] - half[2]],
    max: [at[0] + half[0], at[1] + half[1], at[2] + half[2]],
    fingerprint: key.wrapping_mul(0x9e37_79b9_7f4a_7c15),
    shape: SourceShape::Convex { triangles, center: at },
  }
}

/// The world digest's bytes hashed, so runs of old and new code can be compared bit for bit.
fn digest(nav: &NavWorld) -> String {
  let mut h = Fnv::new();
  nav.digest_bytes().iter().for_each(|&b| h.word(b as u32));
  format!("{:016x}", h.0)
}

fn ms(t: Instant) -> f64 {
  t.elapsed().as_secs_f64() * 1e3
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
  v.sort_by(|a, b| a.total_cmp(b));
  v[((v.len() - 1) as f64 * p / 100.0).round() as usize]
}

#[test]
#[ignore]
fn bench_navigation() {
  let field = terrain();
  let mut rng = Rng(0x5eed_0001);
  let mut sources = vec![Source {
    key: 0,
    min: [-128.0, 0.0, -128.0],
    max: [128.0, 7.0, 128.0],
    fingerprint: 1,
    shape: SourceShape::HeightField { field: &field, pose: PoseF { rotation: [0.0, 0.0, 0.0, 1.0], translation: [0.0; 3] }, bottom: -1.0 },
  }];
  for k in 0..500u64 {
    let (x, z) = (rng.next() * 240.0 - 120.0, rng.next() * 240.0 - 120.0);
    let half = [0.5 + rng.next(), 1.5, 0.5 + rng.next()];
    sources.push(obstacle(k + 1, [x, height(x, z) + 1.0, z], half));
  }
  let params = NavParams::default();
  let mut bakes = Vec::new();
  let mut mesh = None;
  for _ in 0..3 {
    let t = Instant::now();
    let m = NavMesh::bake_from(&sources, params.clone()).unwrap();
    bakes.push(ms(t));
    mesh = Some(m);
  }
  let mesh = mesh.unwrap();
  let (polygons, tiles) = mesh.counts();
  let mut nav = NavWorld { mesh: Some(mesh), ..NavWorld::default() };
  let bake_digest = digest(&nav);
  let mut mesh = nav.mesh.take().unwrap();
  // One more obstacle at a time: only the tiles under it are rebuilt.
  let mut rebuilds = Vec::new();
  for k in 0..10u64 {
    let (x, z) = (rng.next() * 240.0 - 120.0, rng.next() * 240.0 - 120.0);
    sources.push(obstacle(1000 + k, [x, height(x, z) + 1.0, z], [1.0, 1.5, 1.0]));
    // What a refresh compares: fingerprints and bounds, no triangles.
    let probe: Vec<Source> = sources
      .iter()
      .map(|s| match &s.shape {
        SourceShape::Convex { center, .. } => Source { shape: SourceShape::Convex { triangles: Vec::new(), center: *center }, ..s.clone() },
        _ => s.clone(),
      })
      .collect();
    let full = sources.clone();
    let t = Instant::now();
    let n = mesh.refresh_from(&probe, move || full).len();
    rebuilds.push((ms(t), n));
  }
  nav.mesh = Some(mesh);
  let rebuild_digest = digest(&nav);
  // Path queries between random points of the mesh, up to 60 m apart.
  let mut times = Vec::new();
  let mut found = 0;
  let mut expanded = 0u64;
  let mesh_ref = nav.mesh.as_ref().unwrap();
  let mut pairs = Vec::new();
  while pairs.len() < 2000 {
    let (x, z) = (rng.next() * 240.0 - 120.0, rng.next() * 240.0 - 120.0);
    let (dx, dz) = ((rng.next() - 0.5) * 80.0, (rng.next() - 0.5) * 80.0);
    let a = mesh_ref.locate([x, height(x, z), z], query_reach(mesh_ref));
    let b = mesh_ref.locate([x + dx, height(x + dx, z + dz), z + dz], query_reach(mesh_ref));
    if let (Some(a), Some(b)) = (a, b) {
      pairs.push((a, b));
    }
  }
  for (a, b) in &pairs {
    let t = Instant::now();
    let p = crate::query::find_path(nav.mesh.as_ref().unwrap(), &mut nav.search, a, b);
    times.push(t.elapsed().as_secs_f64() * 1e6);
    found += p.found as u32;
    expanded += nav.search.expanded as u64;
  }
  let path_p50 = percentile(&mut times, 50.0);
  let path_p95 = percentile(&mut times, 95.0);
  // 500 agents walking to random points.
  let mut physics = PhysicsWorld::new();
  let mut ids = Vec::new();
  for i in 0..500u32 {
    let (x, z) = ((i % 25) as f32 * 3.0 - 36.0, (i / 25) as f32 * 3.0 - 30.0);
    let p = nav.locate([x, height(x, z), z]).unwrap().map(|l| l.point).unwrap_or([x, height(x, z), z]);
    ids.push(nav.crowd.add(AgentDesc { position: p, radius: 0.35, max_speed: 2.0, max_accel: 10.0, arrive_distance: 0.2, character: None, eid: Some(i + 1) }).unwrap());
  }
  let mut cols: [Vec<f32>; 7] = std::array::from_fn(|_| vec![0.0; 512]);
  let mut steps = Vec::new();
  for step in 0..360 {
    if step % 60 == 0 {
      for &id in &ids {
        let (x, z) = (rng.next() * 100.0 - 50.0, rng.next() * 100.0 - 50.0);
        let _ = nav.crowd.set_target(nav.mesh.as_ref().unwrap(), id, [x, height(x, z), z], None);
      }
    }
    let [px, py, pz, rx, ry, rz, rw] = &mut cols;
    let mut soa = TransformColumns { px, py, pz, rx, ry, rz, rw };
    let t = Instant::now();
    nav.crowd.step(nav.mesh.as_ref(), &mut physics, 1.0 / 60.0, &mut soa).unwrap();
    if step >= 30 {
      steps.push(ms(t));
    }
  }
  let crowd_digest = digest(&nav);
  let crowd_p50 = percentile(&mut steps, 50.0);
  let crowd_p95 = percentile(&mut steps, 95.0);
  let rebuild_ms: Vec<f64> = rebuilds.iter().map(|r| r.0).collect();
  let mut sorted = rebuild_ms.clone();
  println!(
    "{{\"bench\":\"navigation\",\"terrain\":\"256x256 m heightfield (257x257 samples)\",\"obstacles\":500,\"cellSize\":{},\"tileSize\":{},\"polygons\":{polygons},\"tiles\":{tiles},\"bakeMs\":[{}],\"tileRebuildP50Ms\":{:.3},\"tileRebuildMaxMs\":{:.3},\"tilesPerRebuild\":[{}],\"pathQueries\":{},\"pathFound\":{found},\"pathP50Us\":{path_p50:.1},\"pathP95Us\":{path_p95:.1},\"nodesExpandedMean\":{:.1},\"crowdAgents\":500,\"crowdStepP50Ms\":{crowd_p50:.3},\"crowdStepP95Ms\":{crowd_p95:.3},\"digests\":[\"{bake_digest}\",\"{rebuild_digest}\",\"{crowd_digest}\"]}}",
    params.cell_size,
    params.tile_size,
    bakes.iter().map(|b| format!("{b:.1}")).collect::<Vec<_>>().join(","),
    percentile(&mut sorted.clone(), 50.0),
    percentile(&mut sorted, 100.0),
    rebuilds.iter().map(|r| r.1.to_string()).collect::<Vec<_>>().join(","),
    pairs.len(),
    expanded as f64 / pairs.len() as f64,
  );
}

/// 200 walkers crossing the crowd walk's plaza to random goals, a new one on each arrival: the
/// step's three native parts timed apart, and digests of the characters and the crowd at the end.
#[test]
#[ignore]
fn bench_walkers() {
  use limina_physics::{CharacterDesc, Shape};
  const PLAZA: f32 = 18.0;
  let mut w = PhysicsWorld::new();
  static_body(&mut w, Shape::Box { half_extents: [PLAZA + 4.0; 3] }, [0.0, -(PLAZA + 4.0), 0.0]);
  for [x, z] in [[-9.0, -9.0], [9.0, -9.0], [-9.0, 9.0], [9.0, 9.0], [0.0, -13.0], [0.0, 13.0]] {
    static_body(&mut w, Shape::Box { half_extents: [1.1, 0.605, 1.1] }, [x, 0.3, z]);
  }
  static_body(&mut w, Shape::Sphere { radius: 2.0 }, [0.0, 0.0, 0.0]);
  w.step(1.0 / 60.0).unwrap();
  let mut nav = NavWorld::default();
  let params = NavParams { agent_radius: 0.35, bounds: Some(crate::params::Bounds { min: [-PLAZA - 2.0, -1.0, -PLAZA - 2.0], max: [PLAZA + 2.0, 4.0, PLAZA + 2.0] }), ..NavParams::default() };
  nav.build(&w, params).unwrap();
  let mut rng = Rng(0x0ddb_a11);
  let somewhere = |rng: &mut Rng| [(rng.next() * 2.0 - 1.0) * (PLAZA - 1.0), 0.0, (rng.next() * 2.0 - 1.0) * (PLAZA - 1.0)];
  let n = 200u32;
  let mut agents = Vec::new();
  for i in 0..n {
    let r = 3.0 + (PLAZA - 4.0) * ((i as f32 + 0.5) / n as f32).sqrt();
    let a = i as f32 * 2.399963;
    let height = 1.6 + rng.next() * 0.3;
    let scale = height / 1.75;
    let at = [a.cos() * r, 0.0, a.sin() * r];
    let at = nav.locate(at).unwrap().map(|l| l.point).unwrap_or(at);
    let desc: CharacterDesc = serde_json::from_value(serde_json::json!({ "position": at, "radius": 0.3 * scale, "height": height, "eid": i + 1 })).unwrap();
    let body = w.create_character(&desc).unwrap();
    agents.push(nav.crowd.add(AgentDesc { position: at, radius: 0.35 * scale, max_speed: 4.5, max_accel: 10.0, arrive_distance: 0.2, character: Some(body), eid: Some(i + 1) }).unwrap());
  }
  let send = |nav: &mut NavWorld, rng: &mut Rng, id: u32| {
    for _ in 0..5 {
      let (target, speed) = (somewhere(rng), 1.1 + rng.next() * 0.9);
      if nav.crowd.set_target(nav.mesh.as_ref().unwrap(), id, target, Some(speed)).is_ok() {
        return;
      }
    }
  };
  for &id in &agents {
    send(&mut nav, &mut rng, id);
  }
  let mut cols: [Vec<f32>; 7] = std::array::from_fn(|_| vec![0.0; n as usize + 1]);
  let (mut crowd_ms, mut moves_ms, mut physics_ms) = (Vec::new(), Vec::new(), Vec::new());
  let mut arrivals = 0;
  for step in 0..600 {
    let [px, py, pz, rx, ry, rz, rw] = &mut cols;
    let t = Instant::now();
    nav.crowd.step(nav.mesh.as_ref(), &mut w, 1.0 / 60.0, &mut TransformColumns { px, py, pz, rx, ry, rz, rw }).unwrap();
    let c = ms(t);
    let t = Instant::now();
    w.step_characters(1.0 / 60.0, TransformColumns { px, py, pz, rx, ry, rz, rw }).unwrap();
    let m = ms(t);
    let t = Instant::now();
    w.step(1.0 / 60.0).unwrap();
    let p = ms(t);
    if step >= 60 {
      crowd_ms.push(c);
      moves_ms.push(m);
      physics_ms.push(p);
    }
    for e in nav.crowd.drain_events() {
      let id = match e {
        crate::crowd::CrowdEvent::Arrived { agent, .. } => {
          arrivals += 1;
          agent
        }
        crate::crowd::CrowdEvent::Failed { agent, .. } => agent,
      };
      send(&mut nav, &mut rng, id);
    }
  }
  let mut h = Fnv::new();
  w.characters_digest_bytes().iter().chain(w.digest_bytes().iter()).for_each(|&b| h.word(b as u32));
  println!(
    "{{\"bench\":\"walkers\",\"walkers\":{n},\"threads\":{},\"crowdStepP50Ms\":{:.3},\"movesP50Ms\":{:.3},\"movesP95Ms\":{:.3},\"physicsStepP50Ms\":{:.3},\"arrivals\":{arrivals},\"digests\":[\"{:016x}\",\"{}\"]}}",
    rayon::current_num_threads(),
    percentile(&mut crowd_ms, 50.0),
    percentile(&mut moves_ms.clone(), 50.0),
    percentile(&mut moves_ms, 95.0),
    percentile(&mut physics_ms, 50.0),
    h.0,
    digest(&nav),
  );
}
