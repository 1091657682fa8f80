//! The JSON stream's transform columns for its full-view group, built off
//! the loop: what the group was last sent, and each tick's `moved`,
//! `turned` and `changed` members as the JSON text
//! `js/src/mcp/state-sync.ts` describes (ids in the entity table's order,
//! transforms as base64 float32 bytes). The rest of a JSON delta (created,
//! restyled, destroyed, animation, world) is written by the engine's JS.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use base64::Engine as _;

use crate::known::Row;

/// The full-view group's transforms as last sent.
#[derive(Default)]
pub struct JsonGroup {
  /// The entities' ids as JSON strings (quoted), in the entity table's order.
  ids: Arc<Vec<String>>,
  rows: Vec<Row>,
}

/// One column: the ids and their floats.
#[derive(Default)]
struct Column {
  ids: Vec<u32>,
  floats: Vec<u8>,
}

impl Column {
  fn push(&mut self, i: usize, row: &Row, fields: &[usize]) {
    self.ids.push(i as u32);
    for &f in fields {
      self.floats.extend_from_slice(&row[f].to_le_bytes());
    }
  }

  fn write(&self, out: &mut String, name: &str, values: &str, ids: &[String]) {
    let _ = write!(out, "\"{name}\":{{\"ids\":[");
    for (n, &i) in self.ids.iter().enumerate() {
      if n > 0 {
        out.push(',');
      }
      out.push_str(&ids[i as usize]);
    }
    let _ = write!(out, "],\"{values}\":\"");
    base64::engine::general_purpose::STANDARD.encode_string(&self.floats, out);
    out.push_str("\"}");
  }
}

/// Position, the rotation's y and w (a turn about the vertical axis), everything.
const MOVED: [usize; 3] = [0, 1, 2];
const TURNED: [usize; 5] = [0, 1, 2, 4, 6];
const CHANGED: [usize; 10] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

impl JsonGroup {
  /// Takes the group to `rows`, the transforms of the live entities `ids`
  /// (JSON strings, in the entity table's order). Returns the members
  /// `"moved":…,"turned":…,"changed":…` and whether any entity the group
  /// knew changed its transform. Entities it did not know are taken as they
  /// are (the delta's `created` carries them); those gone are forgotten.
  pub fn advance(&mut self, ids: &Arc<Vec<String>>, rows: Vec<Row>) -> (String, bool) {
    // The entity set changed: where each live entity was in the last one.
    let before: Option<Vec<Option<usize>>> = (!Arc::ptr_eq(&self.ids, ids)).then(|| {
      let at: HashMap<&str, usize> = self.ids.iter().enumerate().map(|(k, id)| (id.as_str(), k)).collect();
      ids.iter().map(|id| at.get(id.as_str()).copied()).collect()
    });
    let (mut moved, mut turned, mut changed) = (Column::default(), Column::default(), Column::default());
    for (i, row) in rows.iter().enumerate() {
      let k = before.as_ref().map_or(Some(i), |b| b[i]);
      let Some(prev) = k.and_then(|k| self.rows.get(k)) else { continue };
      // Compared as the JS stream compares numbers: NaN always differs, -0 equals +0.
      let differs = |range: std::ops::Range<usize>| range.into_iter().any(|f| prev[f] != row[f]);
      let (shifted, rotated, scaled) = (differs(0..3), differs(3..7), differs(7..10));
      if rotated && !scaled && row[3].to_bits() == 0 && row[5].to_bits() == 0 {
        turned.push(i, row, &TURNED);
      } else if rotated || scaled {
        changed.push(i, row, &CHANGED);
      } else if shifted {
        moved.push(i, row, &MOVED);
      }
    }
    let any = !(moved.ids.is_empty() && turned.ids.is_empty() && changed.ids.is_empty());
    let mut out = String::with_capacity(64 + (moved.ids.len() + turned.ids.len() + changed.ids.len()) * 12 + (moved.floats.len() + turned.floats.len() + changed.floats.len()) * 4 / 3);
    moved.write(&mut out, "moved", "positions", ids);
    out.push(',');
    turned.write(&mut out, "turned", "transforms", ids);
    out.push(',');
    changed.write(&mut out, "changed", "transforms", ids);
    self.ids = ids.clone();
    self.rows = rows;
    (out, any)
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  const STILL: Row = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];

  fn ids(n: &[u32]) -> Arc<Vec<String>> {
    Arc::new(n.iter().map(|i| format!("\"ent_{i}\"")).collect())
  }

  fn b64(floats: &[f32]) -> String {
    let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    base64::engine::general_purpose::STANDARD.encode(bytes)
  }

  #[test]
  fn each_change_goes_to_its_column_in_table_order_and_new_entities_to_none() {
    let mut g = JsonGroup::default();
    let first = ids(&[3, 1, 2]);
    let (text, any) = g.advance(&first, vec![STILL; 3]);
    assert!(!any, "entities new to the group are the delta's `created`");
    assert_eq!(text, r#""moved":{"ids":[],"positions":""},"turned":{"ids":[],"transforms":""},"changed":{"ids":[],"transforms":""}"#);
    let mut walk = STILL;
    walk[0] = 1.5;
    let mut turn = STILL;
    turn[4] = 0.6;
    turn[6] = 0.8;
    let mut tilt = STILL;
    tilt[3] = 0.6;
    tilt[6] = 0.8;
    let (text, any) = g.advance(&first, vec![turn, walk, tilt]);
    assert!(any);
    let expected = format!(
      r#""moved":{{"ids":["ent_1"],"positions":"{}"}},"turned":{{"ids":["ent_3"],"transforms":"{}"}},"changed":{{"ids":["ent_2"],"transforms":"{}"}}"#,
      b64(&[1.5, 0.0, 0.0]),
      b64(&[0.0, 0.0, 0.0, 0.6, 0.8]),
      b64(&tilt),
    );
    assert_eq!(text, expected);
    // Same state again: nothing changed.
    assert!(!g.advance(&first, vec![turn, walk, tilt]).1);
  }

  #[test]
  fn a_scaled_or_negative_zero_turn_is_changed_and_nan_always_differs_but_a_signed_zero_never() {
    let mut g = JsonGroup::default();
    let set = ids(&[1, 2, 3, 4]);
    g.advance(&set, vec![STILL; 4]);
    let mut turn_scaled = STILL;
    turn_scaled[4] = 0.6;
    turn_scaled[9] = 2.0;
    let mut turn_neg_zero = STILL;
    turn_neg_zero[4] = 0.6;
    turn_neg_zero[3] = -0.0;
    let mut nan = STILL;
    nan[1] = f32::NAN;
    let mut zero = STILL;
    zero[0] = -0.0;
    let (text, _) = g.advance(&set, vec![turn_scaled, turn_neg_zero, nan, zero]);
    assert!(text.contains(r#""changed":{"ids":["ent_1","ent_2"]"#), "{text}");
    assert!(text.contains(r#""moved":{"ids":["ent_3"]"#), "{text}");
    let (text, _) = g.advance(&set, vec![turn_scaled, turn_neg_zero, nan, STILL]);
    assert!(text.contains(r#""moved":{"ids":["ent_3"]"#) && !text.contains("ent_4"), "{text}");
  }

  #[test]
  fn a_changed_entity_set_compares_each_entity_with_its_own_last_row() {
    let mut g = JsonGroup::default();
    let mut a = STILL;
    a[0] = 1.0;
    let mut b = STILL;
    b[0] = 2.0;
    g.advance(&ids(&[1, 2]), vec![a, b]);
    // ent_1 destroyed, ent_3 created, ent_2 unchanged though its index moved.
    let (text, any) = g.advance(&ids(&[2, 3]), vec![b, a]);
    assert!(!any, "{text}");
    let mut b2 = b;
    b2[1] = 1.0;
    let (text, any) = g.advance(&ids(&[3, 2]), vec![a, b2]);
    assert!(any && text.starts_with(r#""moved":{"ids":["ent_2"]"#), "{text}");
  }
}
