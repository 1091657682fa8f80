//! Isolation for untrusted code: one QuickJS runtime (rquickjs) per agent or
//! package, with a standard-ECMAScript global, a single `host` door and
//! memory, stack and CPU-time budgets ([`sandbox`]); and packages on disk,
//! hashed and attested with ed25519 ([`package`]). The typed JS face is
//! `js/sandbox.ts`.

pub mod package;
pub mod sandbox;

mod ops;

pub use ops::SandboxHost;

deno_core::extension!(
  limina_sandbox,
  deps = [limina_ops],
  ops = [
    ops::op_sandbox_create,
    ops::op_sandbox_eval,
    ops::op_sandbox_call,
    ops::op_sandbox_settle,
    ops::op_sandbox_perceive,
    ops::op_sandbox_has_tick,
    ops::op_sandbox_memory,
    ops::op_sandbox_drop,
    ops::op_package_list,
    ops::op_package_open,
  ],
  state = |state| {
    state.put(SandboxHost::default());
  },
);
