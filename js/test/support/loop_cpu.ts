// The loop thread's CPU time between fixed steps: what the real-time checks bound, because a busy
// machine stretches the wall clock between two steps, not the CPU the loop spends there.
import { onFixedStep } from "limina";

export class LoopCpuWatch {
  /** Steps run since the watch began. */
  steps = 0;
  /** The longest stretch of loop-thread CPU between two steps, in ms. */
  maxGapMs = 0;
  /** Loop-thread CPU when the watch began and at the last step, in ms. */
  readonly startMs = Limina.loop.stats().cpuMs;
  lastMs = this.startMs;
  private readonly off = onFixedStep(() => {
    const cpu = Limina.loop.stats().cpuMs;
    this.maxGapMs = Math.max(this.maxGapMs, cpu - this.lastMs);
    this.lastMs = cpu;
    this.steps++;
  });

  /** Stops watching; `countTail` counts the stretch since the last step too, so a run with no step is judged as well. */
  stop(countTail = false): void {
    this.off();
    if (countTail) this.maxGapMs = Math.max(this.maxGapMs, Limina.loop.stats().cpuMs - this.lastMs);
  }
}
