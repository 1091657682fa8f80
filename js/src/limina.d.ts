// Types for the globals the limina host installs.

interface LiminaLoopStats {
  steps: number;
  frames: number;
  simTime: number;
  fixedDt: number;
  clock: "realtime" | "virtual";
}

declare const Limina: {
  readonly version: string;
  readonly args: readonly string[];
  // deno-lint-ignore no-explicit-any
  readonly ops: Record<string, (...args: any[]) => any>;
  readonly loop: {
    onFixedStep(cb: (dt: number) => void): void;
    onFrame(cb: (alpha: number) => void): void;
    stop(): void;
    stats(): LiminaLoopStats;
    steps(): number;
  };
  readonly execPath: string;
  run(options: { cmd: string; args?: string[]; cwd?: string; stdin?: string }): Promise<{
    code: number | null;
    stdout: string;
    stderr: string;
    wallMs: number;
  }>;
  exit(code?: number): never;
};

declare class LiminaError extends Error {
  code: string;
}
