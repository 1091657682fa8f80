//! Terrain in the physics world: heightfield colliders for terrain tiles,
//! compound colliders for scattered props (trunks, rocks), and buoyancy and
//! drag for dynamic bodies in water. Each is a static body with a handle
//! like any other, so snapshots, raycasts and the digest see it.

use deno_core::{op2, OpState};
use limina_ops::OpError;
use rapier3d::math::Vector;
use rapier3d::parry::utils::Array2;
use rapier3d::prelude::*;

use crate::ops::world;
use crate::world::{BodyEntry, BodyKind, PhysicsWorld};

/// A heightfield's heights: `rows` along z by `cols` along x, row-major by z.
pub(crate) fn heightfield(heights: &[f32], rows: u32, cols: u32, size_x: f32, size_z: f32) -> Result<SharedShape, OpError> {
  let (r, c) = (rows as usize, cols as usize);
  if r < 2 || c < 2 || heights.len() != r * c {
    return Err(OpError::invalid_input(format!("a heightfield needs at least 2×2 heights, {rows}×{cols} of them; got {}", heights.len())));
  }
  if !heights.iter().all(|h| h.is_finite()) || !(size_x.is_finite() && size_x > 0.0 && size_z.is_finite() && size_z > 0.0) {
    return Err(OpError::invalid_input("heightfield heights and sizes must be finite (sizes positive)"));
  }
  // Rapier's heightfield is column-major with rows along z.
  let mut data = vec![0.0f32; r * c];
  for z in 0..r {
    for x in 0..c {
      data[z + x * r] = heights[z * c + x];
    }
  }
  Ok(SharedShape::heightfield(Array2::new(r, c, data), Vector::new(size_x, 1.0, size_z)))
}

/// One prop's collider: an upright capsule (a trunk) or a ball (a rock), in world space.
#[derive(Debug, Clone, Copy, serde::Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum PropShape {
  Capsule { position: [f32; 3], #[serde(rename = "halfHeight")] half_height: f32, radius: f32 },
  Ball { position: [f32; 3], radius: f32 },
}

/// A body of water: a level, and a disc (`radius` 0: everywhere).
#[derive(Debug, Clone, Copy)]
pub struct Water {
  pub level: f32,
  pub center: [f32; 2],
  pub radius: f32,
}

impl PhysicsWorld {
  fn insert_static(&mut self, collider: Collider, position: [f32; 3]) -> Result<u32, OpError> {
    let body = RigidBodyBuilder::fixed().translation(Vector::from_array(position)).build();
    let handle = self.next_handle;
    self.next_handle = self.next_handle.checked_add(1).ok_or_else(|| OpError::capacity_exceeded("physics body handles exhausted"))?;
    let (body, collider) = self.rapier.insert(body, collider);
    self.by_collider.insert(collider, handle);
    let spawn = (position, [0.0, 0.0, 0.0, 1.0]);
    self.bodies.insert(handle, BodyEntry { body, colliders: vec![collider], kind: BodyKind::Static, eid: None, spawn });
    Ok(handle)
  }

  /// Brings scene queries (raycasts) up to date with colliders added or changed since the
  /// last step, without advancing the simulation.
  pub fn refresh_queries(&mut self) {
    self.detect_collisions_now();
  }

  /// A static heightfield body centred at `center` spanning `size_x` × `size_z` metres.
  pub fn create_heightfield(&mut self, heights: &[f32], rows: u32, cols: u32, size_x: f32, size_z: f32, center: [f32; 3], friction: f32) -> Result<u32, OpError> {
    if !center.iter().all(|v| v.is_finite()) || !(friction.is_finite() && friction >= 0.0) {
      return Err(OpError::invalid_input("heightfield centre and friction must be finite (friction ≥ 0)"));
    }
    let collider = ColliderBuilder::new(heightfield(heights, rows, cols, size_x, size_z)?).friction(friction).active_events(ActiveEvents::COLLISION_EVENTS).build();
    self.insert_static(collider, center)
  }

  /// Replaces a heightfield body's heights (same grid and size): what a deformation does.
  pub fn set_heightfield(&mut self, handle: u32, heights: &[f32]) -> Result<(), OpError> {
    let entry = self.bodies.get(&handle).ok_or_else(|| OpError::not_found(format!("unknown physics body {handle}")))?;
    let collider = self.rapier.colliders.get_mut(entry.colliders[0]).ok_or_else(|| OpError::not_found(format!("body {handle} has no collider")))?;
    let hf = collider.shape().as_heightfield().ok_or_else(|| OpError::invalid_input(format!("body {handle} is not a heightfield")))?;
    let (rows, cols) = (hf.nrows() as u32 + 1, hf.ncols() as u32 + 1);
    let scale = hf.scale();
    let shape = heightfield(heights, rows, cols, scale.x, scale.z)?;
    collider.set_shape(shape);
    // Bodies resting on the old surface must notice the new one.
    for b in self.rapier.bodies.iter_mut().map(|(_, b)| b) {
      if b.is_dynamic() {
        b.wake_up(true);
      }
    }
    Ok(())
  }

  /// A static body holding one compound collider of every prop shape (none: an error).
  pub fn create_props(&mut self, props: &[PropShape], friction: f32) -> Result<u32, OpError> {
    if props.is_empty() {
      return Err(OpError::invalid_input("no prop shapes"));
    }
    let mut parts = Vec::with_capacity(props.len());
    for p in props {
      let (pos, shape) = match *p {
        PropShape::Capsule { position, half_height, radius } => (position, SharedShape::capsule_y(half_height, radius)),
        PropShape::Ball { position, radius } => (position, SharedShape::ball(radius)),
      };
      let ok = pos.iter().all(|v| v.is_finite()) && match *p {
        PropShape::Capsule { half_height, radius, .. } => half_height > 0.0 && radius > 0.0 && half_height.is_finite() && radius.is_finite(),
        PropShape::Ball { radius, .. } => radius > 0.0 && radius.is_finite(),
      };
      if !ok {
        return Err(OpError::invalid_input(format!("bad prop shape {p:?}")));
      }
      parts.push((Pose::from_translation(Vector::from_array(pos)), shape));
    }
    let collider = ColliderBuilder::compound(parts).friction(friction).build();
    self.insert_static(collider, [0.0; 3])
  }

  /// Buoyancy and drag on every dynamic body whose collider dips below a water surface:
  /// an upward impulse of `buoyancy` × its weight × the submerged share of its bounding
  /// box's height, and linear and angular velocity damped by `drag` per second in that
  /// share. Returns how many bodies were in water.
  pub fn apply_water(&mut self, waters: &[Water], buoyancy: f32, drag: f32, dt: f32) -> Result<u32, OpError> {
    if !(buoyancy.is_finite() && buoyancy >= 0.0 && drag.is_finite() && drag >= 0.0 && dt.is_finite() && dt > 0.0) {
      return Err(OpError::invalid_input("buoyancy, drag and dt must be finite and non-negative (dt positive)"));
    }
    let g = self.rapier.gravity.length();
    let mut wet = 0;
    for entry in self.bodies.values() {
      if entry.kind != BodyKind::Dynamic {
        continue;
      }
      let Some(aabb) = entry.colliders.iter().filter_map(|c| self.rapier.colliders.get(*c)).map(|c| c.compute_aabb()).reduce(|a, b| a.merged(&b)) else { continue };
      let (lo, hi) = (aabb.mins, aabb.maxs);
      let cx = (lo.x + hi.x) * 0.5;
      let cz = (lo.z + hi.z) * 0.5;
      let Some(level) = waters
        .iter()
        .filter(|w| w.radius <= 0.0 || { let (dx, dz) = (cx - w.center[0], cz - w.center[1]); dx * dx + dz * dz <= w.radius * w.radius })
        .map(|w| w.level)
        .reduce(f32::max)
      else {
        continue;
      };
      if lo.y >= level {
        continue;
      }
      let height = (hi.y - lo.y).max(1e-6);
      let share = ((level - lo.y) / height).min(1.0);
      let body = &mut self.rapier.bodies[entry.body];
      let mass = body.mass();
      body.apply_impulse(Vector::new(0.0, buoyancy * mass * g * share * dt, 0.0), true);
      let keep = (1.0 - drag * share * dt).max(0.0);
      let (v, w) = (body.linvel(), body.angvel());
      body.set_linvel(v * keep, true);
      body.set_angvel(w * keep, true);
      wet += 1;
    }
    Ok(wet)
  }
}

/// A static heightfield body: `heights` row-major by z (`rows` along z, `cols` along x),
/// spanning `sx` × `sz` metres, centred at (cx, cy, cz); returns its handle.
#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_physics_create_heightfield(state: &mut OpState, id: u32, #[buffer] heights: &[f32], rows: u32, cols: u32, sx: f32, sz: f32, cx: f32, cy: f32, cz: f32, friction: f32) -> Result<u32, OpError> {
  world(state, id)?.create_heightfield(heights, rows, cols, sx, sz, [cx, cy, cz], friction)
}

/// New heights for a heightfield body (same grid).
#[op2(fast)]
pub fn op_physics_set_heightfield(state: &mut OpState, id: u32, handle: u32, #[buffer] heights: &[f32]) -> Result<(), OpError> {
  world(state, id)?.set_heightfield(handle, heights)
}

/// A static body of prop colliders (see [`PropShape`]); returns its handle.
#[op2]
pub fn op_physics_create_props(state: &mut OpState, id: u32, #[serde] props: serde_json::Value, friction: f32) -> Result<u32, OpError> {
  let props: Vec<PropShape> = serde_json::from_value(props).map_err(|e| OpError::invalid_input(format!("bad prop shapes: {e}")))?;
  world(state, id)?.create_props(&props, friction)
}

/// Brings raycasts up to date with colliders added or changed since the last step (a restored world's too).
#[op2(fast)]
pub fn op_physics_refresh_queries(state: &mut OpState, id: u32) -> Result<(), OpError> {
  world(state, id)?.refresh_queries();
  Ok(())
}

/// Buoyancy and drag for this step; `waters` holds `[level, cx, cz, radius]` per body of water.
#[op2(fast)]
pub fn op_physics_apply_water(state: &mut OpState, id: u32, #[buffer] waters: &[f32], buoyancy: f32, drag: f32, dt: f32) -> Result<u32, OpError> {
  let waters: Vec<Water> = waters.chunks_exact(4).map(|w| Water { level: w[0], center: [w[1], w[2]], radius: w[3] }).collect();
  world(state, id)?.apply_water(&waters, buoyancy, drag, dt)
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::world::BodyDesc;

  fn ball(position: [f32; 3]) -> BodyDesc {
    serde_json::from_value(serde_json::json!({ "kind": "dynamic", "shape": { "type": "sphere", "radius": 0.5 }, "position": position, "eid": 1 })).unwrap()
  }

  /// A 5×5 tilted plane h = 0.25·x + 0.5·z over 8 m × 8 m centred at the origin.
  fn tilted() -> Vec<f32> {
    (0..25).map(|i| ((i % 5) as f32 * 2.0 - 4.0) * 0.25 + ((i / 5) as f32 * 2.0 - 4.0) * 0.5).collect()
  }

  #[test]
  fn a_ray_meets_the_heightfield_where_the_heights_say() {
    let mut w = PhysicsWorld::new();
    let h = w.create_heightfield(&tilted(), 5, 5, 8.0, 8.0, [0.0; 3], 0.8).unwrap();
    w.step(1.0 / 60.0).unwrap();
    for (x, z) in [(0.3f32, -1.7f32), (-3.1, 2.2), (1.0, 1.0)] {
      let hit = w.raycast([x, 50.0, z], [0.0, -1.0, 0.0], 100.0, true).unwrap().unwrap();
      assert_eq!(hit.handle, h);
      let expect = x * 0.25 + z * 0.5;
      assert!((hit.point[1] - expect).abs() < 1e-4, "({x}, {z}): {} vs {expect}", hit.point[1]);
    }
    // Raised by a deformation: the same ray now stops higher.
    let raised: Vec<f32> = tilted().iter().map(|v| v + 3.0).collect();
    w.set_heightfield(h, &raised).unwrap();
    w.refresh_queries();
    let hit = w.raycast([0.3, 50.0, -1.7], [0.0, -1.0, 0.0], 100.0, true).unwrap().unwrap();
    assert!((hit.point[1] - (0.3 * 0.25 - 1.7 * 0.5 + 3.0)).abs() < 1e-4);
    assert!(w.set_heightfield(h, &[0.0; 3]).is_err());
    let restored = PhysicsWorld::restore(&w.snapshot().unwrap()).unwrap();
    assert_eq!(restored.digest_bytes(), w.digest_bytes());
    let again = restored.raycast([0.3, 50.0, -1.7], [0.0, -1.0, 0.0], 100.0, true).unwrap().unwrap();
    assert_eq!(again.point, hit.point, "a snapshot keeps the heightfield");
  }

  #[test]
  fn a_ball_comes_to_rest_on_a_heightfield() {
    let mut w = PhysicsWorld::new();
    let flat: Vec<f32> = vec![2.0; 25];
    w.create_heightfield(&flat, 5, 5, 8.0, 8.0, [0.0; 3], 0.8).unwrap();
    let b = w.create_body(&ball([0.5, 6.0, 0.5])).unwrap();
    for _ in 0..300 {
      w.step(1.0 / 60.0).unwrap();
    }
    let s = w.body_state(b).unwrap();
    assert!((s.position[1] - 2.5).abs() < 0.05 && s.linear_velocity[1].abs() < 0.05, "{s:?}");
  }

  #[test]
  fn water_floats_a_ball_and_props_stop_rays() {
    let mut w = PhysicsWorld::new();
    let b = w.create_body(&ball([0.0, -3.0, 0.0])).unwrap();
    let sea = [Water { level: 0.0, center: [0.0, 0.0], radius: 0.0 }];
    for _ in 0..600 {
      w.apply_water(&sea, 2.0, 1.5, 1.0 / 60.0).unwrap();
      w.step(1.0 / 60.0).unwrap();
    }
    let y = w.body_state(b).unwrap().position[1];
    assert!(y > -0.6 && y < 0.6, "floats at the surface: {y}");
    let lake = [Water { level: 0.0, center: [100.0, 0.0], radius: 5.0 }];
    assert_eq!(w.apply_water(&lake, 2.0, 1.5, 1.0 / 60.0).unwrap(), 0, "outside the lake's disc");
    let props = w.create_props(&[PropShape::Capsule { position: [5.0, 2.0, 0.0], half_height: 1.5, radius: 0.3 }, PropShape::Ball { position: [-5.0, 0.5, 0.0], radius: 1.0 }], 0.7).unwrap();
    w.step(1.0 / 60.0).unwrap();
    let hit = w.raycast([-5.0, 10.0, 0.0], [0.0, -1.0, 0.0], 100.0, true).unwrap().unwrap();
    assert_eq!(hit.handle, props);
    assert!((hit.point[1] - 1.5).abs() < 1e-4);
  }
}
