//! Deterministic terrain for Limina: seeded noise heightfields (fBm, ridged,
//! domain warp), droplet and thermal erosion, a climate model mapped to
//! biomes, deformation, Poisson-disk scatter and a content-addressed tile
//! cache. The same parameters give the same height bits on every machine
//! and thread count (see `noise` for the arithmetic rules). The typed JS face
//! is `js/terrain.ts`.

pub mod cache;
pub mod climate;
pub mod erosion;
pub mod noise;
mod ops;
pub mod region;
pub mod scatter;
pub mod sculpt;
pub mod surface;

deno_core::extension!(
  limina_terrain,
  deps = [limina_ops],
  ops = [
    ops::op_terrain_layout,
    ops::op_terrain_generate,
    ops::op_terrain_generate_now,
    ops::op_terrain_generate_sync,
    ops::op_terrain_digest,
    ops::op_terrain_classify,
    ops::op_terrain_deform,
    ops::op_terrain_scatter,
    ops::op_terrain_biomes,
    ops::op_terrain_algorithm_version,
  ],
);
