// The globals the limina host installs in every module: `Limina` (the loop,
// arguments, process control) and the `LiminaError` class native failures
// arrive as. Web-style globals (console, timers, performance, TextEncoder,
// TextDecoder, AbortController, navigator.gpu) follow the DOM's types.

interface LiminaLoopStats {
  steps: number;
  frames: number;
  simTime: number;
  fixedDt: number;
  clock: "realtime" | "virtual";
  /** CPU time the loop's thread has used so far, in ms: unlike the wall clock, it does not grow while the process waits for a busy machine. */
  cpuMs: number;
  /** The frames' clock: the wall time handed to the fixed-step accumulator so far, in ms. */
  frameClockMs: number;
  /** Of it, what the catch-up clamp dropped after stalls (each frame counts at most 250 ms). */
  droppedMs: number;
  /** Of it, what is carried into the next frame, not stepped yet: between frames, `steps × fixedDt` is exactly the rest. */
  carriedMs: number;
}

interface LiminaRunResult {
  /** Exit code; null when a signal ended the child. */
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
}

interface LiminaGlobal {
  /** The limina version. */
  readonly version: string;
  /** Arguments after the module on the command line. */
  readonly args: readonly string[];
  /** The host's fixed-timestep loop (the "limina" module's onFixedStep/onFrame fan out from these slots). */
  readonly loop: {
    onFixedStep(cb: (dt: number) => void): void;
    onFrame(cb: (alpha: number) => void): void;
    /** Called between frames, as soon as transport input arrives, with a budget in ms of the loop thread's CPU time (see `cpuMs`). */
    onArrivals(cb: (budgetMs: number) => void): void;
    /** Asks for another arrivals call soon (work was left over). */
    wake(): void;
    /** Whether nothing is left to step or draw: under `--deterministic` (without `--frames`) no frame runs while idle; setting a callback ends it. */
    idle(idle: boolean): void;
    stop(): void;
    stats(): LiminaLoopStats;
    /** Fixed steps run so far: the current tick. */
    steps(): number;
    /** CPU time the loop's thread has used so far, in ms (`stats().cpuMs`, without the rest). */
    cpuMs(): number;
  };
  /** The path of the running limina binary. */
  readonly execPath: string;
  /** Runs a child process off the loop. */
  run(options: { cmd: string; args?: string[]; cwd?: string; env?: Record<string, string>; stdin?: string }): Promise<LiminaRunResult>;
  /** Start-up is over (a server's world is built and serving): the pages of the binary's code and read-only data touched so far, and malloc's free memory, are given back; what runs again is paged back in. */
  startUpOver(): void;
  /** Flushes output and ends the process with `code`. */
  exit(code?: number): never;
}

declare const Limina: LiminaGlobal;

/** A native or engine failure with a stable machine-readable `code` (see ERROR_CODES in "limina"). */
declare class LiminaError extends Error {
  code: string;
}
