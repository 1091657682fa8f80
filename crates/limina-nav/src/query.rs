//! Path queries: A* over the polygon graph (entering each polygon at the
//! middle of the portal crossed, lengths weighted by area costs), then the
//! funnel — string pulling through the corridor's portals — for the
//! shortest path inside it, off-mesh links taken as they are. Ties break on
//! polygon order, so the same query always gives the same path.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::math::{self, V3};
use crate::navmesh::{Located, NavMesh, PolyRef};
use crate::tile::Link;

/// One polygon of a corridor and the link that led into it (`None` for the first).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
  pub poly: PolyRef,
  pub via: Option<Link>,
}

/// A found path, or the way to the reachable point nearest the goal.
#[derive(Clone, Debug, PartialEq)]
pub struct PathResult {
  pub found: bool,
  pub corridor: Vec<Step>,
  pub points: Vec<V3>,
}

impl PathResult {
  pub fn length(&self) -> f32 {
    self.points.windows(2).map(|w| math::dist(w[0], w[1])).sum()
  }
}

#[derive(Clone, Copy, PartialEq)]
struct Open {
  f: f32,
  node: u32,
}

impl Eq for Open {}

impl Ord for Open {
  // A max-heap: the lowest f (then the lowest node) comes out first.
  fn cmp(&self, o: &Self) -> Ordering {
    o.f.total_cmp(&self.f).then(o.node.cmp(&self.node))
  }
}

impl PartialOrd for Open {
  fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
    Some(self.cmp(o))
  }
}

const NONE: u32 = u32::MAX;

/// A* state sized to the mesh, reused between queries (a stamp clears it).
#[derive(Default)]
pub struct Search {
  stamp: Vec<u32>,
  closed: Vec<bool>,
  g: Vec<f32>,
  pos: Vec<V3>,
  parent: Vec<u32>,
  via: Vec<Option<Link>>,
  refs: Vec<PolyRef>,
  generation: u32,
  heap: BinaryHeap<Open>,
  /// Nodes expanded by the last query.
  pub expanded: u32,
}

impl Search {
  fn reset(&mut self, n: usize) {
    if self.stamp.len() != n {
      *self = Search { stamp: vec![0; n], closed: vec![false; n], g: vec![0.0; n], pos: vec![[0.0; 3]; n], parent: vec![NONE; n], via: vec![None; n], refs: vec![0; n], ..Default::default() };
    }
    self.generation = self.generation.wrapping_add(1);
    if self.generation == 0 {
      self.stamp.iter_mut().for_each(|s| *s = 0);
      self.generation = 1;
    }
    self.heap.clear();
    self.expanded = 0;
  }

  fn seen(&self, i: usize) -> bool {
    self.stamp[i] == self.generation
  }

  /// The corridor from `start` to `goal` (or to the polygon nearest the goal when unreachable).
  pub fn corridor(&mut self, mesh: &NavMesh, start: &Located, goal: &Located) -> (bool, Vec<Step>) {
    self.reset(mesh.poly_count as usize);
    let hscale = mesh.params.min_area_cost();
    let s = mesh.dense(start.poly);
    let goal_node = mesh.dense(goal.poly);
    self.open(s, start.poly, 0.0, start.point, NONE, None);
    self.heap.push(Open { f: math::dist(start.point, goal.point) * hscale, node: s as u32 });
    let mut best = (math::dist(start.point, goal.point), s);
    let mut found = false;
    while let Some(Open { node, .. }) = self.heap.pop() {
      let i = node as usize;
      if self.closed[i] {
        continue;
      }
      self.closed[i] = true;
      self.expanded += 1;
      if i == goal_node {
        found = true;
        break;
      }
      let here = self.refs[i];
      let cost_here = mesh.params.area_cost(mesh.poly(here).map_or(0, |p| p.area));
      for link in mesh.links_of(here) {
        let j = mesh.dense(link.to);
        if self.seen(j) && self.closed[j] {
          continue;
        }
        let (entry, step) = if link.offmesh != u16::MAX {
          let placed = &mesh.links[link.offmesh as usize];
          let end = if placed.to_poly == link.to { placed.to } else { placed.from };
          (end, math::dist(self.pos[i], link.left) * cost_here + placed.cost)
        } else {
          let mid = math::lerp(link.left, link.right, 0.5);
          (mid, math::dist(self.pos[i], mid) * cost_here)
        };
        let mut g = self.g[i] + step;
        if j == goal_node {
          let area = mesh.poly(link.to).map_or(0, |p| p.area);
          g += math::dist(entry, goal.point) * mesh.params.area_cost(area);
        }
        if self.seen(j) && g >= self.g[j] {
          continue;
        }
        self.open(j, link.to, g, entry, node, Some(*link));
        let h = math::dist(entry, goal.point);
        if h < best.0 {
          best = (h, j);
        }
        self.heap.push(Open { f: g + h * hscale, node: j as u32 });
      }
    }
    let end = if found { goal_node } else { best.1 };
    let mut steps = Vec::new();
    let mut i = end as u32;
    while i != NONE {
      steps.push(Step { poly: self.refs[i as usize], via: self.via[i as usize] });
      i = self.parent[i as usize];
    }
    steps.reverse();
    (found, steps)
  }

  fn open(&mut self, i: usize, r: PolyRef, g: f32, pos: V3, parent: u32, via: Option<Link>) {
    self.stamp[i] = self.generation;
    self.closed[i] = false;
    self.g[i] = g;
    self.pos[i] = pos;
    self.parent[i] = parent;
    self.via[i] = via;
    self.refs[i] = r;
  }
}

/// The shortest path from `start` to `end` through `portals` (left, right as
/// seen going forward), at most `max` corners after the start (0: all).
pub fn string_pull(start: V3, end: V3, portals: &[(V3, V3)], max: usize, out: &mut Vec<V3>) {
  string_pull_by(start, end, portals.len(), |i| portals[i], max, out)
}

/// `string_pull` over `count` portals read by `portal_at` (no copy of them made).
#[inline]
pub fn string_pull_by(start: V3, end: V3, count: usize, portal_at: impl Fn(usize) -> (V3, V3), max: usize, out: &mut Vec<V3>) {
  let first = out.len();
  out.push(start);
  let n = count + 1;
  let portal = |i: usize| if i < count { portal_at(i) } else { (end, end) };
  let (mut apex, mut left, mut right) = (start, start, start);
  let (mut left_i, mut right_i) = (0usize, 0usize);
  let mut i = 0usize;
  let full = |out: &Vec<V3>| max > 0 && out.len() - first > max;
  while i < n {
    let (l, r) = portal(i);
    // Tighten the right side: r must turn left of (or onto) the current right edge.
    if math::cross_xz(math::sub(right, apex), math::sub(r, apex)) <= 0.0 {
      if same(apex, right) || math::cross_xz(math::sub(left, apex), math::sub(r, apex)) > 0.0 {
        right = r;
        right_i = i + 1;
      } else {
        // r crossed the left edge: the left point is a corner.
        apex = left;
        push_corner(out, apex);
        if full(out) {
          return;
        }
        let k = left_i;
        right = apex;
        right_i = k;
        left_i = k;
        i = k;
        continue;
      }
    }
    if math::cross_xz(math::sub(left, apex), math::sub(l, apex)) >= 0.0 {
      if same(apex, left) || math::cross_xz(math::sub(right, apex), math::sub(l, apex)) < 0.0 {
        left = l;
        left_i = i + 1;
      } else {
        apex = right;
        push_corner(out, apex);
        if full(out) {
          return;
        }
        let k = right_i;
        left = apex;
        left_i = k;
        right_i = k;
        i = k;
        continue;
      }
    }
    i += 1;
  }
  push_corner(out, end);
}

fn same(a: V3, b: V3) -> bool {
  (a[0] - b[0]).abs() < 1e-6 && (a[2] - b[2]).abs() < 1e-6
}

fn push_corner(out: &mut Vec<V3>, p: V3) {
  if out.last().is_none_or(|q| !same(*q, p)) {
    out.push(p);
  }
}

/// The path's corners along `corridor` from `start` to `end`, crossing off-mesh links as they come.
pub fn corners(mesh: &NavMesh, start: V3, end: V3, corridor: &[Step], max: usize) -> Vec<V3> {
  let mut out = Vec::new();
  corners_into(mesh, start, end, corridor, max, &mut out, &mut Vec::new());
  out
}

/// `corners` into reused buffers: `out` (cleared first) receives the corners,
/// `portals` is scratch.
pub fn corners_into(mesh: &NavMesh, start: V3, end: V3, corridor: &[Step], max: usize, out: &mut Vec<V3>, portals: &mut Vec<(V3, V3)>) {
  out.clear();
  portals.clear();
  let mut from = start;
  for step in corridor.iter().skip(1) {
    let Some(link) = step.via else { continue };
    if link.offmesh == u16::MAX {
      portals.push((link.left, link.right));
      continue;
    }
    let placed = &mesh.links[link.offmesh as usize];
    let (a, b) = if placed.to_poly == link.to { (placed.from, placed.to) } else { (placed.to, placed.from) };
    string_pull(from, a, portals, 0, out);
    portals.clear();
    from = b;
    if max > 0 && out.len() > max {
      out.truncate(max + 1);
      return;
    }
  }
  string_pull(from, end, portals, max, out);
  if max > 0 && out.len() > max + 1 {
    out.truncate(max + 1);
  }
}

/// A path between two points on the mesh.
pub fn find_path(mesh: &NavMesh, search: &mut Search, start: &Located, goal: &Located) -> PathResult {
  let (found, corridor) = search.corridor(mesh, start, goal);
  let end = if found {
    goal.point
  } else {
    let last = corridor.last().map_or(start.poly, |s| s.poly);
    let [x0, z0, x1, z1] = mesh.rect(last);
    let e = mesh.params.cell_size * 1e-3;
    let (x, z) = (goal.point[0].clamp(x0 + e, x1 - e), goal.point[2].clamp(z0 + e, z1 - e));
    [x, mesh.height(last, x, z), z]
  };
  let points = corners(mesh, start.point, end, &corridor, 0);
  PathResult { found, corridor, points }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn the_funnel_goes_straight_when_nothing_is_in_the_way() {
    // Corridor along +x through three portals, each 2 m wide across z.
    let portals: Vec<(V3, V3)> = (1..=3).map(|i| ([i as f32, 0.0, -1.0], [i as f32, 0.0, 1.0])).collect();
    let mut out = Vec::new();
    string_pull([0.0, 0.0, 0.0], [4.0, 0.0, 0.0], &portals, 0, &mut out);
    assert_eq!(out, vec![[0.0, 0.0, 0.0], [4.0, 0.0, 0.0]]);
  }

  #[test]
  fn the_funnel_bends_round_a_corner() {
    // Going +x, then a narrow portal near +z forces the path up to it.
    let portals = vec![([1.0, 0.0, 2.0], [1.0, 0.0, 1.5]), ([2.0, 0.0, 0.5], [2.0, 0.0, -0.5])];
    // Facing +x, the left is -z: portal 1 spans z 1.5 (right) .. 2.0 (left)? Left must be the -z end.
    let portals: Vec<(V3, V3)> = portals.into_iter().map(|(a, b)| if a[2] < b[2] { (a, b) } else { (b, a) }).collect();
    let mut out = Vec::new();
    string_pull([0.0, 0.0, 0.0], [3.0, 0.0, 0.0], &portals, 0, &mut out);
    assert_eq!(out.len(), 4, "{out:?}");
    assert_eq!(out[1], [1.0, 0.0, 1.5]);
    assert_eq!(out[2], [2.0, 0.0, 0.5]);
  }
}
