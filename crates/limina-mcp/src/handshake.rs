//! `--mcp-stdio`'s first reply, before V8 has started. A standard client's
//! first message is `initialize`, and its answer depends on nothing a world
//! holds: so while the loop thread restores the engine snapshot, the stdin
//! thread (`stdio::answer_first_line`) answers a first `initialize` it is
//! sure the JS server answers the same way, with the JS server's own reply:
//! made by `nativeHandshake()` (js/src/mcp/server.ts) when the engine
//! snapshot was made and stored beside it, with the request's id, protocol
//! revision and agent id filled in. The JS server then handles that
//! `initialize` as any other message (the same session, the same world-log
//! events), checks that its reply is the one sent, and sends nothing.
//!
//! The check is narrow on purpose. Anything else is the JS server's, as if
//! nothing had read it: not one JSON object, a batch, a notification, not
//! `initialize`, a member or parameter the check does not know (the Limina
//! dialect, `_meta`), a client name that is not plain printable ASCII or
//! reads as a reserved id, an id that is not a safe integer or a printable
//! ASCII string, nesting near the JS server's depth limit.

use serde_json::Value;

/// Where the reply's variable parts are, as JSON strings of the template.
const ID: &str = "\"{{id}}\"";
const VERSION: &str = "\"{{protocolVersion}}\"";
const AGENT: &str = "\"{{agentId}}\"";
/// Deepest nesting answered here (the JS server refuses 64 levels).
const MAX_DEPTH: usize = 16;
/// Ids beyond this are not kept exactly by a double (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// What the JS server answers a standard client's first `initialize`, for one profile.
#[derive(Debug)]
pub struct Handshake {
  /// The protocol revisions offered, the preferred first.
  versions: Vec<String>,
  /// Agent ids no client may take, in canonical form.
  reserved: Vec<String>,
  /// The agent id of a client that names no software.
  anonymous: String,
  /// The reply's text between and around its marks.
  pieces: Vec<String>,
  /// The marks, in the order they appear.
  marks: Vec<&'static str>,
}

#[derive(serde::Deserialize)]
struct Data {
  versions: Vec<String>,
  reserved: Vec<String>,
  anonymous: String,
  replies: std::collections::HashMap<String, String>,
}

impl Handshake {
  /// The handshake of `profile` in the data `nativeHandshake()` made; None
  /// when the data does not hold it as expected (the JS server then answers).
  pub fn new(data: &[u8], profile: &str) -> Option<Handshake> {
    let mut data: Data = serde_json::from_slice(data).ok()?;
    let template = data.replies.remove(profile)?;
    let mut found: Vec<(usize, &'static str)> = Vec::new();
    for mark in [ID, VERSION, AGENT] {
      let at: Vec<usize> = template.match_indices(mark).map(|(i, _)| i).collect();
      if at.len() != 1 {
        return None;
      }
      found.push((at[0], mark));
    }
    found.sort_unstable();
    let (mut pieces, mut from) = (Vec::new(), 0);
    for &(at, mark) in &found {
      pieces.push(template[from..at].to_owned());
      from = at + mark.len();
    }
    pieces.push(template[from..].to_owned());
    if data.versions.is_empty() {
      return None;
    }
    Some(Handshake { versions: data.versions, reserved: data.reserved, anonymous: data.anonymous, pieces, marks: found.into_iter().map(|(_, m)| m).collect() })
  }

  /// The JS server's reply to `line` as a connection's first message, when
  /// the narrow check above answers it; None: the JS server answers.
  pub fn answer(&self, line: &str) -> Option<String> {
    let Value::Object(msg) = serde_json::from_str::<Value>(line).ok()? else { return None };
    if msg.len() != 4 || msg.get("jsonrpc")?.as_str()? != "2.0" || msg.get("method")?.as_str()? != "initialize" {
      return None;
    }
    let id = match msg.get("id")? {
      Value::Number(n) => n.as_i64().filter(|i| i.unsigned_abs() <= MAX_SAFE_INTEGER)?.to_string(),
      Value::String(s) if printable(s) => Value::from(s.as_str()).to_string(),
      _ => return None,
    };
    let Value::Object(params) = msg.get("params")? else { return None };
    if depth(&msg["params"]) > MAX_DEPTH || params.keys().any(|k| !matches!(k.as_str(), "protocolVersion" | "capabilities" | "clientInfo")) {
      return None;
    }
    let asked = params.get("protocolVersion")?.as_str()?;
    if params.get("capabilities").is_some_and(|c| !c.is_object()) {
      return None;
    }
    let name = match params.get("clientInfo") {
      None => "",
      Some(Value::Object(client)) => match client.get("name") {
        None => "",
        Some(Value::String(s)) if printable(s) => s,
        Some(_) => return None,
      },
      Some(_) => return None,
    };
    let agent = if name.is_empty() { self.anonymous.as_str() } else { name };
    // Printable ASCII's canonical form (NFKC, case-folded) is its lower case.
    if self.reserved.iter().any(|r| *r == agent.to_ascii_lowercase()) {
      return None;
    }
    let version = self.versions.iter().find(|v| *v == asked).unwrap_or(&self.versions[0]);
    let mut reply = self.pieces[0].clone();
    for (mark, piece) in self.marks.iter().zip(&self.pieces[1..]) {
      match *mark {
        ID => reply.push_str(&id),
        VERSION => reply.push_str(&Value::from(version.as_str()).to_string()),
        _ => reply.push_str(&Value::from(agent).to_string()),
      }
      reply.push_str(piece);
    }
    Some(reply)
  }
}

/// Printable ASCII only: its JSON text is the same from serde_json and
/// `JSON.stringify`, and no invisible character can hide in it.
fn printable(s: &str) -> bool {
  s.bytes().all(|b| (0x20..0x7f).contains(&b))
}

fn depth(v: &Value) -> usize {
  match v {
    Value::Object(m) => 1 + m.values().map(depth).max().unwrap_or(0),
    Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
    _ => 0,
  }
}

#[cfg(test)]
mod tests {
  use super::Handshake;

  /// Shaped as `nativeHandshake()` makes it (js/src/mcp/server.ts); the JS
  /// server's own replies are compared with the host's in js/test/mcp_start.ts.
  fn handshake() -> Handshake {
    let reply = r#"{"jsonrpc":"2.0","id":"{{id}}","result":{"protocolVersion":"{{protocolVersion}}","session":{"agentId":"{{agentId}}","sessionId":"mcp-1","profile":"p"}}}"#;
    let data = serde_json::json!({ "versions": ["2025-11-25", "2024-11-05"], "reserved": ["system", "operator"], "anonymous": "mcp-client", "replies": { "p": reply } });
    Handshake::new(data.to_string().as_bytes(), "p").unwrap()
  }

  fn reply(id: &str, version: &str, agent: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"{version}","session":{{"agentId":"{agent}","sessionId":"mcp-1","profile":"p"}}}}}}"#)
  }

  #[test]
  fn a_standard_first_initialize_is_answered_with_its_id_revision_and_client_name() {
    let h = handshake();
    let ask = |line: &str| h.answer(line);
    assert_eq!(ask(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{"roots":{"listChanged":true},"x":[1,{"y":2}]},"clientInfo":{"name":"Claude Code","version":"1"}}}"#), Some(reply("1", "2024-11-05", "Claude Code")));
    // An unsupported revision gets the preferred one; no clientInfo, or no name, is the anonymous client.
    assert_eq!(ask(r#"{"method":"initialize","params":{"protocolVersion":"1999-01-01"},"id":"a \"q\" {{agentId}}","jsonrpc":"2.0"}"#), Some(reply(r#""a \"q\" {{agentId}}""#, "2025-11-25", "mcp-client")));
    assert_eq!(ask(r#" {"jsonrpc":"2.0","id":-9007199254740991,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{}}} "#), Some(reply("-9007199254740991", "2025-11-25", "mcp-client")));
  }

  #[test]
  fn anything_the_js_server_might_answer_otherwise_is_left_to_it() {
    let h = handshake();
    let std = |params: &str| format!(r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{params}}}"#);
    for line in [
      "".to_owned(),
      "{".to_owned(),
      format!("[{}]", std(r#"{"protocolVersion":"2025-11-25"}"#)),
      r#"{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#.to_owned(),
      r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}"#.to_owned(),
      r#"{"jsonrpc":"1.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#.to_owned(),
      r#"{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#.to_owned(),
      r#"{"jsonrpc":"2.0","id":9007199254740992,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#.to_owned(),
      r#"{"jsonrpc":"2.0","id":null,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#.to_owned(),
      r#"{"jsonrpc":"2.0","id":"é","method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#.to_owned(),
      r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"},"extra":1}"#.to_owned(),
      std("{}"),
      std(r#"{"protocolVersion":1}"#),
      std(r#"{"protocolVersion":"2025-11-25","_meta":{}}"#),
      std(r#"{"agentId":"a","sessionId":"s","profile":"p"}"#),
      std(r#"{"protocolVersion":"2025-11-25","capabilities":[]}"#),
      std(r#"{"protocolVersion":"2025-11-25","clientInfo":"x"}"#),
      std(r#"{"protocolVersion":"2025-11-25","clientInfo":{"name":7}}"#),
      std(r#"{"protocolVersion":"2025-11-25","clientInfo":{"name":"Operator"}}"#),
      std(r#"{"protocolVersion":"2025-11-25","clientInfo":{"name":"ｏperator"}}"#),
      std(r#"{"protocolVersion":"2025-11-25","clientInfo":{"name":"a\u200bb"}}"#),
      std(&format!(r#"{{"protocolVersion":"2025-11-25","capabilities":{}1{}}}"#, r#"{"a":"#.repeat(20), "}".repeat(20))),
    ] {
      assert_eq!(h.answer(&line), None, "{line}");
    }
  }

  #[test]
  fn data_without_the_profile_or_its_marks_answers_nothing() {
    let data = |reply: &str| serde_json::json!({ "versions": ["v"], "reserved": [], "anonymous": "c", "replies": { "p": reply } }).to_string();
    assert!(Handshake::new(data(r#""{{id}}" "{{protocolVersion}}" "{{agentId}}""#).as_bytes(), "q").is_none());
    assert!(Handshake::new(data(r#""{{id}}" "{{protocolVersion}}""#).as_bytes(), "p").is_none());
    assert!(Handshake::new(data(r#""{{id}}" "{{id}}" "{{protocolVersion}}" "{{agentId}}""#).as_bytes(), "p").is_none());
    assert!(Handshake::new(b"not json", "p").is_none());
  }
}
