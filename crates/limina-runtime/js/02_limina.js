// The `Limina` global: the host loop, process control and the raw op table.

import "ext:limina_runtime/00_console.js";
import "ext:limina_runtime/01_globals.js";

// Ops are looked up when called (see 00_console.js).
const { ops } = Deno.core;

const RUN_OPTIONS = new Set(["cmd", "args", "cwd", "env", "stdin"]);

// What belongs to the running process is read on first use, never at
// evaluation, so this module may be evaluated ahead of time.
let args;
globalThis.Limina = Object.freeze({
  get version() {
    return ops.op_limina_version();
  },
  /** Arguments after the module on the command line. */
  get args() {
    return (args ??= Object.freeze(ops.op_limina_args()));
  },
  /** The raw op table; engine modules wrap these. */
  ops,
  loop: Object.freeze({
    onFixedStep: (cb) => ops.op_set_fixed_step_callback(cb),
    onFrame: (cb) => ops.op_set_frame_callback(cb),
    onArrivals: (cb) => ops.op_set_arrivals_callback(cb),
    wake: () => ops.op_loop_wake(),
    idle: (idle) => ops.op_loop_idle(idle),
    stop: () => ops.op_loop_stop(),
    stats: () => ops.op_loop_stats(),
    /** Fixed steps run so far: the current tick. */
    steps: () => ops.op_loop_steps(),
    /** CPU time the loop's thread has used so far, in ms. */
    cpuMs: () => ops.op_loop_cpu_ms(),
  }),
  /** The path of the running limina binary. */
  get execPath() {
    return ops.op_limina_exec_path();
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
    return ops.op_limina_run(options);
  },
  /** Start-up is over (a server's world is built and serving): what only starting touched is given back. */
  startUpOver: () => ops.op_start_up_over(),
  /** Flushes output and ends the process with `code`. */
  exit: (code = 0) => ops.op_limina_exit(code),
});
