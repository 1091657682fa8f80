//! limina-mcp's pure-Rust parts — the inbound queue's round-robin turns,
//! the connection limits and stdio's first reply — compiled on their own, so their unit tests
//! link no V8 (the library itself does, through its ops).
#![allow(dead_code)]

#[path = "../src/handshake.rs"]
mod handshake;
#[path = "../src/limits.rs"]
mod limits;
#[path = "../src/turns.rs"]
mod turns;
