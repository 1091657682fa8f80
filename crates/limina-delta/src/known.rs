//! Frames, what a client knows, and the walk that compares them.

use std::sync::Arc;

/// Floats per entity: position, rotation (quaternion x y z w), scale.
pub const STRIDE: usize = 10;
/// One entity's transform as the world holds it: `px py pz rx ry rz rw sx sy sz`.
pub type Row = [f32; STRIDE];

/// The world at one tick.
pub struct Frame {
  pub tick: u64,
  /// Epoch milliseconds at the tick's fan-out (clients measure delivery latency from it).
  pub sent_at: f64,
  /// Live entities' `ent_` numbers, ascending; shared while the entity set does not change.
  pub ids: Arc<Vec<u64>>,
  /// Their transforms, in the same order.
  pub rows: Vec<Row>,
}

/// What a client holds: entities (ascending ids) and their rows in its encoding, as of `tick`.
pub struct Known<R> {
  pub tick: u64,
  pub ids: Arc<Vec<u64>>,
  pub rows: Vec<R>,
}

impl<R> Known<R> {
  pub fn empty() -> Self {
    Self { tick: 0, ids: Arc::new(Vec::new()), rows: Vec::new() }
  }
}

/// One entity's fate between a known state and the current frame (indices into each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
  /// In the frame, not known: index into the frame.
  Created { cur: usize },
  /// In both.
  Kept { known: usize, cur: usize },
  /// Known, gone from the frame (or from the client's view): index into the known state.
  Removed { known: usize },
}

/// Walks a known state's ids against the frame's, restricted to `visible`
/// (ascending indices into the frame; all of it when `None`), in id order.
pub fn walk(known: &[u64], cur: &[u64], visible: Option<&[u32]>, mut f: impl FnMut(Change)) {
  let n = visible.map_or(cur.len(), <[u32]>::len);
  let at = |j: usize| visible.map_or(j, |v| v[j] as usize);
  let (mut k, mut j) = (0, 0);
  while k < known.len() || j < n {
    let c = (j < n).then(|| at(j));
    match (known.get(k), c) {
      (Some(&a), Some(c)) if a == cur[c] => {
        f(Change::Kept { known: k, cur: c });
        k += 1;
        j += 1;
      }
      (Some(&a), Some(c)) if a > cur[c] => {
        f(Change::Created { cur: c });
        j += 1;
      }
      (Some(_), _) => {
        f(Change::Removed { known: k });
        k += 1;
      }
      (None, Some(c)) => {
        f(Change::Created { cur: c });
        j += 1;
      }
      (None, None) => unreachable!("the loop runs while either side has entities"),
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  fn changes(known: &[u64], cur: &[u64], visible: Option<&[u32]>) -> Vec<Change> {
    let mut out = Vec::new();
    walk(known, cur, visible, |c| out.push(c));
    out
  }

  #[test]
  fn the_walk_pairs_ids_in_order() {
    use Change::*;
    assert_eq!(
      changes(&[1, 3, 5, 9], &[2, 3, 9, 10], None),
      vec![Removed { known: 0 }, Created { cur: 0 }, Kept { known: 1, cur: 1 }, Removed { known: 2 }, Kept { known: 3, cur: 2 }, Created { cur: 3 }]
    );
    assert_eq!(changes(&[], &[4, 7], None), vec![Created { cur: 0 }, Created { cur: 1 }]);
    assert_eq!(changes(&[4, 7], &[], None), vec![Removed { known: 0 }, Removed { known: 1 }]);
  }

  #[test]
  fn the_walk_sees_only_the_visible_part_of_the_frame() {
    use Change::*;
    // Entities 3 and 9 are in the frame but outside the view: known 3 is removed, 9 never appears.
    assert_eq!(changes(&[3, 5], &[3, 5, 9, 11], Some(&[1, 3])), vec![Removed { known: 0 }, Kept { known: 1, cur: 1 }, Created { cur: 3 }]);
  }
}
