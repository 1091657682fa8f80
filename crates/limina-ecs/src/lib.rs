//! Native ECS hot paths over the JS-owned SoA buffers: ops that borrow the
//! typed arrays in place for the duration of one call.

mod adaptive;
mod spatial_grid;

use deno_core::{op2, OpState};
use limina_ops::OpError;

pub use spatial_grid::{Index, SpatialGrid};

/// The batched radius query: indexes `eids` (insertion order) at their
/// positions in the SoA columns (kept from the last call when neither they
/// nor their positions changed), answers every `[x, y, z, radius, selfEid]`
/// query and writes the results packed (`offsets` has N + 1 entries).
/// Returns the total result count; when it exceeds the output capacity the
/// results are incomplete — grow the buffers and call again.
#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_ecs_spatial_query_batch(
  state: &mut OpState,
  #[buffer] x: &[f32],
  #[buffer] y: &[f32],
  #[buffer] z: &[f32],
  #[buffer] eids: &[u32],
  cell_size: f64,
  #[buffer] queries: &[f64],
  #[buffer] offsets: &mut [u32],
  #[buffer] out_eids: &mut [u32],
  #[buffer] out_dist: &mut [f64],
) -> Result<u32, OpError> {
  let grid = limina_ops::resources::resource_mut::<SpatialGrid>(state);
  let total = grid.query_batch(&Index { eids, x, y, z, cell_hint: cell_size }, queries, offsets, out_eids, out_dist)?;
  u32::try_from(total).map_err(|_| OpError::capacity_exceeded(format!("{total} results exceed the u32 range")))
}

deno_core::extension!(
  limina_ecs,
  deps = [limina_ops],
  ops = [op_ecs_spatial_query_batch],
);
