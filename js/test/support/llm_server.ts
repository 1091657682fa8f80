// The local stand-in LLM server (tests/llm_server.py) for the suites that
// test providers and players against real HTTP: started per suite, its
// requests read back from its log.
import { waitSteps } from "limina";

export interface LlmServer {
  /** The HTTP(S) port. */
  port: number;
  /** A port that accepts connections and never answers. */
  silentPort: number;
  /** A port whose accept queue is full: connecting never completes. */
  fullPort: number;
  /** The request log: one JSON line per request. */
  log: string;
  /** Every request logged so far: {path, auth, at (server monotonic seconds), body}. */
  requests(): Promise<LoggedRequest[]>;
  stop(): Promise<void>;
}

export interface LoggedRequest {
  path: string;
  auth: string | null;
  at: number;
  // deno-lint-ignore no-explicit-any
  body: any;
}

let servers = 0;

/** Starts tests/llm_server.py with `flags`; resolves once it listens (its ports 0 if it never did). */
export async function startLlmServer(flags = "", log = `/tmp/limina-llm-${Date.now()}-${++servers}.jsonl`): Promise<LlmServer> {
  const out = `${log}.out`;
  const started = await Limina.run({ cmd: "bash", args: ["-c", `python3 tests/llm_server.py --log ${log} ${flags} > ${out} 2>&1 & echo $!`] });
  const pid = started.stdout.trim();
  const ports = { port: 0, silent: 0, full: 0 };
  for (let i = 0; i < 500 && !ports.full; i++) {
    await new Promise((r) => setTimeout(r, 20));
    const text = (await Limina.run({ cmd: "cat", args: [out] })).stdout;
    for (const key of ["port", "silent", "full"] as const) ports[key] = Number(new RegExp(`^${key} (\\d+)$`, "m").exec(text)?.[1] ?? 0);
  }
  return {
    port: ports.port,
    silentPort: ports.silent,
    fullPort: ports.full,
    log,
    async requests() {
      const text = (await Limina.run({ cmd: "bash", args: ["-c", `cat ${log} 2>/dev/null || true`] })).stdout;
      // Only whole lines: the server may be appending a request (agents go on deciding) as this reads.
      const lines = text.split("\n");
      lines.pop();
      return lines.filter((l) => l.trim() !== "").map((l) => JSON.parse(l));
    },
    async stop() {
      await Limina.run({ cmd: "kill", args: [pid] });
      await Limina.run({ cmd: "rm", args: ["-f", log, out] });
    },
  };
}

/** Steps until `ready()` holds (or `seconds` of wall time pass, a guard against a hang): waits for an event, never for a count of frames. */
export async function until(ready: () => boolean, what: string, seconds = 30): Promise<void> {
  const give = performance.now() + seconds * 1000;
  while (!ready()) {
    if (performance.now() > give) throw new Error(`waited ${seconds} s for ${what}`);
    await waitSteps(1);
  }
}
