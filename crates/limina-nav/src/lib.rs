//! Navigation for Limina: a tiled navmesh baked from a physics world's
//! static colliders (boxes, balls, capsules, cylinders, cones, convex
//! hulls, triangle meshes, heightfields, half-spaces, compounds of them),
//! rebuilt tile by tile when that geometry changes; path queries (A* over
//! its polygons, then the funnel) with area costs and off-mesh links; and a
//! crowd of agents following paths with reciprocal (ORCA) avoidance, which
//! may drive physics characters. Every result is the same bits on every
//! machine: single-threaded, fixed iteration orders, no fused or libm
//! arithmetic in anything that feeds a position. The typed JS face is
//! `js/nav.ts`.

mod crowd;
mod geometry;
mod math;
mod navmesh;
mod ops;
mod orca;
mod params;
mod query;
mod raster;
mod tile;
mod world;

pub use crowd::{AgentDesc, Crowd, CrowdEvent};
pub use navmesh::NavMesh;
pub use params::{AreaVolume, Bounds, NavParams, OffMeshLink};
pub use query::PathResult;
pub use world::NavWorld;

deno_core::extension!(
  limina_nav,
  deps = [limina_ops, limina_physics],
  ops = [
    ops::op_nav_world_create,
    ops::op_nav_world_drop,
    ops::op_nav_build,
    ops::op_nav_refresh,
    ops::op_nav_counts,
    ops::op_nav_find_path,
    ops::op_nav_reachable,
    ops::op_nav_connected_batch,
    ops::op_nav_nearest,
    ops::op_nav_agent_add,
    ops::op_nav_agent_remove,
    ops::op_nav_agent_target,
    ops::op_nav_agent_stop,
    ops::op_nav_agent_place,
    ops::op_nav_crowd_step,
    ops::op_nav_agent_states,
    ops::op_nav_crowd_events,
    ops::op_nav_snapshot,
    ops::op_nav_restore,
    ops::op_nav_digest_bytes,
    ops::op_nav_polygons,
  ],
);

#[cfg(test)]
mod tests;

#[cfg(test)]
mod bench;
