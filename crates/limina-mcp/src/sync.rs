//! World-state streams for WebSocket subscribers, encoded off the loop:
//! the binary stream whole, and the JSON stream's (js/src/mcp/state-sync.ts)
//! transform columns for its full-view group.
//!
//! On each fixed step the loop thread copies the live entities' transforms
//! out of the SoA columns (one gather, no encoding) and, for every
//! subscriber that takes a message now, queues a placeholder among its
//! outbound messages — so a delta keeps its place among the replies, the
//! way a reply applied before the step precedes it and one applied after
//! follows it. The encoder thread ([`limina_delta::Streams`],
//! [`limina_delta::JsonGroup`]) fills the placeholders; each connection's
//! writer waits for its own and writes it.
//!
//! Binary pacing is per connection: a connection whose last delta is not
//! written yet (a slow reader, its socket full) or whose asked-for rate
//! says "not yet" gets no placeholder this step, and its next delta goes
//! from what it holds straight to the current state. A slow reader never
//! holds a fast one back, and never falls further behind than one delta.
//! The JSON group's members share one delta a step; the JS decides who is
//! a member (one that fell behind leaves the group and is resent a snapshot).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use deno_core::{op2, OpState};
use bytes::Bytes;
use limina_delta::{Aoi, Frame, JsonGroup, Row, Streams};
use tokio::sync::Notify;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use super::hub;

/// Frames handed to the encoder and not yet encoded, beyond which a step
/// is not streamed (its changes go out with the next one).
const MAX_FRAMES_IN_FLIGHT: usize = 2;

/// A delta's place in a connection's outbound queue.
pub struct DeltaCell {
  /// `Some` once filled: the message, or `None` when nothing changed for this client.
  value: Mutex<Option<Option<Message>>>,
  ready: Notify,
}

impl DeltaCell {
  pub(crate) fn reserve() -> (Arc<DeltaCell>, Reservation) {
    let cell = Arc::new(DeltaCell { value: Mutex::new(None), ready: Notify::new() });
    (cell.clone(), Reservation { cell, filled: false })
  }

  /// Waits for the encoder; the message to write, if any.
  pub async fn wait(&self) -> Option<Message> {
    loop {
      if let Some(value) = self.value.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return value;
      }
      self.ready.notified().await;
    }
  }
}

/// The encoder's end of a placeholder. Dropped unfilled (a step that was
/// not streamed after all), it fills itself with nothing, so a writer never
/// waits for it forever.
pub(crate) struct Reservation {
  cell: Arc<DeltaCell>,
  filled: bool,
}

impl Reservation {
  fn fill(mut self, message: Option<Message>) {
    self.put(message);
  }

  fn put(&mut self, message: Option<Message>) {
    *self.cell.value.lock().unwrap_or_else(|e| e.into_inner()) = Some(message);
    self.filled = true;
    self.cell.ready.notify_one();
  }
}

impl Drop for Reservation {
  fn drop(&mut self) {
    if !self.filled {
      self.put(None);
    }
  }
}

enum Job {
  Subscribe(u32),
  Unsubscribe(u32),
  Aoi(u32, Option<Aoi>),
  /// The live entity set or styles changed: the styles of entities new to the stream or restyled.
  Styles(Vec<Style>, Arc<Vec<u64>>),
  Frame(Frame, Vec<(u32, Reservation)>),
  Json(JsonFrame),
}

/// One step of the JSON stream's full-view group.
struct JsonFrame {
  /// The live entities' ids (JSON strings) in the entity table's order, and their transforms.
  ids: Arc<Vec<String>>,
  rows: Vec<Row>,
  /// The delta's JSON text without its transform columns, which go in at byte `cut`.
  text: String,
  cut: usize,
  /// Sent even when no transform changed (something else in it did).
  must_send: bool,
  reservations: Vec<Reservation>,
}

struct Pace {
  /// Steps between deltas (1: every step).
  every: u64,
  last: u64,
}

/// The loop thread's side, in `OpState`.
#[derive(Default)]
struct StateStreams {
  subs: HashMap<u32, Pace>,
  /// Live entities' eids, in the order of `ids`.
  eids: Vec<u32>,
  ids: Arc<Vec<u64>>,
  encoder: Option<mpsc::Sender<Job>>,
  in_flight: Arc<AtomicUsize>,
  /// The JSON group's entities: eids and ids (JSON strings), in the entity table's order.
  json_eids: Vec<u32>,
  json_ids: Arc<Vec<String>>,
}

impl StateStreams {
  fn send(&mut self, job: Job) {
    let tx = self.encoder.get_or_insert_with(|| {
      let (tx, rx) = mpsc::channel();
      let in_flight = self.in_flight.clone();
      std::thread::Builder::new().name("limina-state-sync".into()).spawn(move || encode(rx, in_flight)).expect("cannot start the state-sync thread");
      tx
    });
    // The thread ends only when this sender is dropped.
    let _ = tx.send(job);
  }
}

fn encode(rx: mpsc::Receiver<Job>, in_flight: Arc<AtomicUsize>) {
  let mut streams = Streams::default();
  let mut group = JsonGroup::default();
  for job in rx {
    match job {
      Job::Subscribe(conn) => streams.subscribe(conn),
      Job::Unsubscribe(conn) => {
        streams.unsubscribe(conn);
      }
      Job::Aoi(conn, aoi) => {
        streams.set_aoi(conn, aoi);
      }
      Job::Styles(styles, live) => {
        let table = streams.styles();
        table.retain_live(&live);
        for s in styles {
          table.set(s.id as u64, s.revision, &s.tags, s.look.as_deref());
        }
      }
      Job::Frame(frame, reservations) => {
        let reserved: HashSet<u32> = reservations.iter().map(|(conn, _)| *conn).collect();
        let mut out: HashMap<u32, Option<Bytes>> = streams.frame(&frame, &reserved).into_iter().collect();
        for (conn, r) in reservations {
          r.fill(out.remove(&conn).flatten().map(Message::Binary));
        }
        in_flight.fetch_sub(1, Ordering::AcqRel);
      }
      Job::Json(JsonFrame { ids, rows, text, cut, must_send, reservations }) => {
        let (columns, moved) = group.advance(&ids, rows);
        let message = (!reservations.is_empty() && (moved || must_send)).then(|| {
          let cut = if text.is_char_boundary(cut) { cut } else { 0 };
          Utf8Bytes::from(format!("{}{columns},{}", &text[..cut], &text[cut..]))
        });
        for r in reservations {
          r.fill(message.clone().map(Message::Text));
        }
      }
    }
  }
}

fn streams(state: &mut OpState) -> &mut StateStreams {
  if !state.has::<StateStreams>() {
    state.put(StateStreams::default());
  }
  state.borrow_mut::<StateStreams>()
}

/// Subscribes a connection (again: it starts over with a snapshot), at
/// most one delta every `every` steps.
#[op2(fast)]
pub fn op_sync_subscribe(state: &mut OpState, conn: u32, every: u32) {
  let s = streams(state);
  s.subs.insert(conn, Pace { every: u64::from(every.max(1)), last: 0 });
  s.send(Job::Subscribe(conn));
}

#[op2(fast)]
pub fn op_sync_unsubscribe(state: &mut OpState, conn: u32) -> bool {
  let s = streams(state);
  let had = s.subs.remove(&conn).is_some();
  if had {
    s.send(Job::Unsubscribe(conn));
  }
  had
}

/// Narrows a subscriber to a sphere (`radius` > 0) or, with `radius` 0, gives it the full view again.
#[op2(fast)]
pub fn op_sync_aoi(state: &mut OpState, conn: u32, x: f64, y: f64, z: f64, radius: f64) -> bool {
  let s = streams(state);
  if !s.subs.contains_key(&conn) {
    return false;
  }
  let aoi = (radius > 0.0).then_some(Aoi { center: [x, y, z], radius });
  s.send(Job::Aoi(conn, aoi));
  true
}

/// An entity's tags and look (JSON text), at its style revision.
#[derive(serde::Deserialize)]
pub struct Style {
  id: f64,
  revision: u32,
  tags: Vec<String>,
  look: Option<String>,
}

/// The live entity set: `eids[i]` holds entity `ent_<ids[i]>`; `styles` for
/// those the stream has not been told of (or that were restyled).
#[op2]
pub fn op_sync_entities(state: &mut OpState, #[buffer] eids: &[u32], #[buffer] ids: &[f64], #[serde] styles: Vec<Style>) {
  let mut pairs: Vec<(u64, u32)> = ids.iter().zip(eids).map(|(&id, &eid)| (id as u64, eid)).collect();
  if !pairs.windows(2).all(|w| w[0].0 < w[1].0) {
    pairs.sort_unstable();
    pairs.dedup_by_key(|p| p.0);
  }
  let s = streams(state);
  s.eids = pairs.iter().map(|p| p.1).collect();
  s.ids = Arc::new(pairs.iter().map(|p| p.0).collect());
  let live = s.ids.clone();
  s.send(Job::Styles(styles, live));
}

/// One step's fan-out: reserves a place for each subscriber that can take
/// a delta now and hands the step's transforms to the encoder. Returns how
/// many were reserved.
#[op2(fast)]
#[allow(clippy::too_many_arguments)]
pub fn op_sync_frame(
  state: &mut OpState,
  tick: f64,
  #[buffer] px: &[f32],
  #[buffer] py: &[f32],
  #[buffer] pz: &[f32],
  #[buffer] rx: &[f32],
  #[buffer] ry: &[f32],
  #[buffer] rz: &[f32],
  #[buffer] rw: &[f32],
  #[buffer] sx: &[f32],
  #[buffer] sy: &[f32],
  #[buffer] sz: &[f32],
) -> u32 {
  let sent_at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1000.0);
  let tick = tick as u64;
  let registry = hub(state).registry.clone();
  let s = streams(state);
  if s.subs.is_empty() || s.in_flight.load(Ordering::Acquire) >= MAX_FRAMES_IN_FLIGHT {
    return 0;
  }
  let rows = gather(&s.eids, [px, py, pz, rx, ry, rz, rw, sx, sy, sz]);
  let mut reservations = Vec::new();
  super::ws::batch_wakes(|| {
    for (&conn, pace) in s.subs.iter_mut() {
      if tick < pace.last + pace.every && pace.last != 0 {
        continue;
      }
      if let Some(r) = registry.reserve_delta(conn) {
        pace.last = tick;
        reservations.push((conn, r));
      }
    }
  });
  let reserved = reservations.len() as u32;
  s.in_flight.fetch_add(1, Ordering::AcqRel);
  let frame = Frame { tick, sent_at, ids: s.ids.clone(), rows };
  s.send(Job::Frame(frame, reservations));
  reserved
}

/// The transforms of `eids` out of the SoA columns (an eid past them reads as the identity).
fn gather(eids: &[u32], columns: [&[f32]; 10]) -> Vec<Row> {
  let n = columns.iter().map(|c| c.len()).min().unwrap_or(0);
  eids
    .iter()
    .map(|&e| {
      let e = e as usize;
      if e < n {
        columns.map(|c| c[e])
      } else {
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
      }
    })
    .collect()
}

/// The JSON group's live entities: `eids[i]` holds the entity whose id, as
/// a JSON string, is `ids[i]`, in the entity table's order.
#[op2]
pub fn op_sync_json_entities(state: &mut OpState, #[buffer] eids: &[u32], #[serde] ids: Vec<String>) {
  let s = streams(state);
  s.json_eids = eids.to_vec();
  s.json_ids = Arc::new(ids);
}

/// One step of the JSON group: queues a placeholder for each of `members`
/// (as a droppable message: see `send_to`) and hands the step's transforms
/// and the delta's text without its transform columns (they go in at byte
/// `cut`) to the encoder, which fills them. Every step the group advances
/// must come here, members or not, so the encoder's copy of what the group
/// holds advances with it. Returns each member's send outcome, in order.
#[op2]
#[serde]
#[allow(clippy::too_many_arguments)]
pub fn op_sync_json_frame(
  state: &mut OpState,
  #[string] text: String,
  cut: u32,
  must_send: bool,
  #[buffer] members: &[u32],
  #[buffer] px: &[f32],
  #[buffer] py: &[f32],
  #[buffer] pz: &[f32],
  #[buffer] rx: &[f32],
  #[buffer] ry: &[f32],
  #[buffer] rz: &[f32],
  #[buffer] rw: &[f32],
  #[buffer] sx: &[f32],
  #[buffer] sy: &[f32],
  #[buffer] sz: &[f32],
) -> Vec<u32> {
  let registry = hub(state).registry.clone();
  let mut reservations = Vec::with_capacity(members.len());
  let outcomes = super::ws::batch_wakes(|| {
    members
      .iter()
      .map(|&conn| {
        super::queue(&registry, conn, true, || {
          let (cell, reservation) = DeltaCell::reserve();
          reservations.push(reservation);
          super::Out::Delta(cell)
        })
      })
      .collect()
  });
  let s = streams(state);
  let rows = gather(&s.json_eids, [px, py, pz, rx, ry, rz, rw, sx, sy, sz]);
  let frame = JsonFrame { ids: s.json_ids.clone(), rows, text, cut: cut as usize, must_send, reservations };
  s.send(Job::Json(frame));
  outcomes
}
