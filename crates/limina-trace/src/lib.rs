//! The world log on disk: the sha256 chain over EngineEvents (sealed and
//! verified natively, ending with a `trace.sealed` terminator), the spooled
//! full history behind each Tracer, atomic trace files confined to the trace
//! directory, `limina trace verify`, world files (snapshots on disk), save files (world
//! files by name in the save directory), and the world log
//! streamed to NATS JetStream. The typed JS face is `js/chain.ts`.

pub mod chain;
mod files;
mod log;
pub mod nats;
mod ops;
mod saves;
mod world_file;

pub use chain::{verify_file, IntegrityError, IntegrityReason, TraceStatus, VerifiedTrace};

/// Waits until every world log of the runtime has written what it was
/// handed and finished its exports, and closes them: for a host about to
/// end the process without tearing the runtime down. A live log its tracer
/// did not close stays open (no terminator): the tracer may have held events back.
pub fn close_logs(state: &mut deno_core::OpState) {
  drop(state.try_take::<log::WorldLogs>());
}

deno_core::extension!(
  limina_trace,
  deps = [limina_ops],
  ops = [
    ops::op_trace_seal,
    ops::op_trace_verify,
    ops::op_trace_verify_file,
    ops::op_trace_write,
    ops::op_trace_read,
    ops::op_trace_dir,
    log::op_trace_log_open,
    log::op_trace_log_append,
    log::op_trace_log_envelope,
    log::op_trace_log_event,
    log::op_trace_log_event_templated,
    log::op_trace_log_template,
    log::op_trace_log_line,
    log::op_trace_log_flush,
    log::op_trace_log_recent,
    log::op_trace_log_read,
    log::op_trace_log_export,
    log::op_trace_log_close,
    world_file::op_world_sha256,
    world_file::op_world_file_write,
    world_file::op_world_file_write_sync,
    world_file::op_world_file_read,
    world_file::op_world_stop_signal,
    saves::op_save_write,
    saves::op_save_read,
    saves::op_save_list,
    saves::op_save_delete,
    nats::op_nats_sink_open,
    nats::op_nats_sink_append,
    nats::op_nats_sink_flush,
    nats::op_nats_log_read,
  ],
);
