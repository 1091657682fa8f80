//! The crowd: agents walking the navmesh toward their targets, each step
//! (in agent order, for bit-identical replays):
//!
//! 1. every agent's polygon is found and its corridor kept up — trimmed as
//!    it advances, extended when it is pushed into a neighbour, planned
//!    anew when a tile under it was rebuilt or it left the corridor;
//! 2. its preferred velocity aims at the next corner of the funnel through
//!    the corridor, slowing into the goal;
//! 3. ORCA turns preferred velocities into ones that keep every pair apart;
//! 4. positions advance, sliding along the mesh's edges, and any remaining
//!    overlap is pushed apart (a few Jacobi passes), still on the mesh.
//!
//! An agent may drive a physics character instead of its own position: its
//! velocity is then handed to the character's controller and its position
//! read back from the character's body next step.

use std::collections::BTreeMap;

use limina_ops::OpError;
use limina_physics::PhysicsWorld;

use crate::math::{self, V3};
use crate::navmesh::{Located, NavMesh, PolyRef};
use crate::orca::{self, Body, Line};
use crate::query::{self, Search, Step};
use crate::tile;

/// A new agent.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentDesc {
  pub position: V3,
  #[serde(default = "d_radius")]
  pub radius: f32,
  #[serde(default = "d_speed")]
  pub max_speed: f32,
  #[serde(default = "d_accel")]
  pub max_accel: f32,
  /// Within this distance of its target an agent has arrived (m).
  #[serde(default = "d_arrive")]
  pub arrive_distance: f32,
  /// The physics character it drives, if any.
  pub character: Option<u32>,
  /// The entity whose SoA transform it writes (when it drives no character).
  pub eid: Option<u32>,
}

fn d_radius() -> f32 {
  0.35
}
fn d_speed() -> f32 {
  3.5
}
fn d_accel() -> f32 {
  10.0
}
fn d_arrive() -> f32 {
  0.2
}

/// What an agent is doing.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Mode {
  Idle,
  Moving,
  /// Crossing an off-mesh link from `from` to `to`.
  Crossing { from: V3, to: V3, t: f32, duration: f32 },
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Agent {
  pub desc: AgentDesc,
  pub pos: V3,
  pub vel: V3,
  /// The velocity it would take if alone.
  pub preferred: V3,
  /// Unit facing in the ground plane (x, z); (0, 1) faces +z.
  pub facing: [f32; 2],
  pub poly: Option<PolyRef>,
  pub mode: Mode,
  pub target: V3,
  pub speed: f32,
  corridor: Vec<SavedStep>,
  /// The mesh revision its corridor was planned against.
  planned: u64,
  /// Closest it has come to its target, and for how long it has not come closer.
  best: f32,
  stalled: f32,
  replans: u32,
  /// A character's walk just ended: its velocity is zeroed at the next write-back.
  halt: bool,
}

/// A corridor step in a form snapshots hold.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
struct SavedStep {
  poly: PolyRef,
  via: Option<(u32, V3, V3, u16)>,
}

impl From<Step> for SavedStep {
  fn from(s: Step) -> Self {
    SavedStep { poly: s.poly, via: s.via.map(|l| (l.to, l.left, l.right, l.offmesh)) }
  }
}

impl From<SavedStep> for Step {
  fn from(s: SavedStep) -> Self {
    Step { poly: s.poly, via: s.via.map(|(to, left, right, offmesh)| tile::Link { to, left, right, offmesh }) }
  }
}

/// Something an agent did this step that its owner should hear of.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum CrowdEvent {
  Arrived { agent: u32, position: V3 },
  Failed { agent: u32, position: V3, reason: &'static str },
}

/// Tunables of the avoidance.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct CrowdParams {
  pub neighbour_distance: f32,
  pub max_neighbours: usize,
  pub horizon: f32,
  pub separation_passes: u32,
}

impl Default for CrowdParams {
  fn default() -> Self {
    Self { neighbour_distance: 3.0, max_neighbours: 10, horizon: 1.5, separation_passes: 4 }
  }
}

/// Seconds without getting closer before an agent plans again, and before it gives up.
const REPLAN_AFTER: f32 = 3.0;
const GIVE_UP_AFTER: f32 = 12.0;

#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Crowd {
  pub agents: BTreeMap<u32, Agent>,
  next_id: u32,
  pub params: CrowdParams,
  #[serde(skip)]
  search: Search,
  #[serde(skip)]
  events: Vec<CrowdEvent>,
  #[serde(skip)]
  scratch: Scratch,
}

#[derive(Default)]
struct Scratch {
  lines: Vec<Line>,
  lp: Vec<Line>,
  neighbours: Vec<Vec<u32>>,
  /// Per agent, in agent order: ground-plane body, height, chosen velocity, next position.
  bodies: Vec<Body>,
  heights: Vec<f32>,
  chosen: Vec<[f32; 2]>,
  next: Vec<V3>,
  /// (cell key, agent index), sorted: the neighbour grid.
  grid: Vec<(i64, u32)>,
  /// Per agent: its cell of that grid.
  cells: Vec<(i64, i64)>,
  near: Vec<(f32, u32)>,
  push: Vec<[f32; 2]>,
  /// Dense grid of the cells around the agents: where each cell's agents start in `slots`.
  starts: Vec<u32>,
  slots: Vec<u32>,
  /// An agent's corridor as the funnel reads it, its next corners, and the funnel's portals.
  steps: Vec<Step>,
  corners: Vec<V3>,
  portals: Vec<(V3, V3)>,
}

impl Scratch {
  /// Each agent's nearest neighbours (within `cell` in the ground plane,
  /// within 2 m in height, at most `max_neighbours`, nearest first, ties by
  /// index) from `bodies` and `heights` into `neighbours`. Candidates come
  /// from the 3 × 3 cells of side `cell` around the agent: from a dense grid
  /// (counting sort) when the agents' cells span few enough of them, else
  /// from the sorted (cell, agent) list. Both give the same lists: `near` is
  /// sorted by (distance, agent), so the order candidates are met in does
  /// not matter.
  fn find_neighbours(&mut self, cell: f32, max_neighbours: usize, dense_allowed: bool) {
    let n = self.bodies.len();
    let cell_of = |p: [f32; 2]| ((p[0] / cell).floor() as i64, (p[1] / cell).floor() as i64);
    self.cells.clear();
    self.cells.extend(self.bodies.iter().map(|b| cell_of(b.position)));
    let (mut x0, mut z0, mut x1, mut z1) = (i64::MAX, i64::MAX, i64::MIN, i64::MIN);
    for &(cx, cz) in &self.cells {
      x0 = x0.min(cx);
      z0 = z0.min(cz);
      x1 = x1.max(cx);
      z1 = z1.max(cz);
    }
    // One empty cell of margin on every side.
    let (w, h) = (x1.saturating_sub(x0).saturating_add(3), z1.saturating_sub(z0).saturating_add(3));
    let dense = dense_allowed && n > 0 && w.checked_mul(h).is_some_and(|a| a <= 4 * n as i64 + 4096);
    // Monotone in (cx, cz): the three cells of a column (cx, cz - 1..=cz + 1) are one run of the sorted list.
    let key = |(cx, cz): (i64, i64)| (cx << 32) | ((cz + (1 << 31)) & 0xffff_ffff);
    let index = |(cx, cz): (i64, i64)| ((cx - x0 + 1) * h + (cz - z0 + 1)) as usize;
    if dense {
      self.starts.clear();
      self.starts.resize((w * h) as usize + 1, 0);
      for &c in &self.cells {
        self.starts[index(c) + 1] += 1;
      }
      for k in 1..self.starts.len() {
        self.starts[k] += self.starts[k - 1];
      }
      self.slots.clear();
      self.slots.resize(n, 0);
      for (i, &c) in self.cells.iter().enumerate() {
        let k = index(c);
        self.slots[self.starts[k] as usize] = i as u32;
        self.starts[k] += 1;
      }
      // Each cell's start moved to its end: shift back.
      for k in (1..self.starts.len()).rev() {
        self.starts[k] = self.starts[k - 1];
      }
      self.starts[0] = 0;
    } else {
      self.grid.clear();
      self.grid.extend(self.cells.iter().enumerate().map(|(i, &c)| (key(c), i as u32)));
      self.grid.sort_unstable();
    }
    let nd2 = cell * cell;
    self.neighbours.resize(n, Vec::new());
    for i in 0..n {
      let p = self.bodies[i].position;
      let y = self.heights[i];
      let (cx, cz) = self.cells[i];
      self.near.clear();
      let mut from = 0;
      for dx in -1..=1 {
        let run: &[u32] = if dense {
          let lo = self.starts[index((cx + dx, cz - 1))] as usize;
          let hi = self.starts[index((cx + dx, cz + 1)) + 1] as usize;
          &self.slots[lo..hi]
        } else {
          let (lo, hi) = (key((cx + dx, cz - 1)), key((cx + dx, cz + 1)));
          from += self.grid[from..].partition_point(|e| e.0 < lo);
          let len = self.grid[from..].partition_point(|e| e.0 <= hi);
          self.slots.clear();
          self.slots.extend(self.grid[from..from + len].iter().map(|e| e.1));
          &self.slots
        };
        for &j in run {
          if j as usize == i {
            continue;
          }
          let q = self.bodies[j as usize].position;
          let d2 = (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]);
          if d2 < nd2 && (self.heights[j as usize] - y).abs() < 2.0 {
            self.near.push((d2, j));
          }
        }
      }
      self.near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
      self.near.truncate(max_neighbours);
      let list = &mut self.neighbours[i];
      list.clear();
      list.extend(self.near.iter().map(|&(_, j)| j));
    }
  }
}

fn check(name: &str, v: f32, lo: f32, hi: f32) -> Result<(), OpError> {
  if v.is_finite() && v >= lo && v <= hi {
    Ok(())
  } else {
    Err(OpError::invalid_input(format!("agent {name} must be in [{lo}, {hi}], got {v}")))
  }
}

fn finite_point(name: &str, p: V3) -> Result<(), OpError> {
  if p.iter().all(|c| c.is_finite() && c.abs() <= 1e5) {
    Ok(())
  } else {
    Err(OpError::invalid_input(format!("{name} must be finite and within ±1e5 m, got {p:?}")))
  }
}

/// How far from the mesh (x/z, y) an agent or target still counts as on it.
fn reach(mesh: &NavMesh) -> [f32; 3] {
  let p = &mesh.params;
  [p.cell_size * 4.0 + p.agent_radius, p.agent_height.max(p.max_climb * 2.0), p.cell_size * 4.0 + p.agent_radius]
}

impl Crowd {
  pub fn add(&mut self, desc: AgentDesc) -> Result<u32, OpError> {
    finite_point("agent position", desc.position)?;
    check("radius", desc.radius, 0.05, 10.0)?;
    check("maxSpeed", desc.max_speed, 0.0, 100.0)?;
    check("maxAccel", desc.max_accel, 0.0, 1000.0)?;
    check("arriveDistance", desc.arrive_distance, 0.01, 10.0)?;
    if self.agents.len() >= 65536 {
      return Err(OpError::capacity_exceeded("a crowd holds at most 65536 agents"));
    }
    self.next_id += 1;
    let id = self.next_id;
    let pos = desc.position;
    self.agents.insert(
      id,
      Agent {
        desc,
        pos,
        vel: [0.0; 3],
        preferred: [0.0; 3],
        facing: [0.0, 1.0],
        poly: None,
        mode: Mode::Idle,
        target: pos,
        speed: 0.0,
        corridor: Vec::new(),
        planned: 0,
        best: 0.0,
        stalled: 0.0,
        replans: 0,
        halt: false,
      },
    );
    Ok(id)
  }

  pub fn remove(&mut self, id: u32) -> bool {
    self.agents.remove(&id).is_some()
  }

  fn agent_mut(&mut self, id: u32) -> Result<&mut Agent, OpError> {
    self.agents.get_mut(&id).ok_or_else(|| OpError::not_found(format!("no crowd agent {id} (never added or already removed)")))
  }

  /// Sends agent `id` toward `target` at up to `speed`; plans now, so an
  /// unreachable target is refused (`not_found`) and changes nothing.
  pub fn set_target(&mut self, mesh: &NavMesh, id: u32, target: V3, speed: Option<f32>) -> Result<(), OpError> {
    finite_point("target", target)?;
    if let Some(s) = speed {
      check("speed", s, 0.0, 100.0)?;
    }
    let agent = self.agents.get(&id).ok_or_else(|| OpError::not_found(format!("no crowd agent {id} (never added or already removed)")))?;
    let r = reach(mesh);
    let start = mesh.locate(agent.pos, r).ok_or_else(|| OpError::not_found(format!("agent {id} at {:?} is not on the navmesh", agent.pos)))?;
    let goal = mesh.locate(target, r).ok_or_else(|| OpError::not_found(format!("target {target:?} is not on the navmesh")))?;
    // Retargeting within the same goal polygon keeps the corridor.
    let keep = matches!(agent.mode, Mode::Moving) && agent.corridor.last().is_some_and(|s| s.poly == goal.poly) && agent.planned == mesh.revision;
    let corridor = if keep {
      None
    } else {
      let (found, corridor) = self.search.corridor(mesh, &start, &goal);
      if !found {
        return Err(OpError::not_found(format!("no path from {:?} to {target:?} on the navmesh", agent.pos)));
      }
      Some(corridor)
    };
    let agent = self.agent_mut(id)?;
    if let Some(c) = corridor {
      agent.corridor = c.into_iter().map(SavedStep::from).collect();
      agent.planned = mesh.revision;
    }
    agent.target = goal.point;
    agent.speed = speed.unwrap_or(agent.desc.max_speed).min(agent.desc.max_speed);
    if !matches!(agent.mode, Mode::Crossing { .. }) {
      agent.mode = Mode::Moving;
    }
    agent.best = math::dist_xz(agent.pos, goal.point);
    agent.stalled = 0.0;
    agent.replans = 0;
    Ok(())
  }

  /// Stops agent `id` where it stands.
  pub fn stop(&mut self, id: u32) -> Result<(), OpError> {
    let a = self.agent_mut(id)?;
    a.mode = Mode::Idle;
    a.corridor.clear();
    a.preferred = [0.0; 3];
    a.halt = true;
    Ok(())
  }

  /// Puts agent `id` at `position` (a teleport: its walk, if any, is planned again).
  pub fn place(&mut self, id: u32, position: V3) -> Result<(), OpError> {
    finite_point("position", position)?;
    let a = self.agent_mut(id)?;
    a.pos = position;
    a.vel = [0.0; 3];
    a.planned = 0;
    Ok(())
  }

  pub fn drain_events(&mut self) -> Vec<CrowdEvent> {
    std::mem::take(&mut self.events)
  }

  /// Plans agent `a`'s corridor anew.
  fn plan(search: &mut Search, mesh: &NavMesh, a: &mut Agent) -> bool {
    let r = reach(mesh);
    let (Some(start), Some(goal)) = (mesh.locate(a.pos, r), mesh.locate(a.target, r)) else { return false };
    let (found, corridor) = search.corridor(mesh, &start, &goal);
    a.planned = mesh.revision;
    if !found {
      return false;
    }
    a.corridor = corridor.into_iter().map(SavedStep::from).collect();
    a.target = goal.point;
    true
  }

  fn fail(events: &mut Vec<CrowdEvent>, id: u32, a: &mut Agent, reason: &'static str) {
    a.mode = Mode::Idle;
    a.corridor.clear();
    a.preferred = [0.0; 3];
    a.halt = true;
    events.push(CrowdEvent::Failed { agent: id, position: a.pos, reason });
  }

  /// One step of `dt` seconds; writes agents' feet and facing into the SoA
  /// columns at their eids (character-driven agents hand their velocity to
  /// the character instead). Returns how many agents moved.
  pub fn step(&mut self, mesh: Option<&NavMesh>, physics: &mut PhysicsWorld, dt: f32, soa: &mut limina_physics::TransformColumns<'_>) -> Result<u32, OpError> {
    if !(dt.is_finite() && dt > 0.0 && dt <= 1.0) {
      return Err(OpError::invalid_input(format!("crowd dt must be in (0, 1] seconds, got {dt}")));
    }
    let ids: Vec<u32> = self.agents.keys().copied().collect();
    let Crowd { agents, search, events, scratch, .. } = self;
    // Characters' agents stand where their bodies are.
    for a in agents.values_mut() {
      if let Some(h) = a.desc.character {
        match physics.character_feet(h) {
          Some(p) => a.pos = p,
          None => a.desc.character = None,
        }
      }
    }
    let Some(mesh) = mesh else { return Ok(0) };
    let r = reach(mesh);

    // 1. Polygons and corridors.
    for (&id, a) in agents.iter_mut() {
      a.poly = mesh.locate(a.pos, r).map(|l| l.poly);
      if let Mode::Crossing { .. } = a.mode {
        continue;
      }
      if a.mode != Mode::Moving {
        continue;
      }
      let stale = a.planned != mesh.revision && a.corridor.iter().any(|s| mesh.tile_revision.get(crate::navmesh::split_ref(s.poly).0).is_none_or(|&r| r > a.planned));
      let mut ok = !stale && !a.corridor.is_empty();
      if ok {
        match a.poly {
          Some(p) if p == a.corridor[0].poly => {}
          Some(p) => {
            if let Some(k) = a.corridor.iter().position(|s| s.poly == p) {
              a.corridor.drain(..k);
              a.corridor[0].via = None;
            } else if let Some(link) = mesh.links_of(p).iter().find(|l| l.to == a.corridor[0].poly && l.offmesh == u16::MAX) {
              // Pushed into a neighbour: walk back through it.
              a.corridor[0].via = Some((link.to, link.left, link.right, link.offmesh));
              a.corridor.insert(0, SavedStep { poly: p, via: None });
            } else {
              ok = false;
            }
          }
          None => ok = false,
        }
      }
      if !ok {
        if stale {
          a.planned = mesh.revision;
        }
        if !Self::plan(search, mesh, a) {
          Self::fail(events, id, a, "unreachable");
        }
      }
    }

    // 2. Preferred velocities toward the next corner; arrivals.
    for (&id, a) in agents.iter_mut() {
      match a.mode {
        Mode::Idle => a.preferred = [0.0; 3],
        Mode::Crossing { .. } => {}
        Mode::Moving => {
          let to_goal = math::dist_xz(a.pos, a.target);
          if to_goal <= a.desc.arrive_distance {
            a.mode = Mode::Idle;
            a.corridor.clear();
            a.preferred = [0.0; 3];
            a.halt = true;
            events.push(CrowdEvent::Arrived { agent: id, position: a.pos });
            continue;
          }
          if to_goal < a.best - 0.05 {
            a.best = to_goal;
            a.stalled = 0.0;
          } else {
            a.stalled += dt;
          }
          let Scratch { steps: corridor, corners, portals, .. } = scratch;
          let rest = a.corridor.get(1..).unwrap_or(&[]);
          let next_link = if rest.iter().all(|s| s.via.is_some_and(|v| v.3 == u16::MAX)) {
            // Ordinary edges only (the usual case): the funnel reads the
            // portals from the corridor in place, as `corners` would.
            corners.clear();
            query::string_pull_by(a.pos, a.target, rest.len(), |i| rest[i].via.map_or(([0.0; 3], [0.0; 3]), |v| (v.1, v.2)), 2, corners);
            corners.truncate(3);
            None
          } else {
            corridor.clear();
            corridor.extend(a.corridor.iter().map(|&s| Step::from(s)));
            query::corners_into(mesh, a.pos, a.target, corridor, 2, corners, portals);
            // An off-mesh link starting at the next corner: cross it once there.
            corridor.iter().skip(1).find_map(|s| s.via.filter(|l| l.offmesh != u16::MAX).map(|l| (s.poly, l)))
          };
          let next = corners.get(1).copied().unwrap_or(a.target);
          if let Some((to_poly, link)) = next_link {
            let placed = &mesh.links[link.offmesh as usize];
            let (from, to) = if placed.to_poly == to_poly { (placed.from, placed.to) } else { (placed.to, placed.from) };
            if math::dist_xz(a.pos, from) <= a.desc.arrive_distance.max(0.1) && math::dist_xz(next, from) < 1e-3 {
              let duration = (math::dist(from, to) / a.speed.max(0.5)).max(0.2);
              a.mode = Mode::Crossing { from: a.pos, to, t: 0.0, duration };
              let k = a.corridor.iter().position(|s| s.poly == to_poly).unwrap_or(0);
              a.corridor.drain(..k);
              a.corridor[0].via = None;
              continue;
            }
          }
          let d = [next[0] - a.pos[0], 0.0, next[2] - a.pos[2]];
          let l = math::len(d);
          let mut speed = a.speed;
          if corners.len() <= 2 {
            // Ease into the goal over about half a second of walking.
            speed = speed.min((to_goal / 0.5).max(0.3));
          }
          a.preferred = if l > 1e-6 { math::scale(d, speed / l) } else { [0.0; 3] };
          if a.stalled > GIVE_UP_AFTER {
            Self::fail(events, id, a, "blocked");
          } else if a.stalled > REPLAN_AFTER * (a.replans + 1) as f32 {
            a.replans += 1;
            if !Self::plan(search, mesh, a) {
              Self::fail(events, id, a, "unreachable");
            }
          }
        }
      }
    }

    // 3. Neighbours (a grid of cells sorted by key, agent order within each cell) and ORCA.
    let n = ids.len();
    let sc = &mut self.scratch;
    sc.bodies.clear();
    sc.bodies.extend(self.agents.values().map(|a| Body { position: [a.pos[0], a.pos[2]], velocity: [a.vel[0], a.vel[2]], radius: a.desc.radius }));
    sc.heights.clear();
    sc.heights.extend(self.agents.values().map(|a| a.pos[1]));
    sc.find_neighbours(self.params.neighbour_distance, self.params.max_neighbours, true);
    sc.chosen.clear();
    for (i, a) in self.agents.values().enumerate() {
      if let Mode::Crossing { .. } = a.mode {
        sc.chosen.push([0.0, 0.0]);
        continue;
      }
      sc.lines.clear();
      for &j in &sc.neighbours[i] {
        sc.lines.push(orca::constraint(&sc.bodies[i], &sc.bodies[j as usize], self.params.horizon, dt));
      }
      let max = a.desc.max_speed.max(math::len(a.preferred));
      sc.chosen.push(orca::solve(&sc.lines, [a.preferred[0], a.preferred[2]], max, &mut sc.lp));
    }

    // 4. Move: accelerate toward the chosen velocity, slide along the mesh, push overlaps apart.
    let sc = &mut self.scratch;
    let next = &mut sc.next;
    next.clear();
    for (i, a) in self.agents.values_mut().enumerate() {
      if let Mode::Crossing { from, to, t, duration } = a.mode {
        let t = (t + dt).min(duration);
        let s = t / duration;
        let mut p = math::lerp(from, to, s);
        // A hop over the link: up to a third of its length, at most a metre.
        p[1] += 4.0 * s * (1.0 - s) * (math::dist(from, to) / 3.0).min(1.0);
        a.vel = math::scale(math::sub(to, from), 1.0 / duration);
        if t >= duration {
          a.mode = Mode::Moving;
          a.best = math::dist_xz(to, a.target);
        } else {
          a.mode = Mode::Crossing { from, to, t, duration };
        }
        next.push(p);
        continue;
      }
      let want = sc.chosen[i];
      let dv = [want[0] - a.vel[0], want[1] - a.vel[2]];
      let dl = (dv[0] * dv[0] + dv[1] * dv[1]).sqrt();
      let cap = a.desc.max_accel * dt;
      let k = if dl > cap { cap / dl } else { 1.0 };
      a.vel = [a.vel[0] + dv[0] * k, 0.0, a.vel[2] + dv[1] * k];
      let goal = [a.pos[0] + a.vel[0] * dt, a.pos[1], a.pos[2] + a.vel[2] * dt];
      next.push(slide(mesh, a.pos, goal));
    }
    for _ in 0..self.params.separation_passes {
      let push = &mut sc.push;
      push.clear();
      push.resize(n, [0.0; 2]);
      let mut any = false;
      for i in 0..n {
        let ri = sc.bodies[i].radius;
        for &j in &sc.neighbours[i] {
          let j = j as usize;
          let rj = sc.bodies[j].radius;
          let (dx, dz) = (next[i][0] - next[j][0], next[i][2] - next[j][2]);
          let d = (dx * dx + dz * dz).sqrt();
          let overlap = ri + rj - d;
          if overlap <= 0.0 || (next[i][1] - next[j][1]).abs() > 2.0 {
            continue;
          }
          any = true;
          // Each takes half; coincident agents part along x, the lower id to -x.
          let (ux, uz) = if d > 1e-6 { (dx / d, dz / d) } else if ids[i] < ids[j] { (-1.0, 0.0) } else { (1.0, 0.0) };
          push[i][0] += ux * overlap * 0.5;
          push[i][1] += uz * overlap * 0.5;
        }
      }
      if !any {
        break;
      }
      for (i, a) in self.agents.values().enumerate() {
        if push[i] != [0.0, 0.0] && !matches!(a.mode, Mode::Crossing { .. }) {
          next[i] = slide(mesh, next[i], [next[i][0] + push[i][0], next[i][1], next[i][2] + push[i][1]]);
        }
      }
    }

    // 5. Write back: positions, facings, characters' velocities.
    let next = &self.scratch.next;
    for (i, a) in self.agents.values_mut().enumerate() {
      let moved = [(next[i][0] - a.pos[0]) / dt, (next[i][2] - a.pos[2]) / dt];
      let sp = (moved[0] * moved[0] + moved[1] * moved[1]).sqrt();
      if sp > 0.05 {
        let k = (dt * 10.0).min(1.0);
        let f = [a.facing[0] + (moved[0] / sp - a.facing[0]) * k, a.facing[1] + (moved[1] / sp - a.facing[1]) * k];
        let l = (f[0] * f[0] + f[1] * f[1]).sqrt();
        if l > 1e-6 {
          a.facing = [f[0] / l, f[1] / l];
        }
      }
      if let Some(h) = a.desc.character {
        // An idle character is driven by whoever drives it directly; the crowd only steers its walks.
        if a.mode != Mode::Idle {
          physics.set_character_velocity(h, moved)?;
          physics.set_character_facing(h, a.facing)?;
        } else if std::mem::take(&mut a.halt) {
          physics.set_character_velocity(h, [0.0, 0.0])?;
        }
        continue;
      }
      a.vel = [moved[0], 0.0, moved[1]];
      a.pos = next[i];
      if let Some(eid) = a.desc.eid {
        let e = eid as usize;
        if e < soa.px.len().min(soa.rw.len()) {
          let q = limina_physics::yaw_quat(a.facing);
          soa.px[e] = a.pos[0];
          soa.py[e] = a.pos[1];
          soa.pz[e] = a.pos[2];
          soa.rx[e] = q[0];
          soa.ry[e] = q[1];
          soa.rz[e] = q[2];
          soa.rw[e] = q[3];
        }
      }
    }
    Ok(n as u32)
  }

  /// Per agent in `ids`: position (3), velocity (3), speed, mode (0 idle, 1 moving, 2 crossing), facing (2) — 10 floats.
  pub fn states(&self, ids: &[u32], out: &mut [f32]) -> Result<(), OpError> {
    if out.len() < ids.len() * STATE_FLOATS {
      return Err(OpError::invalid_input(format!("agent states need {} floats, got {}", ids.len() * STATE_FLOATS, out.len())));
    }
    for (k, id) in ids.iter().enumerate() {
      let a = self.agents.get(id).ok_or_else(|| OpError::not_found(format!("no crowd agent {id}")))?;
      let o = &mut out[k * STATE_FLOATS..(k + 1) * STATE_FLOATS];
      o[..3].copy_from_slice(&a.pos);
      o[3..6].copy_from_slice(&a.vel);
      o[6] = (a.vel[0] * a.vel[0] + a.vel[2] * a.vel[2]).sqrt();
      o[7] = match a.mode {
        Mode::Idle => 0.0,
        Mode::Moving => 1.0,
        Mode::Crossing { .. } => 2.0,
      };
      o[8] = a.facing[0];
      o[9] = a.facing[1];
    }
    Ok(())
  }

  /// The crowd's state as bytes for the world digest, in agent order.
  pub fn digest_into(&self, out: &mut Vec<u8>) {
    for (id, a) in &self.agents {
      out.extend(id.to_le_bytes());
      for v in a.pos.iter().chain(a.vel.iter()).chain(a.facing.iter()).chain(a.target.iter()) {
        out.extend(v.to_bits().to_le_bytes());
      }
      out.push(match a.mode {
        Mode::Idle => 0,
        Mode::Moving => 1,
        Mode::Crossing { .. } => 2,
      });
    }
  }

  /// Whether agent `id` walks (or crosses a link) toward a target.
  pub fn moving(&self, id: u32) -> bool {
    self.agents.get(&id).is_some_and(|a| a.mode != Mode::Idle)
  }

  pub fn located(&self, id: u32) -> Option<Located> {
    let a = self.agents.get(&id)?;
    a.poly.map(|poly| Located { poly, point: a.pos })
  }
}

pub const STATE_FLOATS: usize = 10;

/// Moves from `from` toward `to` across the mesh's floors, a column at a
/// time along x then z; where the next column has no connected floor the
/// move stops at the cell's edge, so the point slides along walls and never
/// leaves the mesh. Returns the point reached, at its floor's height.
pub fn slide(mesh: &NavMesh, from: V3, to: V3) -> V3 {
  let cs = mesh.params.cell_size;
  let (mut gx, mut gz) = mesh.cell_at(from[0], from[2]);
  let floor_near = |gx: i32, gz: i32, y: f32| -> Option<tile::Floor> {
    let (t, x, z) = mesh.cell_home(gx, gz)?;
    mesh.tiles[t].column(x, z).iter().filter(|f| (f.y - y).abs() <= mesh.params.agent_height).min_by(|a, b| (a.y - y).abs().total_cmp(&(b.y - y).abs())).copied()
  };
  let Some(mut floor) = floor_near(gx, gz, from[1]) else {
    // Off the mesh: come back to its nearest point.
    return mesh.locate(from, reach(mesh)).map_or(from, |l| l.point);
  };
  let e = cs * 1e-3;
  let mut p = [from[0], floor.y, from[2]];
  for axis in [0usize, 2] {
    let target = to[axis];
    loop {
      let (cell, line) = if axis == 0 { (gx, mesh.line_x(gx)) } else { (gz, mesh.line_z(gz)) };
      let (lo, hi) = (line, line + cs);
      if target >= lo && target < hi {
        p[axis] = target;
        break;
      }
      let step = if target >= hi { 1 } else { -1 };
      let (nx, nz) = if axis == 0 { (cell + step, gz) } else { (gx, cell + step) };
      match floor_near(nx, nz, floor.y).filter(|f| tile::connects(&mesh.params, floor.y, floor.ceil, f.y, f.ceil)) {
        Some(f) => {
          floor = f;
          if axis == 0 {
            gx = nx;
          } else {
            gz = nz;
          }
        }
        None => {
          p[axis] = if step > 0 { hi - e } else { lo + e };
          break;
        }
      }
    }
  }
  p[1] = floor.y;
  p
}

#[cfg(test)]
mod neighbour_tests {
  use super::*;

  #[test]
  fn the_dense_grid_and_the_sorted_list_find_the_same_neighbours() {
    let mut seed = 0x1234_5678u32;
    let mut next = move || {
      seed ^= seed << 13;
      seed ^= seed >> 17;
      seed ^= seed << 5;
      seed as f32 / u32::MAX as f32
    };
    for (n, spread) in [(1usize, 5.0f32), (40, 4.0), (300, 40.0), (500, 100.0), (200, 3000.0)] {
      let mut dense = Scratch::default();
      for i in 0..n {
        // Some agents share a spot, some sit on cell boundaries, some are far below the others.
        let (x, z) = if i % 17 == 3 { (3.0, -6.0) } else { ((next() - 0.5) * spread, (next() - 0.5) * spread) };
        dense.bodies.push(Body { position: [x, z], velocity: [0.0; 2], radius: 0.35 });
        dense.heights.push(if i % 11 == 0 { -5.0 } else { next() * 2.5 });
      }
      let mut sorted = Scratch { bodies: dense.bodies.clone(), heights: dense.heights.clone(), ..Scratch::default() };
      dense.find_neighbours(3.0, 10, true);
      sorted.find_neighbours(3.0, 10, false);
      assert_eq!(dense.neighbours, sorted.neighbours, "{n} agents over {spread} m");
      assert!(n < 40 || dense.neighbours.iter().any(|l| l.len() == 10), "lists fill up in a dense crowd");
    }
  }
}
