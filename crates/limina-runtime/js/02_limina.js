// The `Limina` global: the host loop, process control and the raw op table.

import "ext:limina_runtime/00_console.js";
import "ext:limina_runtime/01_globals.js";

import {
  op_limina_args,
  op_limina_exit,
  op_limina_version,
  op_loop_stats,
  op_loop_stop,
  op_set_fixed_step_callback,
  op_set_frame_callback,
} from "ext:core/ops";

globalThis.Limina = Object.freeze({
  version: op_limina_version(),
  /** Arguments after the module on the command line. */
  args: Object.freeze(op_limina_args()),
  /** The raw op table; engine modules wrap these. */
  ops: Deno.core.ops,
  loop: Object.freeze({
    onFixedStep: (cb) => op_set_fixed_step_callback(cb),
    onFrame: (cb) => op_set_frame_callback(cb),
    stop: () => op_loop_stop(),
    stats: () => op_loop_stats(),
  }),
  /** Flushes output and ends the process with `code`. */
  exit: (code = 0) => op_limina_exit(code),
});
