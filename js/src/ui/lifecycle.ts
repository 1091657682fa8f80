// A container's life, in fixed steps: fade in, type its text out, stay for
// its ttl, fade out, and go. Advanced by whole fixed steps only, so a
// deterministic run shows the same frame at the same step.

import { z } from "zod";

const Secs = z.number().min(0).max(3600);

export const Lifecycle = z
  .strictObject({
    fadeIn: Secs.default(0).describe("seconds to fade in from transparent"),
    fadeOut: Secs.default(0).describe("seconds to fade out once the ttl is over"),
    typewriter: z.number().gt(0).max(10_000).optional().describe("reveal the text at this many characters per second"),
    ttl: z.number().gt(0).max(86_400).optional().describe("seconds shown (after fading in and typing out) before fading out and being removed; none = until ui.remove"),
    queue: z.string().min(1).max(64).optional().describe("per-speaker queue key: containers with the same key show one at a time, in creation order"),
    feed: z
      .strictObject({ maxLines: z.number().int().min(1).max(200).describe("lines kept; older ones scroll off") })
      .optional()
      .describe("a feed: ui.update's lines are appended instead of replacing, keeping the newest maxLines"),
  })
  .describe("How the container appears, lasts and goes.");

export type LifecycleSpec = z.infer<typeof Lifecycle>;

export type Phase = "queued" | "fadingIn" | "typing" | "showing" | "fadingOut" | "gone";

export class LifecycleState {
  phase: Phase = "queued";
  /** Seconds since the container was shown. */
  age = 0;
  /** Characters revealed (Infinity without a typewriter). */
  revealed = Infinity;
  private shownFor = 0;
  private fadingFor = 0;

  constructor(readonly spec: LifecycleSpec, private readonly characters: () => number) {}

  /** Starts showing (at once, or when its queue reaches it). */
  show(): void {
    this.phase = this.spec.fadeIn > 0 ? "fadingIn" : this.spec.typewriter ? "typing" : "showing";
    if (this.spec.typewriter) this.revealed = 0;
  }

  /** The lifecycle's opacity now, 0..1. */
  get alpha(): number {
    switch (this.phase) {
      case "queued":
      case "gone":
        return 0;
      case "fadingIn":
        return Math.min(1, this.age / this.spec.fadeIn);
      case "fadingOut":
        return this.spec.fadeOut > 0 ? Math.max(0, 1 - this.fadingFor / this.spec.fadeOut) : 0;
      default:
        return 1;
    }
  }

  /** Advances `dt` seconds. */
  step(dt: number): void {
    if (this.phase === "queued" || this.phase === "gone") return;
    this.age += dt;
    const { spec } = this;
    if (this.phase === "fadingIn" && this.age >= spec.fadeIn) this.phase = spec.typewriter ? "typing" : "showing";
    if (spec.typewriter && this.phase !== "fadingOut") {
      this.revealed = Math.min(this.characters(), Math.floor(this.age * spec.typewriter));
      if (this.phase === "typing" && this.revealed >= this.characters()) this.phase = "showing";
    }
    if (this.phase === "showing" && spec.ttl !== undefined) {
      this.shownFor += dt;
      if (this.shownFor >= spec.ttl) this.phase = "fadingOut";
    } else if (this.phase === "fadingOut") {
      this.fadingFor += dt;
    }
    if (this.phase === "fadingOut" && this.fadingFor >= spec.fadeOut) this.phase = "gone";
  }

  /** Text changed: a typewriter types the new text from the start. */
  restart(): void {
    if (this.spec.typewriter && this.phase !== "queued") {
      this.age = this.spec.fadeIn;
      this.revealed = 0;
      this.phase = "typing";
      this.shownFor = 0;
    }
  }
}
