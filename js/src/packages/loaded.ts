// A package that keeps working after its load: its sandbox, its identity,
// and its per-tick CPU budget. Each fixed step the host may call its
// `host.onTick` handler within that budget (when the world's budget for all
// packages has room: see tick-budget.ts); a call that runs over is cut off
// and counted, and too many overruns unload the package, with an event
// saying why.

import type { PackageInfo, Sandbox } from "../../../crates/limina-sandbox/js/sandbox.ts";
import type { Tracer } from "../observability/tracer.ts";
import type { Attribution, HostBridge, RunResult } from "./bridge.ts";
import type { PackageLimits } from "./limits.ts";

export class LoadedPackage {
  /** Ticks whose handler ran over its budget. */
  overruns = 0;
  ticks = 0;
  /** Why it was unloaded, once it is. */
  unloaded: string | null = null;
  /** The entry (tick or decision) running now, if any: the sandbox is never entered twice at once. */
  private running: Promise<RunResult> | null = null;

  constructor(
    readonly info: PackageInfo,
    readonly who: Attribution,
    private readonly sandbox: Sandbox,
    private readonly bridge: HostBridge,
    private readonly tracer: Tracer,
    private readonly limits: PackageLimits,
    private readonly onUnload: (pkg: LoadedPackage) => void,
  ) {}

  get ref(): string {
    return this.who.pkg;
  }

  private emit(type: string, payload: Record<string, unknown>): string {
    return this.tracer.emit(type, { ref: this.ref, agentId: this.who.agentId, ...payload }, { actorId: this.who.agentId, threadId: this.who.sessionId, causedBy: this.who.causedBy });
  }

  get sessionId(): string {
    return this.who.sessionId;
  }

  /** Whether a tick can start now: loaded, with an onTick handler, and not still waiting on the host. */
  get canTick(): boolean {
    return this.unloaded === null && this.running === null && this.sandbox.hasTick;
  }

  /** One fixed step: the onTick handler within the per-tick budget; `spend` is told the CPU it uses as it runs. */
  async tick(step: number, spend?: (cpuMs: number) => void): Promise<void> {
    if (!this.canTick) return;
    const r = await this.enter(null, { tick: step }, this.limits.tickCpuMs, undefined, spend);
    if (this.unloaded !== null) return;
    this.ticks++;
    if (r.status === "ok") {
      if (r.call === "failed") this.emit("package.tick.failed", { tick: step, reason: String(r.result) });
      return;
    }
    if (r.status === "threw") {
      this.emit("package.tick.failed", { tick: step, reason: r.error });
      return;
    }
    this.overruns++;
    this.emit("package.tick.overrun", { tick: step, rejectReason: r.status, reason: r.error, overruns: this.overruns, cpuMs: r.cpuMs, budgetMs: this.limits.tickCpuMs });
    if (this.overruns >= this.limits.maxOverruns) {
      this.unload(r.status, `unloaded after ${this.overruns} ticks over budget (the last: ${r.error})`);
    }
  }

  /** Calls a global function of the package (an agent's `decide`) within the decision budget; `perception` is what it reads meanwhile. */
  async callFunction(name: string, arg: unknown, perception?: unknown): Promise<RunResult> {
    // A tick in flight finishes first.
    while (this.running !== null) await this.running;
    if (this.unloaded !== null) return { status: "threw", error: `${this.ref} was unloaded: ${this.unloaded}`, call: "failed", result: null, cpuMs: 0, memBytes: 0, invoked: 0 };
    return await this.enter(name, arg, this.limits.decideCpuMs, perception);
  }

  private async enter(name: string | null, arg: unknown, cpuMs: number, perception?: unknown, spend?: (cpuMs: number) => void): Promise<RunResult> {
    const run = this.bridge.run(this.sandbox, (cpu) => this.sandbox.call(name, arg, cpu), this.who, { cpuMs, maxIntents: this.limits.maxIntentsPerRun, spend }, perception);
    this.running = run;
    try {
      return await run;
    } finally {
      this.running = null;
    }
  }

  /** Stops the package and frees its sandbox; returns the event id. */
  unload(rejectReason: string, reason: string): string | null {
    if (this.unloaded !== null) return null;
    this.unloaded = reason;
    this.sandbox.dispose();
    this.onUnload(this);
    return this.emit("package.unloaded", { rejectReason, reason, ticks: this.ticks, overruns: this.overruns });
  }
}
