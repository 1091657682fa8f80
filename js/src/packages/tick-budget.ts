// The world's per-tick CPU budget for all ticking packages together, shared
// fairly across sessions. Each fixed step, packages run round-robin across
// their sessions — one package of each session per round, each session's
// own packages in turn — and a run starts only while the world's budget
// still holds a whole per-run budget, so the packages of one fixed step
// never use more than the world's budget, however many are loaded. Runs
// that do not fit wait for a later step, and the next step starts where
// this one stopped: no session, and no package, starves. Deferred runs are
// recorded as `package.tick.overbudget`, at most once a second while the
// world stays over budget.
//
// The budget is earned by time, one step's worth per fixed step's length
// of the clock (and held for one step at most): when a slow machine runs
// several steps back to back to catch up, those steps share one step's
// budget, so packages never take more of the machine as it falls behind.

/** What the scheduler needs of a ticking package. */
export interface Ticking {
  readonly sessionId: string;
  /** Whether it can start a tick now (loaded, with an onTick handler, not still waiting on the host). */
  readonly canTick: boolean;
}

/** Ticks over budget are summed up in one event per this many ticks. */
const REPORT_EVERY = 60;

export interface OverBudget {
  fromTick: number;
  toTick: number;
  ticksOverBudget: number;
  deferredRuns: number;
  budgetMs: number;
  /** Runs deferred per session. */
  bySession: Record<string, number>;
}

export class TickBudget<P extends Ticking> {
  /** Sessions in turn order, each with its packages in turn order. */
  private readonly turns = new Map<string, P[]>();
  private episode: OverBudget | null = null;
  /** Budget earned and not spent, in ms, as of `earnedAt` on the clock. */
  private earned: number;
  private earnedAt: number | null = null;

  constructor(
    /** CPU for all packages of one fixed step, in ms. */
    readonly worldMs: number,
    /** Each run's own budget, in ms: a run starts only if this much is left. */
    readonly runMs: number,
    private readonly report: (overBudget: OverBudget) => void,
    /** The clock the budget is earned by, in ms (a virtual clock advances one step's length per step). */
    private readonly now: () => number,
    /** One fixed step's length on that clock, in ms. */
    private readonly stepMs = 1000 / 60,
  ) {
    this.earned = worldMs;
  }

  add(pkg: P): void {
    const own = this.turns.get(pkg.sessionId);
    if (own) own.push(pkg);
    else this.turns.set(pkg.sessionId, [pkg]);
  }

  remove(pkg: P): void {
    const own = this.turns.get(pkg.sessionId);
    if (!own) return;
    const i = own.indexOf(pkg);
    if (i >= 0) own.splice(i, 1);
    if (own.length === 0) this.turns.delete(pkg.sessionId);
  }

  /**
   * Runs this step's packages with `run(pkg, spend)`; `spend(ms)` charges
   * CPU as the run uses it (synchronously, so the next decision sees it).
   */
  tick(step: number, run: (pkg: P, spend: (cpuMs: number) => void) => void): void {
    const now = this.now();
    if (this.earnedAt !== null) this.earned = Math.min(this.worldMs, this.earned + ((now - this.earnedAt) / this.stepMs) * this.worldMs);
    this.earnedAt = now;
    let left = this.earned;
    const spend = (cpuMs: number) => {
      left -= cpuMs;
      this.earned -= cpuMs;
    };
    // Round-robin across sessions, one package each per round.
    const queues = [...this.turns.values()].map((own) => own.filter((p) => p.canTick));
    const ran = new Set<P>();
    const deferred = new Map<string, number>();
    let stoppedAt: string | null = null;
    for (let round = 0; queues.some((q) => q.length > round); round++) {
      for (const q of queues) {
        const pkg = q[round];
        if (pkg === undefined) continue;
        if (left < this.runMs) {
          stoppedAt ??= pkg.sessionId;
          deferred.set(pkg.sessionId, (deferred.get(pkg.sessionId) ?? 0) + 1);
          continue;
        }
        ran.add(pkg);
        run(pkg, spend);
      }
    }
    // Next step: each session's packages that ran go behind those that did not,
    // and the session where this step ran out goes first.
    for (const own of this.turns.values()) own.sort((a, b) => Number(ran.has(a)) - Number(ran.has(b)));
    if (stoppedAt !== null) this.rotateTo(stoppedAt);
    this.record(step, deferred);
  }

  private rotateTo(sessionId: string): void {
    const order = [...this.turns.entries()];
    const i = order.findIndex(([s]) => s === sessionId);
    this.turns.clear();
    for (const [s, own] of [...order.slice(i), ...order.slice(0, i)]) this.turns.set(s, own);
  }

  private record(step: number, deferred: Map<string, number>): void {
    if (deferred.size > 0) {
      const e = (this.episode ??= { fromTick: step, toTick: step, ticksOverBudget: 0, deferredRuns: 0, budgetMs: this.worldMs, bySession: {} });
      e.toTick = step;
      e.ticksOverBudget++;
      for (const [s, n] of deferred) {
        e.deferredRuns += n;
        e.bySession[s] = (e.bySession[s] ?? 0) + n;
      }
    }
    const e = this.episode;
    if (e !== null && (deferred.size === 0 || step - e.fromTick + 1 >= REPORT_EVERY)) {
      this.episode = null;
      this.report(e);
    }
  }
}
