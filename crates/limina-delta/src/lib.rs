//! World-state streams for the WebSocket world server's subscribers.
//!
//! Each tick the host hands over a [`Frame`] — the live entities by their
//! `ent_` number, ascending, and their transforms — and says which
//! subscribers can take a message now. [`Streams`] answers each of those
//! with the change from what that client was last sent to the frame, in the
//! compact binary encoding ([`binary`]: quantised transforms, per-entity
//! change masks). The JSON encoding, the default, is written by the engine's
//! JS (`js/src/mcp/state-sync.ts`), but for the full-view group's
//! transform columns, which are built here ([`JsonGroup`]), off the loop.
//!
//! Clients with the full view that are up to date share one encoded delta
//! per tick (the "group"). A client that could not take this tick's message
//! (its writer still busy with the last one, or its own rate says not yet)
//! is left where it was: it keeps a reference to the state it has, and its
//! next message is one delta from there to now, after which it rejoins the
//! group. Clients with an area of interest each get their own view.
//! Nothing here waits on a client, and a slow one costs the others nothing.

pub mod binary;
mod json;
mod known;
mod stream;

pub use json::JsonGroup;
pub use known::{walk, Change, Frame, Known, Row, STRIDE};
pub use stream::{Aoi, Streams, StyleTable};
