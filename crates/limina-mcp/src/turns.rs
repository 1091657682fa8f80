//! The inbound queue's order: each connection's items in the order they
//! arrived, connections taking turns one item at a time, so a busy client
//! delays a quiet one by at most one item per turn.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

pub struct Turns<T> {
  /// By connection id (the server picks them, so Fx: a push and a pop every message).
  queues: FxHashMap<u32, VecDeque<T>>,
  turns: VecDeque<u32>,
}

impl<T> Default for Turns<T> {
  fn default() -> Self {
    Self { queues: FxHashMap::default(), turns: VecDeque::new() }
  }
}

impl<T> Turns<T> {
  /// Queues `item` behind `conn`'s earlier ones; a connection with nothing
  /// queued joins the end of the turn order.
  pub fn push(&mut self, conn: u32, item: T) {
    let queue = self.queues.entry(conn).or_default();
    if queue.is_empty() {
      self.turns.push_back(conn);
    }
    queue.push_back(item);
  }

  /// The next item in round-robin order, with its connection.
  pub fn pop(&mut self) -> Option<(u32, T)> {
    let conn = self.turns.pop_front()?;
    let queue = self.queues.get_mut(&conn)?;
    let item = queue.pop_front()?;
    if queue.is_empty() {
      self.queues.remove(&conn);
    } else {
      self.turns.push_back(conn);
    }
    Some((conn, item))
  }
}

#[cfg(test)]
mod tests {
  use super::Turns;

  fn drain(t: &mut Turns<&'static str>) -> Vec<(u32, &'static str)> {
    std::iter::from_fn(|| t.pop()).collect()
  }

  #[test]
  fn a_flooding_connection_takes_turns_with_a_quiet_one() {
    let mut t = Turns::default();
    for item in ["f1", "f2", "f3", "f4"] {
      t.push(7, item);
    }
    t.push(2, "q1");
    t.push(2, "q2");
    // Round-robin in arrival order of the connections: not lowest id first, not all of 7 first.
    assert_eq!(drain(&mut t), [(7, "f1"), (2, "q1"), (7, "f2"), (2, "q2"), (7, "f3"), (7, "f4")]);
  }

  #[test]
  fn a_connection_keeps_its_own_order_and_rejoins_at_the_back() {
    let mut t = Turns::default();
    t.push(1, "a1");
    t.push(3, "c1");
    t.push(1, "a2");
    assert_eq!(t.pop(), Some((1, "a1")));
    // 5 arrives while 3 and 1 wait: it goes after both.
    t.push(5, "e1");
    assert_eq!(drain(&mut t), [(3, "c1"), (1, "a2"), (5, "e1")]);
    // Emptied: a new item starts a fresh turn.
    t.push(3, "c2");
    assert_eq!(drain(&mut t), [(3, "c2")]);
    assert_eq!(t.pop(), None);
  }

  #[test]
  fn many_connections_get_one_item_each_per_round() {
    let mut t = Turns::default();
    for conn in (0..50u32).rev() {
      for _ in 0..3 {
        t.push(conn, "x");
      }
    }
    let order: Vec<u32> = std::iter::from_fn(|| t.pop()).map(|(c, _)| c).collect();
    let round: Vec<u32> = (0..50u32).rev().collect();
    assert_eq!(order, [round.clone(), round.clone(), round].concat());
  }
}
