//! Reciprocal velocity obstacles (ORCA, van den Berg et al. 2011): each
//! agent picks the velocity nearest the one it wants that keeps it clear of
//! every neighbour for `horizon` seconds, assuming each neighbour takes half
//! the effort — a 2D linear program over half-planes, with a fallback that
//! minimises the worst violation when the constraints cannot all hold.

pub type V2 = [f32; 2];

const EPS: f32 = 1e-5;

#[inline]
fn det(a: V2, b: V2) -> f32 {
  a[0] * b[1] - a[1] * b[0]
}
#[inline]
fn dot(a: V2, b: V2) -> f32 {
  a[0] * b[0] + a[1] * b[1]
}
#[inline]
fn sub(a: V2, b: V2) -> V2 {
  [a[0] - b[0], a[1] - b[1]]
}
#[inline]
fn add(a: V2, b: V2) -> V2 {
  [a[0] + b[0], a[1] + b[1]]
}
#[inline]
fn mul(a: V2, s: f32) -> V2 {
  [a[0] * s, a[1] * s]
}
#[inline]
fn abs_sq(a: V2) -> f32 {
  dot(a, a)
}
fn normalize(a: V2) -> V2 {
  let l = abs_sq(a).sqrt();
  if l > 0.0 {
    mul(a, 1.0 / l)
  } else {
    a
  }
}

/// The half-plane of allowed velocities: left of `direction` through `point`.
#[derive(Clone, Copy, Debug)]
pub struct Line {
  pub point: V2,
  pub direction: V2,
}

/// What an agent knows of itself and of one neighbour.
#[derive(Clone, Copy, Debug)]
pub struct Body {
  pub position: V2,
  pub velocity: V2,
  pub radius: f32,
}

/// The ORCA half-plane `me` must keep to so as not to meet `other` within `horizon` seconds.
pub fn constraint(me: &Body, other: &Body, horizon: f32, dt: f32) -> Line {
  let rel_pos = sub(other.position, me.position);
  let rel_vel = sub(me.velocity, other.velocity);
  let dist_sq = abs_sq(rel_pos);
  let r = me.radius + other.radius;
  let r_sq = r * r;
  let (direction, u);
  if dist_sq > r_sq {
    let inv_h = 1.0 / horizon;
    // Relative velocity minus the cut-off circle's centre.
    let w = sub(rel_vel, mul(rel_pos, inv_h));
    let w_len_sq = abs_sq(w);
    let dot1 = dot(w, rel_pos);
    if dot1 < 0.0 && dot1 * dot1 > r_sq * w_len_sq {
      // Project on the cut-off circle.
      let w_len = w_len_sq.sqrt();
      let unit_w = mul(w, 1.0 / w_len);
      direction = [unit_w[1], -unit_w[0]];
      u = mul(unit_w, r * inv_h - w_len);
    } else {
      // Project on a leg of the cone.
      let leg = (dist_sq - r_sq).sqrt();
      direction = if det(rel_pos, w) > 0.0 {
        mul([rel_pos[0] * leg - rel_pos[1] * r, rel_pos[0] * r + rel_pos[1] * leg], 1.0 / dist_sq)
      } else {
        mul([rel_pos[0] * leg + rel_pos[1] * r, -rel_pos[0] * r + rel_pos[1] * leg], -1.0 / dist_sq)
      };
      u = sub(mul(direction, dot(rel_vel, direction)), rel_vel);
    }
  } else {
    // Already overlapping: get apart within this step.
    let inv_dt = 1.0 / dt;
    let w = sub(rel_vel, mul(rel_pos, inv_dt));
    let w_len = abs_sq(w).sqrt();
    let unit_w = if w_len > EPS { mul(w, 1.0 / w_len) } else { [1.0, 0.0] };
    direction = [unit_w[1], -unit_w[0]];
    u = mul(unit_w, r * inv_dt - w_len);
  }
  Line { point: add(me.velocity, mul(u, 0.5)), direction }
}

fn lp1(lines: &[Line], no: usize, radius: f32, opt: V2, direction_opt: bool, result: &mut V2) -> bool {
  let line = lines[no];
  let dot_p = dot(line.point, line.direction);
  let disc = dot_p * dot_p + radius * radius - abs_sq(line.point);
  if disc < 0.0 {
    return false;
  }
  let sqrt_disc = disc.sqrt();
  let mut t_left = -dot_p - sqrt_disc;
  let mut t_right = -dot_p + sqrt_disc;
  for other in &lines[..no] {
    let denom = det(line.direction, other.direction);
    let numer = det(other.direction, sub(line.point, other.point));
    if denom.abs() <= EPS {
      if numer < 0.0 {
        return false;
      }
      continue;
    }
    let t = numer / denom;
    if denom >= 0.0 {
      t_right = t_right.min(t);
    } else {
      t_left = t_left.max(t);
    }
    if t_left > t_right {
      return false;
    }
  }
  let t = if direction_opt {
    if dot(opt, line.direction) > 0.0 {
      t_right
    } else {
      t_left
    }
  } else {
    dot(line.direction, sub(opt, line.point)).clamp(t_left, t_right)
  };
  *result = add(line.point, mul(line.direction, t));
  true
}

/// The velocity within `radius` nearest `opt` (or furthest along it when
/// `direction_opt`) satisfying every line; returns how many lines held
/// before one could not (all of them: success).
fn lp2(lines: &[Line], radius: f32, opt: V2, direction_opt: bool, result: &mut V2) -> usize {
  *result = if direction_opt {
    mul(opt, radius)
  } else if abs_sq(opt) > radius * radius {
    mul(normalize(opt), radius)
  } else {
    opt
  };
  for i in 0..lines.len() {
    if det(lines[i].direction, sub(lines[i].point, *result)) > 0.0 {
      let saved = *result;
      if !lp1(lines, i, radius, opt, direction_opt, result) {
        *result = saved;
        return i;
      }
    }
  }
  lines.len()
}

/// When the lines cannot all hold: the velocity minimising the largest violation.
fn lp3(lines: &[Line], begin: usize, radius: f32, result: &mut V2, scratch: &mut Vec<Line>) {
  let mut distance = 0.0f32;
  for i in begin..lines.len() {
    if det(lines[i].direction, sub(lines[i].point, *result)) > distance {
      scratch.clear();
      for j in 0..i {
        let determinant = det(lines[i].direction, lines[j].direction);
        let point = if determinant.abs() <= EPS {
          if dot(lines[i].direction, lines[j].direction) > 0.0 {
            continue;
          }
          mul(add(lines[i].point, lines[j].point), 0.5)
        } else {
          add(lines[i].point, mul(lines[i].direction, det(lines[j].direction, sub(lines[i].point, lines[j].point)) / determinant))
        };
        scratch.push(Line { point, direction: normalize(sub(lines[j].direction, lines[i].direction)) });
      }
      let saved = *result;
      let opt = [-lines[i].direction[1], lines[i].direction[0]];
      if lp2(scratch, radius, opt, true, result) < scratch.len() {
        *result = saved;
      }
      distance = det(lines[i].direction, sub(lines[i].point, *result));
    }
  }
}

/// The new velocity for an agent wanting `preferred`, at most `max_speed`, under `lines`.
pub fn solve(lines: &[Line], preferred: V2, max_speed: f32, scratch: &mut Vec<Line>) -> V2 {
  let mut result = [0.0, 0.0];
  let held = lp2(lines, max_speed, preferred, false, &mut result);
  if held < lines.len() {
    lp3(lines, held, max_speed, &mut result, scratch);
  }
  result
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn two_agents_head_on_both_swerve_and_pass() {
    let mut a = Body { position: [-5.0, 0.0], velocity: [1.0, 0.0], radius: 0.4 };
    let mut b = Body { position: [5.0, 0.01], velocity: [-1.0, 0.0], radius: 0.4 };
    let dt = 0.1;
    let mut scratch = Vec::new();
    let mut closest = f32::MAX;
    for _ in 0..150 {
      let la = constraint(&a, &b, 2.0, dt);
      let lb = constraint(&b, &a, 2.0, dt);
      let va = solve(&[la], [1.0, 0.0], 1.5, &mut scratch);
      let vb = solve(&[lb], [-1.0, 0.0], 1.5, &mut scratch);
      a.velocity = va;
      b.velocity = vb;
      a.position = add(a.position, mul(va, dt));
      b.position = add(b.position, mul(vb, dt));
      closest = closest.min(abs_sq(sub(a.position, b.position)).sqrt());
    }
    assert!(closest >= 0.8 - 1e-3, "they never overlap: closest {closest}");
    assert!(a.position[0] > 4.0 && b.position[0] < -4.0, "and both get past: {:?} {:?}", a.position, b.position);
  }

  #[test]
  fn with_no_neighbours_the_preferred_velocity_is_kept_up_to_the_speed_limit() {
    let mut s = Vec::new();
    assert_eq!(solve(&[], [0.3, 0.4], 1.0, &mut s), [0.3, 0.4]);
    let v = solve(&[], [3.0, 4.0], 1.0, &mut s);
    assert!((abs_sq(v) - 1.0).abs() < 1e-6);
  }
}
