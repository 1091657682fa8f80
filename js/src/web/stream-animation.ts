// Characters' animation as a consumer of the state stream keeps it (the
// spectator page, the static player, any client): each character's
// animator — the engine's own — is loaded with the whole state the stream
// sends once, then advanced once per animation clock step, taking each
// change the stream sends (motion, emotes) at the clock it happened at, as
// the world's animator was. So it holds the world's animation state, bit for
// bit, with no per-tick animation bytes between changes (docs/web.md).

import type { AnimationChange, Animator, SavedAnimation } from "../characters/animator.ts";
import type { ClockedChange } from "../characters/characters.ts";
import type { MirrorChange, MirrorEntity } from "./mirror.ts";

/** Advances `animator` from animation clock `from` to `to`, taking `changes` at the clocks they happened at. */
export function catchUp(animator: Animator, from: number, to: number, changes: readonly ClockedChange[] = []): void {
  let clock = from;
  for (const [at, ...change] of changes) {
    for (; clock < at; clock++) animator.advance();
    animator.apply(change as AnimationChange);
  }
  for (; clock < to; clock++) animator.advance();
}

export class StreamAnimation {
  /** Each character's animator, by entity id. */
  readonly animators = new Map<string, Animator>();
  /** The animation clock the animators are at. */
  clock = 0;

  /** A snapshot came: every animator is made anew, at its clock. */
  reset(clock: number): void {
    this.animators.clear();
    this.clock = clock;
  }

  /**
   * Takes `animator` for character `id`, loaded with `kept` (the state an earlier animator of it
   * had, when its rig was redrawn) or else with the entity's whole state as the stream sent it
   * (and, from a relay's snapshot, caught up through the changes since), at the clock.
   */
  adopt(id: string, animator: Animator, entity: MirrorEntity | undefined, kept?: SavedAnimation): void {
    this.animators.set(id, animator);
    const saved = kept ?? (entity?.animation as SavedAnimation | undefined);
    if (!saved) return;
    animator.load(saved);
    if (!kept) catchUp(animator, entity!.animationAt ?? this.clock, this.clock, entity!.animationChanges);
    animator.mixer.update(0);
  }

  delete(id: string): void {
    this.animators.delete(id);
  }

  /** A delta came (after the mirror took it): every animator goes on to its clock with its changes; those that came whole are `adopt`ed. */
  advance(change: MirrorChange, clock: number): void {
    const whole = new Set([...change.created, ...change.reloaded]);
    for (const [id, animator] of this.animators) if (!whole.has(id)) catchUp(animator, this.clock, clock, change.animationChanges[id]);
    this.clock = clock;
  }
}
