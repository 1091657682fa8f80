//! Thin ops over the navigation worlds in `OpState`. Ops that bake or step
//! read the world session's physics world too (the static geometry, the
//! characters), named by its id.

use deno_core::{op2, OpState};
use limina_ops::resources::{resource_mut, Handles};
use limina_ops::OpError;
use limina_physics::{PhysicsWorld, TransformColumns};

use crate::crowd::{AgentDesc, CrowdEvent, STATE_FLOATS};
use crate::params::NavParams;
use crate::world::NavWorld;

fn nav(state: &mut OpState, id: u32) -> Result<&mut NavWorld, OpError> {
  resource_mut::<Handles<NavWorld>>(state).get_mut(id, "navigation world")
}

/// Runs `f` with navigation world `id` and physics world `physics` borrowed together.
fn with_both<T>(state: &mut OpState, id: u32, physics: u32, f: impl FnOnce(&mut NavWorld, &mut PhysicsWorld) -> Result<T, OpError>) -> Result<T, OpError> {
  let mut taken = std::mem::take(nav(state, id)?);
  let result = resource_mut::<Handles<PhysicsWorld>>(state).get_mut(physics, "physics world").and_then(|p| f(&mut taken, p));
  *nav(state, id)? = taken;
  result
}

#[op2(fast)]
pub fn op_nav_world_create(state: &mut OpState) -> u32 {
  resource_mut::<Handles<NavWorld>>(state).insert(NavWorld::default())
}

#[op2(fast)]
pub fn op_nav_world_drop(state: &mut OpState, id: u32) -> bool {
  resource_mut::<Handles<NavWorld>>(state).remove(id).is_some()
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildResult {
  polygons: u32,
  tiles: u32,
  tiles_x: u32,
  tiles_z: u32,
  cell_size: f32,
  bounds: crate::params::Bounds,
}

/// Bakes the navmesh over the physics world's static colliders; a malformed
/// description or a world too large is an error and keeps the mesh there was.
#[op2]
#[serde]
pub fn op_nav_build(state: &mut OpState, id: u32, physics: u32, #[serde] params: serde_json::Value) -> Result<BuildResult, OpError> {
  let params: NavParams = serde_json::from_value(params).map_err(|e| OpError::invalid_input(format!("bad navmesh parameters: {e}")))?;
  with_both(state, id, physics, |nav, world| {
    let mesh = nav.build(world, params)?;
    let (polygons, tiles) = mesh.counts();
    Ok(BuildResult { polygons, tiles, tiles_x: mesh.tiles_x as u32, tiles_z: mesh.tiles_z as u32, cell_size: mesh.params.cell_size, bounds: mesh.bounds })
  })
}

/// Rebuilds the tiles under static colliders that changed; returns how many.
#[op2(fast)]
pub fn op_nav_refresh(state: &mut OpState, id: u32, physics: u32) -> Result<u32, OpError> {
  with_both(state, id, physics, |nav, world| Ok(nav.refresh(world)))
}

/// Whether a navmesh is baked, with its polygon and tile counts (-1, -1 when none).
#[op2(fast)]
pub fn op_nav_counts(state: &mut OpState, id: u32, #[buffer] out: &mut [f64]) -> Result<bool, OpError> {
  let n = nav(state, id)?;
  let Some(mesh) = n.mesh.as_ref() else { return Ok(false) };
  let (p, t) = mesh.counts();
  if out.len() >= 3 {
    out[0] = p as f64;
    out[1] = t as f64;
    out[2] = mesh.revision as f64;
  }
  Ok(true)
}

/// A path from (fx, fy, fz) to (tx, ty, tz): writes `[found, length, x0, y0, z0, x1, …]`
/// and returns the number of points (-1 when either end is off the mesh). When
/// `out` is too small the points are cut short: call again with room for the count returned.
#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_nav_find_path(state: &mut OpState, id: u32, fx: f32, fy: f32, fz: f32, tx: f32, ty: f32, tz: f32, #[buffer] out: &mut [f64]) -> Result<i32, OpError> {
  let Some(path) = nav(state, id)?.find_path([fx, fy, fz], [tx, ty, tz])? else { return Ok(-1) };
  if out.len() >= 2 {
    out[0] = path.found as u8 as f64;
    out[1] = path.length() as f64;
  }
  for (k, p) in path.points.iter().enumerate() {
    let o = 2 + 3 * k;
    if o + 3 > out.len() {
      break;
    }
    for c in 0..3 {
      out[o + c] = p[c] as f64;
    }
  }
  Ok(path.points.len() as i32)
}

/// 1 when a walk from one point to the other exists, 0 when not, -1 when either is off the mesh.
#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_nav_reachable(state: &mut OpState, id: u32, fx: f32, fy: f32, fz: f32, tx: f32, ty: f32, tz: f32) -> Result<i32, OpError> {
  Ok(match nav(state, id)?.reachable([fx, fy, fz], [tx, ty, tz])? {
    Some(true) => 1,
    Some(false) => 0,
    None => -1,
  })
}

/// Island connectivity for many pairs at once (`[fx, fy, fz, tx, ty, tz]` each):
/// 1 connected, 0 not, 2 an end off the mesh (3 for every pair when there is no navmesh).
#[op2(fast)]
pub fn op_nav_connected_batch(state: &mut OpState, id: u32, #[buffer] pairs: &[f32], #[buffer] out: &mut [u8]) -> Result<(), OpError> {
  let n = nav(state, id)?;
  if out.len() * 6 < pairs.len() {
    return Err(OpError::invalid_input(format!("{} pairs need {} result slots, got {}", pairs.len() / 6, pairs.len() / 6, out.len())));
  }
  for (k, q) in pairs.chunks_exact(6).enumerate() {
    out[k] = if n.mesh.is_none() {
      3
    } else {
      match n.connected([q[0], q[1], q[2]], [q[3], q[4], q[5]]) {
        Some(true) => 1,
        Some(false) => 0,
        None => 2,
      }
    };
  }
  Ok(())
}

/// The nearest point of the mesh to (x, y, z), written to `out`; false when none is near.
#[op2(fast)]
pub fn op_nav_nearest(state: &mut OpState, id: u32, x: f32, y: f32, z: f32, #[buffer] out: &mut [f64]) -> Result<bool, OpError> {
  let Some(l) = nav(state, id)?.locate([x, y, z])? else { return Ok(false) };
  for c in 0..3.min(out.len()) {
    out[c] = l.point[c] as f64;
  }
  Ok(true)
}

/// Adds a crowd agent from a JSON description; returns its id.
#[op2]
pub fn op_nav_agent_add(state: &mut OpState, id: u32, #[serde] desc: serde_json::Value) -> Result<u32, OpError> {
  let desc: AgentDesc = serde_json::from_value(desc).map_err(|e| OpError::invalid_input(format!("bad agent description: {e}")))?;
  nav(state, id)?.crowd.add(desc)
}

#[op2(fast)]
pub fn op_nav_agent_remove(state: &mut OpState, id: u32, agent: u32) -> Result<bool, OpError> {
  Ok(nav(state, id)?.crowd.remove(agent))
}

/// Sends an agent toward (x, y, z) at up to `speed` (negative: its own top speed).
#[op2(fast)]
pub fn op_nav_agent_target(state: &mut OpState, id: u32, agent: u32, x: f32, y: f32, z: f32, speed: f32) -> Result<(), OpError> {
  let n = nav(state, id)?;
  let mesh = n.mesh.as_ref().ok_or_else(|| OpError::unavailable("no navmesh: build one first (nav.build)"))?;
  n.crowd.set_target(mesh, agent, [x, y, z], (speed >= 0.0).then_some(speed))
}

#[op2(fast)]
pub fn op_nav_agent_stop(state: &mut OpState, id: u32, agent: u32) -> Result<(), OpError> {
  nav(state, id)?.crowd.stop(agent)
}

#[op2(fast)]
pub fn op_nav_agent_place(state: &mut OpState, id: u32, agent: u32, x: f32, y: f32, z: f32) -> Result<(), OpError> {
  nav(state, id)?.crowd.place(agent, [x, y, z])
}

/// One crowd step: agents' feet and facing into the SoA columns, characters' velocities set.
#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_nav_crowd_step(
  state: &mut OpState,
  id: u32,
  physics: u32,
  dt: f32,
  #[buffer] px: &mut [f32],
  #[buffer] py: &mut [f32],
  #[buffer] pz: &mut [f32],
  #[buffer] rx: &mut [f32],
  #[buffer] ry: &mut [f32],
  #[buffer] rz: &mut [f32],
  #[buffer] rw: &mut [f32],
) -> Result<u32, OpError> {
  with_both(state, id, physics, |nav, world| {
    let mut soa = TransformColumns { px, py, pz, rx, ry, rz, rw };
    nav.crowd.step(nav.mesh.as_ref(), world, dt, &mut soa)
  })
}

/// Per agent of `agents`: position, velocity, speed, mode and facing ([`STATE_FLOATS`] floats each).
#[op2(fast)]
pub fn op_nav_agent_states(state: &mut OpState, id: u32, #[buffer] agents: &[u32], #[buffer] out: &mut [f32]) -> Result<u32, OpError> {
  nav(state, id)?.crowd.states(agents, out)?;
  Ok(STATE_FLOATS as u32)
}

/// Arrivals and failures since the last drain, in order.
#[op2]
#[serde]
pub fn op_nav_crowd_events(state: &mut OpState, id: u32) -> Result<Vec<CrowdEvent>, OpError> {
  Ok(nav(state, id)?.crowd.drain_events())
}

#[op2]
#[buffer]
pub fn op_nav_snapshot(state: &mut OpState, id: u32) -> Result<Vec<u8>, OpError> {
  nav(state, id)?.snapshot()
}

/// Replaces navigation world `id` with a snapshot's, its mesh baked over physics world `physics`.
#[op2(fast)]
pub fn op_nav_restore(state: &mut OpState, id: u32, physics: u32, #[buffer] bytes: &[u8]) -> Result<(), OpError> {
  with_both(state, id, physics, |nav, world| {
    *nav = NavWorld::restore(bytes, world)?;
    Ok(())
  })
}

#[op2]
#[buffer]
pub fn op_nav_digest_bytes(state: &mut OpState, id: u32) -> Result<Vec<u8>, OpError> {
  Ok(nav(state, id)?.digest_bytes())
}

/// The polygons as little-endian f32 rows `[x0, y, z0, x1, z1, area]` (y: the floor at the rectangle's centre), for drawing.
#[op2]
#[buffer]
pub fn op_nav_polygons(state: &mut OpState, id: u32) -> Result<Vec<u8>, OpError> {
  let n = nav(state, id)?;
  let mesh = n.mesh()?;
  let mut out = Vec::with_capacity(mesh.poly_count as usize * 24);
  for (t, tile) in mesh.tiles.iter().enumerate() {
    for p in 0..tile.polys.len() {
      let r = crate::navmesh::poly_ref(t, p as u16);
      let [x0, z0, x1, z1] = mesh.rect(r);
      let y = mesh.height(r, (x0 + x1) * 0.5, (z0 + z1) * 0.5);
      for v in [x0, y, z0, x1, z1, tile.polys[p].area as f32] {
        out.extend(v.to_le_bytes());
      }
    }
  }
  Ok(out)
}
