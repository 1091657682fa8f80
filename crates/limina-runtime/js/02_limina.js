// The `Limina` global: the host loop, process control and the raw op table.

import "ext:limina_runtime/00_console.js";
import "ext:limina_runtime/01_globals.js";

import {
  op_limina_args,
  op_limina_exec_path,
  op_limina_exit,
  op_limina_run,
  op_limina_version,
  op_loop_stats,
  op_loop_steps,
  op_loop_stop,
  op_loop_wake,
  op_set_arrivals_callback,
  op_set_fixed_step_callback,
  op_set_frame_callback,
} from "ext:core/ops";

const RUN_OPTIONS = new Set(["cmd", "args", "cwd", "env", "stdin"]);

// What belongs to the running process is read on first use, never at
// evaluation, so this module may be evaluated ahead of time.
let args;
globalThis.Limina = Object.freeze({
  get version() {
    return op_limina_version();
  },
  /** Arguments after the module on the command line. */
  get args() {
    return (args ??= Object.freeze(op_limina_args()));
  },
  /** The raw op table; engine modules wrap these. */
  ops: Deno.core.ops,
  loop: Object.freeze({
    onFixedStep: (cb) => op_set_fixed_step_callback(cb),
    onFrame: (cb) => op_set_frame_callback(cb),
    onArrivals: (cb) => op_set_arrivals_callback(cb),
    wake: () => op_loop_wake(),
    stop: () => op_loop_stop(),
    stats: () => op_loop_stats(),
    /** Fixed steps run so far: the current tick. */
    steps: op_loop_steps,
  }),
  /** The path of the running limina binary. */
  get execPath() {
    return op_limina_exec_path();
  },
  /**
   * Runs a child process off the loop: `{cmd, args?, cwd?, env?, stdin?}` →
   * `{code, stdout, stderr, wallMs}`.
   */
  run: (options) => {
    // serde_v8 reads only the fields it knows: reject the rest here.
    for (const key of Object.keys(options ?? {})) {
      if (!RUN_OPTIONS.has(key)) {
        return Promise.reject(new TypeError(`Limina.run: unknown option "${key}" (expected ${[...RUN_OPTIONS].join(", ")})`));
      }
    }
    return op_limina_run(options);
  },
  /** Flushes output and ends the process with `code`. */
  exit: (code = 0) => op_limina_exit(code),
});
