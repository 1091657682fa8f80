//! What bounds a network server's TCP connections before and between
//! requests. A connection is *unfinished* from its accept until its first
//! request has arrived whole (an HTTP request's headers and body, a
//! WebSocket handshake): unfinished connections have a cap of their own
//! and a cap per peer address, apart from the sessions, so clients that
//! send slowly or not at all cannot take the slots that served clients
//! need. A finished connection with nothing in flight is *idle*; when every
//! connection slot is taken, the connection idle longest is closed to make
//! room before a new client is refused. A refused connection is answered
//! (a 503) from a budget of its own, of which each peer address has a share.
//! A connection whose first request has already arrived whole when it is
//! accepted counts against no unfinished cap: it is not slow, the server
//! has just not read it yet (a starved server accepts its backlog in one
//! burst before it reads any of it), so a well-behaved client is never
//! refused for the server's own backlog or for slow connections beside it.
//! Like any connection not read yet, it is not closed as idle.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::rc::Rc;

use tokio::sync::Notify;

#[derive(Debug, Clone, Copy)]
pub struct GateLimits {
  /// TCP connections open at once.
  pub connections: usize,
  /// Connections that have not completed their first request, at once.
  pub unfinished: usize,
  /// Of those, from one peer address.
  pub unfinished_per_peer: usize,
}

/// Why a connection was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
  /// Every connection slot is taken and none is idle.
  Full(usize),
  /// Too many connections are still sending their first request.
  Unfinished(usize),
  /// Too many of them come from this peer's address.
  PeerUnfinished(usize),
}

impl fmt::Display for Refusal {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match self {
      Refusal::Full(n) => write!(f, "server full: all {n} connections are busy"),
      Refusal::Unfinished(n) => write!(f, "too many connections ({n}) have not finished sending a request"),
      Refusal::PeerUnfinished(n) => write!(f, "too many connections ({n}) from your address have not finished sending a request"),
    }
  }
}

struct Entry {
  peer: IpAddr,
  unfinished: bool,
  /// Whether it takes an unfinished slot (its first request was not whole when accepted).
  counted: bool,
  /// Requests in flight (a handler running or a response being written).
  busy: usize,
  /// When it last became idle, on the gate's own clock.
  idle_since: u64,
  /// Asked to close to make room: it no longer counts.
  evicted: bool,
  evict: Rc<Notify>,
}

#[derive(Default)]
struct State {
  next_id: u64,
  clock: u64,
  conns: HashMap<u64, Entry>,
  unfinished: usize,
  unfinished_by_peer: HashMap<IpAddr, usize>,
}

pub struct Gate {
  limits: GateLimits,
  state: RefCell<State>,
}

/// An admitted connection: its slot until dropped. `evicted` is notified
/// when the gate needs the slot of this (idle) connection.
pub struct Admitted {
  gate: Rc<Gate>,
  id: u64,
  pub evicted: Rc<Notify>,
}

/// One request in flight on a connection: the connection is busy until dropped.
pub struct InFlight {
  gate: Rc<Gate>,
  id: u64,
}

impl GateLimits {
  /// `connections` and `unfinished` at once, and half of those unfinished
  /// (at least one, at most 16) from any one peer address: one peer can
  /// never take every unfinished slot.
  pub fn new(connections: usize, unfinished: usize) -> Self {
    let unfinished = unfinished.max(1);
    Self { connections, unfinished, unfinished_per_peer: (unfinished / 2).clamp(1, 16) }
  }
}

impl Gate {
  pub fn new(limits: GateLimits) -> Rc<Self> {
    Rc::new(Self { limits, state: RefCell::default() })
  }

  /// Admits a new connection from `peer` as unfinished, closing the
  /// longest-idle connection first when every slot is taken. `whole`: its
  /// first request has already arrived whole, so it takes no unfinished slot.
  pub fn admit(self: &Rc<Self>, peer: IpAddr, whole: bool) -> Result<Admitted, Refusal> {
    let mut s = self.state.borrow_mut();
    if !whole && s.unfinished >= self.limits.unfinished {
      return Err(Refusal::Unfinished(self.limits.unfinished));
    }
    if !whole && s.unfinished_by_peer.get(&peer).copied().unwrap_or(0) >= self.limits.unfinished_per_peer {
      return Err(Refusal::PeerUnfinished(self.limits.unfinished_per_peer));
    }
    let open = s.conns.values().filter(|e| !e.evicted).count();
    if open >= self.limits.connections {
      let idle = s.conns.values_mut().filter(|e| !e.evicted && !e.unfinished && e.busy == 0).min_by_key(|e| e.idle_since);
      let Some(idle) = idle else { return Err(Refusal::Full(self.limits.connections)) };
      idle.evicted = true;
      idle.evict.notify_one();
    }
    let id = s.next_id;
    s.next_id += 1;
    s.clock += 1;
    let evict = Rc::new(Notify::new());
    let idle_since = s.clock;
    s.conns.insert(id, Entry { peer, unfinished: true, counted: !whole, busy: 0, idle_since, evicted: false, evict: evict.clone() });
    if !whole {
      s.unfinished += 1;
      *s.unfinished_by_peer.entry(peer).or_default() += 1;
    }
    Ok(Admitted { gate: self.clone(), id, evicted: evict })
  }

  fn finish(&self, id: u64) {
    let mut s = self.state.borrow_mut();
    let Some(e) = s.conns.get_mut(&id) else { return };
    if !std::mem::replace(&mut e.unfinished, false) || !e.counted {
      return;
    }
    let peer = e.peer;
    s.unfinished -= 1;
    release_peer(&mut s.unfinished_by_peer, peer);
  }

  pub fn limits(&self) -> GateLimits {
    self.limits
  }

  /// Connections open now (not counting those asked to close).
  #[cfg(test)]
  fn open(&self) -> usize {
    self.state.borrow().conns.values().filter(|e| !e.evicted).count()
  }

  /// Connections that have not finished their first request.
  #[cfg(test)]
  fn unfinished(&self) -> usize {
    self.state.borrow().unfinished
  }
}

/// Whether `bytes`, the start of what a connection sent, hold a whole HTTP
/// request: its head, and as much body as its `Content-Length` says. A
/// chunked body, a head cut short or an unreadable length say no.
pub fn request_is_whole(bytes: &[u8]) -> bool {
  let mut headers = [httparse::EMPTY_HEADER; 64];
  let mut req = httparse::Request::new(&mut headers);
  let Ok(httparse::Status::Complete(head)) = req.parse(bytes) else { return false };
  let mut body = 0;
  for h in req.headers.iter() {
    if h.name.eq_ignore_ascii_case("transfer-encoding") {
      return false;
    }
    if h.name.eq_ignore_ascii_case("content-length") {
      let Some(n) = std::str::from_utf8(h.value).ok().and_then(|v| v.trim().parse::<usize>().ok()) else { return false };
      body = n;
    }
  }
  bytes.len() - head >= body
}

fn release_peer(by_peer: &mut HashMap<IpAddr, usize>, peer: IpAddr) {
  if let Some(n) = by_peer.get_mut(&peer) {
    *n -= 1;
    if *n == 0 {
      by_peer.remove(&peer);
    }
  }
}

/// Refused connections being answered at once: at most `total`, and at
/// most `per_peer` from one peer address, so that one address's refusals
/// never use up the answers another address's are owed.
pub struct RefusalBudget {
  total: usize,
  per_peer: usize,
  state: RefCell<RefusalState>,
}

#[derive(Default)]
struct RefusalState {
  answering: usize,
  by_peer: HashMap<IpAddr, usize>,
}

/// One refusal being answered: its place in the budget until dropped.
pub struct Answering {
  budget: Rc<RefusalBudget>,
  peer: IpAddr,
}

impl RefusalBudget {
  pub fn new(total: usize, per_peer: usize) -> Rc<Self> {
    Rc::new(Self { total, per_peer, state: RefCell::default() })
  }

  /// A place to answer a refusal of `peer`, if the budget and the peer's share have one.
  pub fn take(self: &Rc<Self>, peer: IpAddr) -> Option<Answering> {
    let mut s = self.state.borrow_mut();
    if s.answering >= self.total || s.by_peer.get(&peer).copied().unwrap_or(0) >= self.per_peer {
      return None;
    }
    s.answering += 1;
    *s.by_peer.entry(peer).or_default() += 1;
    Some(Answering { budget: self.clone(), peer })
  }
}

impl Drop for Answering {
  fn drop(&mut self) {
    let mut s = self.budget.state.borrow_mut();
    s.answering -= 1;
    release_peer(&mut s.by_peer, self.peer);
  }
}

impl Admitted {
  /// Its first request arrived whole: it no longer counts as unfinished.
  pub fn finished(&self) {
    self.gate.finish(self.id);
  }

  /// A request starts: the connection is busy (not idle) until the guard drops. One whose request was
  /// whole on arrival is finished now, however its handler ends (a refusal before the body is read
  /// included), so it becomes idle, and can be closed to make room, once answered.
  pub fn request(&self) -> InFlight {
    if let Some(e) = self.gate.state.borrow_mut().conns.get_mut(&self.id) {
      e.busy += 1;
      e.unfinished &= e.counted;
    }
    InFlight { gate: self.gate.clone(), id: self.id }
  }
}

impl Drop for Admitted {
  fn drop(&mut self) {
    self.gate.finish(self.id);
    self.gate.state.borrow_mut().conns.remove(&self.id);
  }
}

impl Drop for InFlight {
  fn drop(&mut self) {
    let mut s = self.gate.state.borrow_mut();
    s.clock += 1;
    let now = s.clock;
    if let Some(e) = s.conns.get_mut(&self.id) {
      e.busy -= 1;
      if e.busy == 0 {
        e.idle_since = now;
      }
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1));
  const B: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2));

  fn gate(connections: usize, unfinished: usize, per_peer: usize) -> Rc<Gate> {
    Gate::new(GateLimits { connections, unfinished, unfinished_per_peer: per_peer })
  }

  #[test]
  fn unfinished_connections_have_their_own_cap_and_a_cap_per_peer() {
    let g = gate(100, 3, 2);
    let a1 = g.admit(A, false).unwrap();
    let _a2 = g.admit(A, false).unwrap();
    assert_eq!(g.admit(A, false).err(), Some(Refusal::PeerUnfinished(2)));
    let _b1 = g.admit(B, false).unwrap();
    assert_eq!(g.admit(B, false).err(), Some(Refusal::Unfinished(3)));
    // A finished request frees its unfinished slot, for its peer too.
    a1.finished();
    assert_eq!(g.unfinished(), 2);
    let _a3 = g.admit(A, false).unwrap();
    // Finishing twice counts once.
    a1.finished();
    assert_eq!(g.unfinished(), 3);
  }

  #[test]
  fn a_connection_whose_request_arrived_whole_takes_no_unfinished_slot_and_is_not_idle_until_read() {
    let g = gate(4, 3, 2);
    let _a1 = g.admit(A, false).unwrap();
    let _a2 = g.admit(A, false).unwrap();
    assert_eq!(g.admit(A, false).err(), Some(Refusal::PeerUnfinished(2)));
    // Whole when accepted: not slow, whatever the caps say.
    let a3 = g.admit(A, true).unwrap();
    let _b1 = g.admit(B, false).unwrap();
    assert_eq!(g.admit(B, false).err(), Some(Refusal::Unfinished(3)));
    assert_eq!((g.unfinished(), g.open()), (3, 4));
    // Not read yet, it is not idle: not closed to make room. Its request started and answered
    // (whatever the handler did: finished() is never called on a refusal before the body), it is.
    assert_eq!(g.admit(B, true).err(), Some(Refusal::Full(4)));
    drop(a3.request());
    assert_eq!(g.unfinished(), 3, "its request frees no slot it never took");
    assert!(g.admit(B, true).is_ok());
    assert_eq!(std::pin::pin!(a3.evicted.notified()).poll_once(), true);
  }

  #[test]
  fn a_request_is_whole_once_its_head_and_its_declared_body_are_there() {
    let post = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n";
    assert!(request_is_whole(format!("{post}{{\"jsonrpc\":\"2.0\"}}").as_bytes()));
    assert!(!request_is_whole(format!("{post}{{").as_bytes()), "a slow body");
    assert!(!request_is_whole(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"), "slow headers");
    assert!(!request_is_whole(b""));
    assert!(request_is_whole(b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"), "a handshake has no body");
    assert!(!request_is_whole(b"POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), "a chunked body cannot be told whole");
    assert!(!request_is_whole(b"POST /mcp HTTP/1.1\r\nContent-Length: x\r\n\r\n"));
  }

  #[test]
  fn one_peer_may_take_half_of_the_unfinished_slots() {
    let l = GateLimits::new(16, 8);
    assert_eq!((l.connections, l.unfinished, l.unfinished_per_peer), (16, 8, 4));
    assert_eq!(GateLimits::new(800, 400).unfinished_per_peer, 16);
    assert_eq!(GateLimits::new(2, 1).unfinished_per_peer, 1);
  }

  #[test]
  fn a_closed_connection_frees_its_slots() {
    let g = gate(2, 2, 2);
    let a = g.admit(A, false).unwrap();
    let b = g.admit(A, false).unwrap();
    assert!(g.admit(B, false).is_err());
    drop(a);
    b.finished();
    drop(b);
    assert_eq!((g.open(), g.unfinished()), (0, 0));
    assert!(g.admit(A, false).is_ok());
  }

  #[test]
  fn when_full_the_longest_idle_connection_is_closed_before_a_client_is_refused() {
    let g = gate(3, 10, 10);
    let conns: Vec<Admitted> = (0..3).map(|_| g.admit(A, false).unwrap()).collect();
    for c in &conns {
      c.finished();
    }
    // Each served a request; 1 went idle first, then 0; 2 is still serving.
    let r1 = conns[1].request();
    let r0 = conns[0].request();
    let _r2 = conns[2].request();
    drop(r1);
    drop(r0);
    let _d = g.admit(B, false).unwrap();
    assert_eq!(g.open(), 3);
    // The one idle longest was asked to close, and only it.
    assert_eq!(std::pin::pin!(conns[1].evicted.notified()).poll_once(), true);
    assert_eq!(std::pin::pin!(conns[0].evicted.notified()).poll_once(), false);
    let _e = g.admit(B, false).unwrap();
    assert_eq!(std::pin::pin!(conns[0].evicted.notified()).poll_once(), true);
    // Now the rest are unfinished or busy: the next client is refused.
    assert_eq!(g.admit(B, false).err(), Some(Refusal::Full(3)));
  }

  #[test]
  fn unfinished_and_busy_connections_are_never_evicted() {
    let g = gate(2, 10, 10);
    let slow = g.admit(A, false).unwrap();
    let busy = g.admit(A, false).unwrap();
    busy.finished();
    let _in_flight = busy.request();
    assert_eq!(g.admit(B, false).err(), Some(Refusal::Full(2)));
    drop(slow);
    assert!(g.admit(B, false).is_ok());
  }

  #[test]
  fn one_address_filling_its_share_of_refusals_leaves_another_its_answer() {
    let budget = RefusalBudget::new(4, 2);
    let a: Vec<Answering> = (0..2).map(|_| budget.take(A).unwrap()).collect();
    assert!(budget.take(A).is_none());
    let b1 = budget.take(B).unwrap();
    let _b2 = budget.take(B).unwrap();
    assert!(budget.take(B).is_none());
    // The whole budget is spent: a third address waits for a place to come back.
    const C: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 3));
    assert!(budget.take(C).is_none());
    drop(b1);
    assert!(budget.take(A).is_none());
    let _c = budget.take(C).unwrap();
    drop(a);
    assert!(budget.take(A).is_some());
  }

  /// Polls a future once with a no-op waker.
  trait PollOnce {
    fn poll_once(self) -> bool;
  }

  impl<F: std::future::Future> PollOnce for std::pin::Pin<&mut F> {
    fn poll_once(self) -> bool {
      let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
      self.poll(&mut cx).is_ready()
    }
  }
}
