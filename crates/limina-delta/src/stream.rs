//! Subscribers and what each is sent, tick after tick.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use bytes::Bytes;

use crate::binary::{self, QRow};
use crate::known::{Frame, Known, Row};

/// A client's area of interest: the entities within `radius` of `center`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aoi {
  pub center: [f64; 3],
  pub radius: f64,
}

impl Aoi {
  /// Indices of the frame's entities inside the sphere, by the spatial
  /// query's contract: dx² + dy² + dz² ≤ r² in f64 over the float32 positions.
  fn visible(&self, frame: &Frame) -> Vec<u32> {
    let [x, y, z] = self.center;
    let r2 = self.radius * self.radius;
    let inside = |r: &Row| {
      let (dx, dy, dz) = (x - f64::from(r[0]), y - f64::from(r[1]), z - f64::from(r[2]));
      dx * dx + dy * dy + dz * dz <= r2
    };
    (0..frame.rows.len() as u32).filter(|&i| inside(&frame.rows[i as usize])).collect()
  }
}

/// Entities' tags and looks as the binary encoding writes them (the
/// "style" of an entity), made once per change, with the revision that
/// tells a client's copy from the current one.
#[derive(Default)]
pub struct StyleTable {
  styles: HashMap<u64, (u32, Vec<u8>)>,
  /// Bumped on every change.
  generation: u64,
}

impl StyleTable {
  /// Sets an entity's style at `revision`; `look` is its look as JSON text, if it has one.
  pub fn set(&mut self, id: u64, revision: u32, tags: &[String], look: Option<&str>) {
    let mut w = binary::Writer(Vec::new());
    w.varint(tags.len() as u64);
    for t in tags {
      w.str(t);
    }
    w.str(look.unwrap_or(""));
    self.styles.insert(id, (revision, w.0));
    self.generation += 1;
  }

  /// Forgets the styles of entities no longer live (`ids` ascending).
  pub fn retain_live(&mut self, ids: &[u64]) {
    self.styles.retain(|id, _| ids.binary_search(id).is_ok());
    self.generation += 1;
  }

  pub fn revision(&self, id: u64) -> u32 {
    self.styles.get(&id).map_or(0, |s| s.0)
  }

  /// No tags and no look when the entity's style was never set.
  pub fn bytes(&self, id: u64) -> &[u8] {
    self.styles.get(&id).map_or(&[0, 0], |s| s.1.as_slice())
  }
}

/// The last frame's rows and their quantised form, so that what did not
/// change since is not quantised again (most entities, most ticks).
#[derive(Default)]
struct Quantised {
  ids: Arc<Vec<u64>>,
  rows: Vec<Row>,
  q: Vec<QRow>,
  /// The style table's generation they were made at.
  styles: u64,
}

/// Bit-for-bit equality (a float's `==` would take -0 for 0).
fn same_bits(a: &[f32], b: &[f32]) -> bool {
  a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

impl Quantised {
  fn update(&mut self, frame: &Frame, styles: &StyleTable) -> Vec<QRow> {
    let q: Vec<QRow> = if Arc::ptr_eq(&self.ids, &frame.ids) && self.styles == styles.generation {
      let last = self.rows.iter().zip(&self.q);
      frame.rows.iter().zip(last).map(|(r, (lr, lq))| {
        if same_bits(&r[3..], &lr[3..]) {
          QRow { pos: binary::quantise_position(r), ..*lq }
        } else {
          binary::quantise(r, lq.style)
        }
      })
      .collect()
    } else {
      frame.ids.iter().zip(&frame.rows).map(|(&id, r)| binary::quantise(r, styles.revision(id))).collect()
    };
    self.ids = frame.ids.clone();
    self.rows.clone_from(&frame.rows);
    self.q.clone_from(&q);
    self.styles = styles.generation;
    q
  }
}

/// Where a client stands.
enum View {
  /// Owed a snapshot.
  Fresh,
  /// Full view, holding the group's state (the previous frame's).
  InGroup,
  /// Full view, holding an older state of the group's.
  Behind(Arc<Known<QRow>>),
  /// Area of interest: its own state.
  Own(Known<QRow>),
}

struct Sub {
  aoi: Option<Aoi>,
  view: View,
}

/// The work on one frame, with what its clients can share.
struct Pass<'a> {
  frame: &'a Frame,
  styles: &'a StyleTable,
  cur: Vec<QRow>,
  /// The group's state before this frame.
  prev: Option<Arc<Known<QRow>>>,
  /// The group's state after it.
  next: Arc<Known<QRow>>,
  group_delta: Option<Option<Bytes>>,
  snapshot: Option<Bytes>,
  /// Catch-ups by the state they start from.
  catch_ups: HashMap<*const Known<QRow>, Option<Bytes>>,
  full_views: usize,
}

impl<'a> Pass<'a> {
  fn new(frame: &'a Frame, styles: &'a StyleTable, cur: Vec<QRow>, prev: Option<Arc<Known<QRow>>>) -> Self {
    let next = Arc::new(Known { tick: frame.tick, ids: frame.ids.clone(), rows: cur.clone() });
    Self { frame, styles, cur, prev, next, group_delta: None, snapshot: None, catch_ups: HashMap::new(), full_views: 0 }
  }

  /// What a reserved client is sent (`Some(None)`: nothing changed for it);
  /// `None` when it was not reserved. Moves the client along.
  fn serve(&mut self, aoi: Option<&Aoi>, view: &mut View, reserved: bool) -> Option<Option<Bytes>> {
    let (frame, styles) = (self.frame, self.styles);
    if let Some(aoi) = aoi {
      if !reserved {
        return None;
      }
      let visible = aoi.visible(frame);
      let out = match view {
        View::Own(known) => binary::delta(frame, known, &self.cur, Some(&visible), Some(aoi), styles).map(Bytes::from),
        _ => Some(Bytes::from(binary::snapshot(frame, &self.cur, Some(&visible), Some(aoi), styles))),
      };
      // Nothing sent: the client still holds the state (and the tick) it had.
      if out.is_some() {
        let ids = visible.iter().map(|&i| frame.ids[i as usize]).collect();
        let rows = visible.iter().map(|&i| self.cur[i as usize]).collect();
        *view = View::Own(Known { tick: frame.tick, ids: Arc::new(ids), rows });
      }
      return Some(out);
    }
    self.full_views += 1;
    if !reserved {
      if let (View::InGroup, Some(prev)) = (&*view, &self.prev) {
        *view = View::Behind(prev.clone());
      }
      return None;
    }
    // A client sent nothing (nothing changed for it) still holds its old
    // state under its old tick: it stays behind on that state, since the
    // next delta it is sent must name the tick it holds.
    let out = match std::mem::replace(view, View::InGroup) {
      View::InGroup if self.prev.is_some() => {
        let prev = self.prev.as_ref().expect("checked");
        let out = self.group_delta.get_or_insert_with(|| binary::delta(frame, prev, &self.cur, None, None, styles).map(Bytes::from)).clone();
        if out.is_none() {
          *view = View::Behind(prev.clone());
        }
        out
      }
      View::Behind(base) => {
        let cur = &self.cur;
        let out = self.catch_ups.entry(Arc::as_ptr(&base)).or_insert_with(|| binary::delta(frame, &base, cur, None, None, styles).map(Bytes::from)).clone();
        if out.is_none() {
          *view = View::Behind(base);
        }
        out
      }
      _ => Some(self.snapshot.get_or_insert_with(|| Bytes::from(binary::snapshot(frame, &self.cur, None, None, styles))).clone()),
    };
    Some(out)
  }

  /// The group's state for the next frame (none when no full-view client is left).
  fn finish(self) -> Option<Arc<Known<QRow>>> {
    (self.full_views > 0).then_some(self.next)
  }
}

/// Every subscriber's stream.
#[derive(Default)]
pub struct Streams {
  subs: HashMap<u32, Sub>,
  styles: StyleTable,
  group: Option<Arc<Known<QRow>>>,
  quantised: Quantised,
}

impl Streams {
  /// Subscribes `conn` (again: it starts over); its area of interest, if it declared one, stays.
  pub fn subscribe(&mut self, conn: u32) {
    let aoi = self.subs.get(&conn).and_then(|s| s.aoi);
    self.subs.insert(conn, Sub { aoi, view: View::Fresh });
  }

  pub fn unsubscribe(&mut self, conn: u32) -> bool {
    self.subs.remove(&conn).is_some()
  }

  /// Narrows (or with `None` widens) a subscriber's view; it gets a fresh snapshot. False when not subscribed.
  pub fn set_aoi(&mut self, conn: u32, aoi: Option<Aoi>) -> bool {
    let Some(sub) = self.subs.get_mut(&conn) else { return false };
    sub.aoi = aoi;
    sub.view = View::Fresh;
    true
  }

  pub fn styles(&mut self) -> &mut StyleTable {
    &mut self.styles
  }

  pub fn subscribers(&self) -> usize {
    self.subs.len()
  }

  /// Encodes `frame` for the `reserved` clients (those that can take a
  /// message now): each gets `Some(message)`, or `None` when nothing
  /// changed for it. The others are left where they are.
  pub fn frame(&mut self, frame: &Frame, reserved: &HashSet<u32>) -> Vec<(u32, Option<Bytes>)> {
    let Self { subs, styles, group, quantised } = self;
    let cur = quantised.update(frame, styles);
    let mut pass = Pass::new(frame, styles, cur, group.take());
    let mut out = Vec::with_capacity(reserved.len());
    for (&conn, sub) in subs.iter_mut() {
      if let Some(message) = pass.serve(sub.aoi.as_ref(), &mut sub.view, reserved.contains(&conn)) {
        out.push((conn, message));
      }
    }
    *group = pass.finish();
    out
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::binary::decode;

  /// A world of `n` entities (ids 1..=n) that `step` moves.
  struct World {
    ids: Arc<Vec<u64>>,
    rows: Vec<Row>,
    tick: u64,
  }

  impl World {
    fn new(n: u64) -> Self {
      let rows = (0..n).map(|i| [i as f32, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]).collect();
      Self { ids: Arc::new((1..=n).collect()), rows, tick: 0 }
    }

    fn frame(&mut self) -> Frame {
      self.tick += 1;
      Frame { tick: self.tick, sent_at: 1.7e12 + self.tick as f64, ids: self.ids.clone(), rows: self.rows.clone() }
    }

    /// Moves every other entity a little along x and z, turns entity 3.
    fn step(&mut self) {
      let t = self.tick as f32;
      for (i, r) in self.rows.iter_mut().enumerate() {
        if i % 2 == 0 {
          r[0] = i as f32 + (t * 0.1 + i as f32).cos();
          r[2] = (t * 0.1 + i as f32).sin() * 3.0;
        }
      }
      if self.rows.len() > 2 {
        let a = t * 0.05;
        self.rows[2][3..7].copy_from_slice(&[0.0, a.sin(), 0.0, a.cos()]);
      }
    }

    fn expected(&self, frame: &Frame, visible: impl Fn(&Row) -> bool) -> Vec<(u64, QRow)> {
      frame.ids.iter().zip(&frame.rows).filter(|(_, r)| visible(r)).map(|(&id, r)| (id, binary::quantise(r, 0))).collect()
    }
  }

  fn held(view: &decode::View) -> Vec<(u64, QRow)> {
    view.entities.iter().map(|(&id, e)| (id, QRow { pos: e.pos.map(|p| p as i32), rot: e.rot, scale: e.scale, style: 0 })).collect()
  }

  fn all(conns: &[u32]) -> HashSet<u32> {
    conns.iter().copied().collect()
  }

  fn payload(out: &[(u32, Option<Bytes>)], conn: u32) -> Option<&Bytes> {
    out.iter().find(|(c, _)| *c == conn).and_then(|(_, p)| p.as_ref())
  }

  #[test]
  fn a_binary_client_holds_exactly_the_quantised_world_tick_after_tick() {
    let mut world = World::new(200);
    let mut s = Streams::default();
    s.subscribe(1);
    let mut view = decode::View::default();
    for tick in 0..120 {
      let f = world.frame();
      let out = s.frame(&f, &all(&[1]));
      let p = payload(&out, 1).expect("something changed every tick");
      let (kind, _, base, _) = decode::apply(&mut view, p);
      assert_eq!(kind, if tick == 0 { binary::KIND_SNAPSHOT } else { binary::KIND_DELTA });
      assert_eq!(base, if tick == 0 { 0 } else { f.tick - 1 });
      assert_eq!(held(&view), world.expected(&f, |_| true));
      world.step();
    }
  }

  #[test]
  fn clients_up_to_date_share_one_message_and_a_slow_one_catches_up_in_one_delta() {
    let mut world = World::new(300);
    let mut s = Streams::default();
    for c in 1..=3 {
      s.subscribe(c);
    }
    let mut views: HashMap<u32, decode::View> = (1..=3).map(|c| (c, decode::View::default())).collect();
    for tick in 0..60u64 {
      world.step();
      let f = world.frame();
      // Client 3 is slow: it can take a message only every 7th tick.
      let ready: Vec<u32> = if tick % 7 == 0 { vec![1, 2, 3] } else { vec![1, 2] };
      let out = s.frame(&f, &all(&ready));
      assert_eq!(out.len(), ready.len(), "only reserved clients are answered");
      let (p1, p2) = (payload(&out, 1).unwrap(), payload(&out, 2).unwrap());
      assert_eq!(p1.as_ptr(), p2.as_ptr(), "the group's message is encoded once");
      for &c in &ready {
        let (_, t, base, _) = decode::apply(views.get_mut(&c).unwrap(), payload(&out, c).unwrap());
        assert_eq!(t, f.tick);
        if c == 3 && tick > 0 {
          assert_eq!(base, f.tick - 7, "the slow client's delta starts from what it holds");
        }
        assert_eq!(held(&views[&c]), world.expected(&f, |_| true), "client {c} at tick {}", f.tick);
      }
    }
  }

  #[test]
  fn an_area_of_interest_sees_entities_come_and_go() {
    let mut world = World::new(50);
    let mut s = Streams::default();
    s.subscribe(9);
    let aoi = Aoi { center: [10.0, 0.0, 0.0], radius: 4.0 };
    assert!(s.set_aoi(9, Some(aoi)));
    let mut view = decode::View::default();
    let inside = |r: &Row| {
      let d = [10.0 - f64::from(r[0]), -f64::from(r[1]), -f64::from(r[2])];
      d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= 16.0
    };
    let mut sizes = HashSet::new();
    for _ in 0..100 {
      world.step();
      let f = world.frame();
      let out = s.frame(&f, &all(&[9]));
      if let Some(p) = payload(&out, 9) {
        decode::apply(&mut view, p);
      }
      assert_eq!(held(&view), world.expected(&f, inside));
      sizes.insert(view.entities.len());
    }
    assert!(sizes.len() > 1, "entities entered and left the sphere: {sizes:?}");
    assert!(!s.set_aoi(8, None), "aoi needs a subscription");
  }

  #[test]
  fn created_restyled_and_destroyed_entities_arrive_with_their_style() {
    let mut s = Streams::default();
    s.subscribe(1);
    let row = [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];
    let f1 = Frame { tick: 1, sent_at: 5.0, ids: Arc::new(vec![4, 7]), rows: vec![row, row] };
    s.styles().set(7, 1, &["crate".to_owned(), "blue \"one\"".to_owned()], Some(r#"{"shape":"box"}"#));
    let mut view = decode::View::default();
    decode::apply(&mut view, payload(&s.frame(&f1, &all(&[1])), 1).unwrap());
    assert_eq!(view.entities[&7].tags, vec!["crate", "blue \"one\""]);
    assert_eq!(view.entities[&7].look, r#"{"shape":"box"}"#);
    assert!(view.entities[&4].tags.is_empty() && view.entities[&4].look.is_empty());
    s.styles().set(9, 2, &["new".to_owned()], None);
    let f2 = Frame { tick: 2, sent_at: 6.0, ids: Arc::new(vec![7, 9]), rows: vec![row, row] };
    s.styles().retain_live(&f2.ids);
    let out = s.frame(&f2, &all(&[1]));
    let (kind, ..) = decode::apply(&mut view, payload(&out, 1).unwrap());
    assert_eq!(kind, binary::KIND_DELTA);
    assert_eq!(view.entities.keys().copied().collect::<Vec<_>>(), vec![7, 9]);
    assert_eq!(view.entities[&9].tags, vec!["new"]);
    assert_eq!(view.entities[&9].pos, [1024, 2048, 3072]);
    // Entity 7 did not move or change: nothing about it is resent.
    assert_eq!(view.updated, 0);
    s.styles().set(7, 3, &["crate".to_owned()], Some(r#"{"shape":"box","color":"red"}"#));
    let f3 = Frame { tick: 3, sent_at: 7.0, ids: f2.ids.clone(), rows: vec![row, row] };
    decode::apply(&mut view, payload(&s.frame(&f3, &all(&[1])), 1).unwrap());
    assert_eq!(view.entities[&7].tags, vec!["crate"]);
    assert_eq!(view.entities[&7].look, r#"{"shape":"box","color":"red"}"#);
    let f4 = Frame { tick: 4, sent_at: 8.0, ids: f2.ids.clone(), rows: vec![row, row] };
    assert!(s.frame(&f4, &all(&[1])).iter().all(|(_, p)| p.is_none()), "an unchanged world sends nothing");
  }

  #[test]
  fn after_ticks_that_sent_nothing_the_next_delta_names_the_tick_the_client_holds() {
    let mut world = World::new(50);
    let mut s = Streams::default();
    s.subscribe(1);
    s.subscribe(2);
    s.set_aoi(2, Some(Aoi { center: [0.0, 0.0, 0.0], radius: 1e6 }));
    let mut views: HashMap<u32, decode::View> = (1..=2).map(|c| (c, decode::View::default())).collect();
    for tick in 0..12u64 {
      // Every third tick the world moves; in between nothing changes, so nothing is sent.
      if tick % 3 == 0 {
        world.step();
      }
      let f = world.frame();
      for (conn, p) in s.frame(&f, &all(&[1, 2])) {
        let Some(p) = p else { continue };
        let view = views.get_mut(&conn).unwrap();
        let (_, _, base, _) = decode::apply(view, &p);
        assert_eq!(tick % 3, 0, "client {conn} was sent a message at tick {tick} (from tick {base}) although nothing changed");
        assert_eq!(held(view), world.expected(&f, |_| true), "client {conn} at tick {tick}");
      }
    }
  }
}
