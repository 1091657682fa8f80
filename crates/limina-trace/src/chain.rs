//! The world log's sha256 chain, computed natively and off the frame path.
//!
//! `hash(ev) = "sha256:" + hex(sha256(canonical(ev without integrity) + (previousHash ?? "")))`
//! where `canonical` is JSON with object keys sorted (by UTF-16 code units,
//! as JS sorts them), no whitespace, strings escaped and numbers formatted
//! exactly as JavaScript's `JSON.stringify` does. The first event's
//! `previousHash` is null; every later one chains the hash before it.

use std::fmt::Write as _;

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Why a JSONL trace failed verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IntegrityReason {
  InvalidJson,
  PartialFinalLine,
  MissingIntegrity,
  PreviousHashMismatch,
  HashMismatch,
}

impl IntegrityReason {
  pub fn as_str(self) -> &'static str {
    match self {
      Self::InvalidJson => "invalid_json",
      Self::PartialFinalLine => "partial_final_line",
      Self::MissingIntegrity => "missing_integrity",
      Self::PreviousHashMismatch => "previous_hash_mismatch",
      Self::HashMismatch => "hash_mismatch",
    }
  }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct IntegrityError {
  pub reason: IntegrityReason,
  /// 1-based line of the offending event.
  pub line: usize,
  pub message: String,
}

impl std::fmt::Display for IntegrityError {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    write!(f, "{} at line {}: {}", self.reason.as_str(), self.line, self.message)
  }
}

/// What an intact trace holds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifiedTrace {
  pub events: usize,
  pub last_hash: Option<String>,
}

/// Appends `value` as canonical JSON.
pub fn canonical_json(value: &Value, out: &mut String) {
  match value {
    Value::Null => out.push_str("null"),
    Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
    Value::Number(n) => {
      if let Some(i) = n.as_i64() {
        write_js_number(i as f64, out);
      } else if let Some(u) = n.as_u64() {
        write_js_number(u as f64, out);
      } else {
        write_js_number(n.as_f64().unwrap_or(f64::NAN), out);
      }
    }
    Value::String(s) => write_js_string(s, out),
    Value::Array(items) => {
      out.push('[');
      for (i, item) in items.iter().enumerate() {
        if i > 0 {
          out.push(',');
        }
        canonical_json(item, out);
      }
      out.push(']');
    }
    Value::Object(map) => {
      let mut entries: Vec<(&String, &Value)> = map.iter().collect();
      // UTF-16 order differs from byte order only when a key has a
      // character above U+FFFF; compare bytes unless one does.
      if entries.iter().all(|(k, _)| k.chars().all(|c| (c as u32) < 0x10000)) {
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
      } else {
        entries.sort_unstable_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
      }
      out.push('{');
      for (i, (key, value)) in entries.into_iter().enumerate() {
        if i > 0 {
          out.push(',');
        }
        write_js_string(key, out);
        out.push(':');
        canonical_json(value, out);
      }
      out.push('}');
    }
  }
}

/// A number as `JSON.stringify` writes it (non-finite numbers become null).
fn write_js_number(v: f64, out: &mut String) {
  if v.is_finite() {
    out.push_str(ryu_js::Buffer::new().format_finite(v));
  } else {
    out.push_str("null");
  }
}

/// A string as `JSON.stringify` writes it. Runs of bytes that need no
/// escape are copied whole.
fn write_js_string(s: &str, out: &mut String) {
  out.push('"');
  let bytes = s.as_bytes();
  let mut run = 0;
  for (i, &b) in bytes.iter().enumerate() {
    let escape = match b {
      b'"' => "\\\"",
      b'\\' => "\\\\",
      0x08 => "\\b",
      0x0c => "\\f",
      b'\n' => "\\n",
      b'\r' => "\\r",
      b'\t' => "\\t",
      0..=0x1f => "",
      _ => continue,
    };
    // Escapable bytes are ASCII, so `run..i` ends on a char boundary.
    out.push_str(&s[run..i]);
    if escape.is_empty() {
      let _ = write!(out, "\\u{b:04x}");
    } else {
      out.push_str(escape);
    }
    run = i + 1;
  }
  out.push_str(&s[run..]);
  out.push('"');
}

/// `"sha256:" + hex(sha256(canonical + (previous ?? "")))`.
pub fn chain_hash(canonical: &str, previous: Option<&str>) -> String {
  let mut h = Sha256::new();
  h.update(canonical.as_bytes());
  if let Some(p) = previous {
    h.update(p.as_bytes());
  }
  let digest = h.finalize();
  let mut out = String::with_capacity(7 + 64);
  out.push_str("sha256:");
  for b in digest {
    let _ = write!(out, "{b:02x}");
  }
  out
}

/// Seals events into JSONL lines continuing the chain after `previous`:
/// each line is the event's canonical JSON with `integrity: {hash,
/// previousHash}` appended as its last field. Returns the lines (each
/// newline-terminated) and the last hash.
pub fn seal(events: Vec<Value>, mut previous: Option<String>) -> Result<(String, Option<String>), String> {
  let mut jsonl = String::new();
  for (i, mut event) in events.into_iter().enumerate() {
    let Value::Object(map) = &mut event else {
      return Err(format!("event {i} is not an object"));
    };
    map.remove("integrity");
    let start = jsonl.len();
    canonical_json(&event, &mut jsonl);
    let hash = chain_hash(&jsonl[start..], previous.as_deref());
    jsonl.pop(); // the closing brace
    if jsonl.len() > start + 1 {
      jsonl.push(',');
    }
    jsonl.push_str("\"integrity\":{\"hash\":\"");
    jsonl.push_str(&hash);
    jsonl.push_str("\",\"previousHash\":");
    match &previous {
      Some(p) => {
        jsonl.push('"');
        jsonl.push_str(p);
        jsonl.push('"');
      }
      None => jsonl.push_str("null"),
    }
    jsonl.push_str("}}\n");
    previous = Some(hash);
  }
  Ok((jsonl, previous))
}

/// Verifies a JSONL trace: every line parses, carries integrity, links to
/// the line before it, and hashes to what it claims.
pub fn verify(text: &str) -> Result<VerifiedTrace, IntegrityError> {
  let mut previous: Option<String> = None;
  let mut events = 0;
  let fail = |reason, line, message: String| Err(IntegrityError { reason, line, message });
  if text.is_empty() {
    return Ok(VerifiedTrace { events: 0, last_hash: None });
  }
  let complete = text.ends_with('\n');
  let body = text.strip_suffix('\n').unwrap_or(text);
  let lines: Vec<&str> = body.split('\n').collect();
  let mut canonical = String::new();
  for (idx, raw) in lines.iter().enumerate() {
    let line = idx + 1;
    let is_last = idx + 1 == lines.len();
    let mut event: Value = match serde_json::from_str(raw) {
      Ok(v) => v,
      Err(e) if is_last && !complete => {
        return fail(IntegrityReason::PartialFinalLine, line, format!("the final line is cut short (no newline, {e})"))
      }
      Err(e) => return fail(IntegrityReason::InvalidJson, line, format!("not valid JSON: {e}")),
    };
    let Value::Object(map) = &mut event else {
      return fail(IntegrityReason::InvalidJson, line, "an event must be a JSON object".to_owned());
    };
    let Some(integrity) = map.remove("integrity") else {
      return fail(IntegrityReason::MissingIntegrity, line, "no integrity field".to_owned());
    };
    let claimed_hash = integrity.get("hash").and_then(Value::as_str).map(str::to_owned);
    let claimed_prev = match integrity.get("previousHash") {
      Some(Value::Null) => Some(None),
      Some(Value::String(s)) => Some(Some(s.clone())),
      _ => None,
    };
    let (Some(claimed_hash), Some(claimed_prev)) = (claimed_hash, claimed_prev) else {
      return fail(IntegrityReason::MissingIntegrity, line, "integrity needs a string hash and a previousHash (string or null)".to_owned());
    };
    if claimed_prev != previous {
      return fail(
        IntegrityReason::PreviousHashMismatch,
        line,
        format!("previousHash is {claimed_prev:?}, the chain expects {previous:?}"),
      );
    }
    canonical.clear();
    canonical_json(&event, &mut canonical);
    let actual = chain_hash(&canonical, previous.as_deref());
    if actual != claimed_hash {
      return fail(IntegrityReason::HashMismatch, line, format!("hash is {claimed_hash}, the content hashes to {actual}"));
    }
    if !complete && is_last {
      return fail(IntegrityReason::PartialFinalLine, line, "the final line has no terminating newline".to_owned());
    }
    previous = Some(actual);
    events += 1;
  }
  Ok(VerifiedTrace { events, last_hash: previous })
}

#[cfg(test)]
mod tests {
  use super::*;

  fn canon(v: Value) -> String {
    let mut s = String::new();
    canonical_json(&v, &mut s);
    s
  }

  #[test]
  fn canonical_form_matches_json_stringify_with_sorted_keys() {
    let v = serde_json::json!({"b": [1, 2.5, -0.0, 1e21, 1e-7, 123456789012345680000.0], "a": {"z": null, "é": "x\ny\u{1}\"", "A": true}});
    assert_eq!(
      canon(v),
      r#"{"a":{"A":true,"z":null,"é":"x\ny\u0001\""},"b":[1,2.5,0,1e+21,1e-7,123456789012345680000]}"#
    );
  }

  #[test]
  fn keys_sort_by_utf16_code_units_like_js() {
    // U+FF5E sorts after U+1F600 in UTF-8 byte order but before it in UTF-16.
    let v = serde_json::json!({"\u{1F600}": 1, "\u{FF5E}": 2});
    assert_eq!(canon(v), "{\"\u{1F600}\":1,\"\u{FF5E}\":2}");
  }

  fn sealed(n: usize) -> String {
    let events = (0..n).map(|i| serde_json::json!({"id": format!("evt_{i}"), "type": "t", "payload": {"i": i}})).collect();
    seal(events, None).unwrap().0
  }

  #[test]
  fn sealed_traces_verify_and_chain_from_genesis() {
    let text = sealed(3);
    let v = verify(&text).unwrap();
    assert_eq!(v.events, 3);
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["integrity"]["previousHash"], Value::Null);
    assert_eq!(verify("").unwrap().events, 0);
  }

  #[test]
  fn each_kind_of_damage_is_named_with_its_line() {
    let text = sealed(3);
    let lines: Vec<&str> = text.lines().collect();
    let reason = |t: &str| verify(t).unwrap_err();

    let e = reason(&format!("{}\n{{oops\n{}\n", lines[0], lines[2]));
    assert_eq!((e.reason, e.line), (IntegrityReason::InvalidJson, 2));

    let e = reason(&text[..text.len() - 10]);
    assert_eq!((e.reason, e.line), (IntegrityReason::PartialFinalLine, 3));

    let e = reason(&format!("{}\n{{\"id\":\"x\"}}\n", lines[0]));
    assert_eq!((e.reason, e.line), (IntegrityReason::MissingIntegrity, 2));

    let e = reason(&format!("{}\n{}\n", lines[0], lines[2]));
    assert_eq!((e.reason, e.line), (IntegrityReason::PreviousHashMismatch, 2));

    let e = reason(&text.replacen("\"i\":1", "\"i\":7", 1));
    assert_eq!((e.reason, e.line), (IntegrityReason::HashMismatch, 2));
  }
}
