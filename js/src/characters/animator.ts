// One character's animation: a THREE.AnimationMixer over its rig with a
// small state machine — idle, locomotion (walk and run blended by ground
// speed, phase-locked, each played at the rate its stride needs so planted
// feet do not slide), jump, fall, and emotes (any other clip, asked for by
// name) — crossfading between states. It advances on the fixed step by the
// step's dt, so a world's animation is the same on every run. Free of
// native ops: the browser page bundles it as it is.
//
// Its input is discrete: the ground speed it takes changes only when the
// body's speed has moved more than SPEED_QUANTUM from it (or stopped dead),
// and then to a multiple of 1/64 m/s (short to send, exact in binary),
// and the vertical speed only matters as rising, falling or neither. So
// between changes an animator advances from its own state alone, and a
// copy that is told every change (`onChange` → `apply`) and advanced once
// per step (`advance`) holds the very same state: what the state stream
// sends a spectator instead of the whole state every tick.

import * as THREE from "three";
import { RUN, WALK } from "./clips.ts";

export type AnimationStateName = "idle" | "locomotion" | "jump" | "fall" | "emote";

/** What the character's body is doing this step. */
export interface Motion {
  /** Horizontal ground speed, m/s. */
  speed: number;
  grounded: boolean;
  /** Vertical speed, m/s (up positive). */
  vertical: number;
}

export interface AnimationState {
  state: AnimationStateName;
  /** The clip weighing most now. */
  clip: string;
  /** The ground speed the state machine saw, m/s. */
  speed: number;
  /** Every clip playing, with its weight and playback rate. */
  playing: { clip: string; weight: number; timeScale: number }[];
}

/** How the body moved, as the state machine takes it: vertical speed is 1 rising (> 0.5 m/s), -1 falling (< -1.5 m/s), else 0. */
export type Vertical = -1 | 0 | 1;

/**
 * A discrete change of an animator's input, in the order it happened: the motion it advances
 * with from the next step on (speed, grounded, vertical), the step's length (s), an emote
 * played, or a whole state loaded (a copy needs the state itself then).
 */
export type AnimationChange =
  | ["motion", number, boolean, Vertical]
  | ["dt", number]
  | ["play", string, boolean, number]
  | ["load"];

/** One clip's playback, as snapshots save it. */
export interface SavedAction {
  time: number;
  /** The nominal weight and time scale, and what the mixer last applied of them. */
  weight: number;
  effectiveWeight: number;
  timeScale: number;
  effectiveTimeScale: number;
  enabled: boolean;
  paused: boolean;
  once: boolean;
  clamp: boolean;
  loops: number;
}

/** An animator's whole state: the machine, the crossfades in progress and every clip's playback. */
export interface SavedAnimation {
  state: AnimationStateName;
  emote: { clip: string; loop: boolean } | null;
  /** The motion it advances with: ground speed (m/s, quantized), on the ground, vertical, the step (s). */
  speed: number;
  grounded?: boolean;
  vertical?: Vertical;
  dt?: number;
  locomotionWeight: number;
  mixerTime: number;
  ramps: Record<string, { from: number; to: number; t: number; duration: number }>;
  actions: Record<string, SavedAction>;
}

/** The playback fields three.js keeps private that a saved animation must carry to go on bit for bit. */
interface Internals {
  _effectiveWeight: number;
  _effectiveTimeScale: number;
  _loopCount: number;
}

const STATES: readonly AnimationStateName[] = ["idle", "locomotion", "jump", "fall", "emote"];

/** Below this ground speed a character stands (idle). */
export const MOVE_SPEED = 0.15;
/** Between these speeds walk blends into run. */
export const BLEND_FROM = 2.0;
export const BLEND_TO = 3.4;
/**
 * The ground speed an animator takes changes only when the body's has moved further than this
 * from it (m/s), or stopped dead: a steady walk, or a crowd's jostle, changes nothing to send;
 * the gait's rate is off by at most this (2.6% of a slow walk's 1.2 m/s; the planted foot slides
 * about that much more), well under what the feet may slide.
 */
export const SPEED_QUANTUM = 1 / 32;
/** Speeds taken are multiples of this (m/s). */
const SPEED_STEP = 1 / 64;
const FADE = 0.2;

/** The clip names a rig's clips answer to: its own names, lower-cased, with any "armature|" prefix dropped. */
export function clipKey(name: string): string {
  return name.toLowerCase().replace(/^.*\|/, "");
}

export class Animator {
  readonly mixer: THREE.AnimationMixer;
  private readonly actions = new Map<string, THREE.AnimationAction>();
  private state: AnimationStateName = "idle";
  private emote: { clip: string; loop: boolean } | null = null;
  private speed = 0;
  private grounded = true;
  private vertical: Vertical = 0;
  private dt = 0;
  /** Told of every change of input, in order (the state stream's watch). */
  onChange: ((change: AnimationChange) => void) | null = null;
  /** Strides (m per cycle) of the gait clips at this rig's scale. */
  private readonly stride: { walk: number; run: number };
  private locomotionWeight = 0;

  /**
   * `clips` by name: at least idle, walk and run for locomotion (a rig
   * without them animates what it has). `scale`: the rig's size against
   * the reference humanoid, which scales the gaits' strides.
   */
  constructor(root: THREE.Object3D, clips: THREE.AnimationClip[], scale = 1) {
    this.mixer = new THREE.AnimationMixer(root);
    for (const clip of clips) {
      const action = this.mixer.clipAction(clip);
      action.enabled = true;
      action.setEffectiveWeight(0);
      action.play();
      this.actions.set(clipKey(clip.name), action);
    }
    this.stride = { walk: WALK.stride * scale, run: RUN.stride * scale };
    this.fadeTo("idle", 0);
  }

  /** The clip names this character can play. */
  clips(): string[] {
    return [...this.actions.keys()];
  }

  has(clip: string): boolean {
    return this.actions.has(clipKey(clip));
  }

  /** Plays `clip` as an emote (fading in over `fadeIn` s); looping until the character moves, or once. */
  play(clip: string, loop = true, fadeIn = FADE): void {
    const key = clipKey(clip);
    const action = this.actions.get(key);
    if (!action) throw new Error(`no clip ${clip}`);
    // A locomotion clip asked for by name plays in place, like any emote.
    this.emote = { clip: key, loop };
    this.onChange?.(["play", key, loop, fadeIn]);
    action.reset();
    action.setLoop(loop ? THREE.LoopRepeat : THREE.LoopOnce, Infinity);
    action.clampWhenFinished = !loop;
    this.enter("emote", fadeIn);
  }

  /** Advances `dt` seconds with the body's motion this step (taken as its discrete input). */
  update(dt: number, motion: Motion): void {
    const speed = Math.abs(motion.speed - this.speed) > SPEED_QUANTUM || motion.speed === 0 ? Math.round(motion.speed / SPEED_STEP) * SPEED_STEP : this.speed;
    const vertical: Vertical = motion.vertical > 0.5 ? 1 : motion.vertical < -1.5 ? -1 : 0;
    if (dt !== this.dt) this.change(["dt", dt]);
    if (speed !== this.speed || motion.grounded !== this.grounded || vertical !== this.vertical) this.change(["motion", speed, motion.grounded, vertical]);
    this.advance();
  }

  private change(change: AnimationChange): void {
    this.apply(change);
    this.onChange?.(change);
  }

  /** Takes a change another animator made (`onChange`): a copy told every change stays the same. */
  apply(change: AnimationChange): void {
    if (change[0] === "motion") [, this.speed, this.grounded, this.vertical] = change;
    else if (change[0] === "dt") this.dt = change[1];
    else if (change[0] === "play") this.play(change[1], change[2], change[3]);
    else throw new Error("a loaded state comes whole: load() it");
  }

  /** One step with the motion it has. */
  advance(): void {
    const dt = this.dt;
    const moving = this.grounded && this.speed >= MOVE_SPEED;
    let next: AnimationStateName;
    if (!this.grounded && this.vertical === 1) next = "jump";
    else if (!this.grounded && this.vertical === -1) next = "fall";
    else if (moving) next = "locomotion";
    // Briefly off the ground (a step down, the top of a jump): keep what it was doing.
    else if (!this.grounded) next = this.state;
    else if (this.emote && (this.emote.loop || this.actions.get(this.emote.clip)!.isRunning())) next = "emote";
    else next = "idle";
    // Walking away ends an emote; a jump keeps its clip through the rise and the fall's start.
    if (next !== "emote" && this.state === "emote" && next !== "idle") this.emote = null;
    if (this.state === "jump" && next === "fall" && this.actions.has("jump") && this.actions.get("jump")!.isRunning()) next = "jump";
    if (next !== this.state) this.enter(next, FADE);
    this.stepRamps(dt);
    if (this.state === "locomotion") this.blendGait(this.speed);
    this.mixer.update(dt);
  }

  private enter(state: AnimationStateName, fade: number): void {
    const from = this.state;
    this.state = state;
    if (state === "locomotion") {
      const walk = this.actions.get("walk");
      const run = this.actions.get("run");
      for (const a of [walk, run]) {
        if (!a) continue;
        this.ramps.delete(a);
        if (from !== "locomotion") {
          a.reset();
          a.setLoop(THREE.LoopRepeat, Infinity);
        }
      }
      this.fadeTo(null, fade);
      this.locomotionWeight = from === "locomotion" ? this.locomotionWeight : 0;
      return;
    }
    const clip = state === "emote" ? this.emote!.clip : state;
    const action = this.actions.get(clip);
    if (state === "jump" && action) {
      action.reset();
      action.setLoop(THREE.LoopOnce, 1);
      action.clampWhenFinished = true;
    }
    this.fadeTo(action ? clip : "idle", fade);
  }

  /** Fades every action toward weight 1 for `clip` (null: the locomotion pair takes over) and 0 for the rest. */
  private fadeTo(clip: string | null, fade: number): void {
    for (const [name, action] of this.actions) {
      const target = clip === null ? 0 : name === clip ? 1 : 0;
      if (clip === null && (name === "walk" || name === "run")) continue;
      this.ramp(action, target, fade);
    }
  }

  private readonly ramps = new Map<THREE.AnimationAction, { from: number; to: number; t: number; duration: number }>();

  private ramp(action: THREE.AnimationAction, to: number, duration: number): void {
    const from = action.getEffectiveWeight();
    if (duration <= 0) {
      action.setEffectiveWeight(to);
      this.ramps.delete(action);
      return;
    }
    if (from !== to) this.ramps.set(action, { from, to, t: 0, duration });
  }

  /** Walk and run weighted by speed, both at one phase, each at the rate its stride needs. */
  private blendGait(speed: number): void {
    const walk = this.actions.get("walk");
    const run = this.actions.get("run");
    const b = run && walk ? THREE.MathUtils.smoothstep(speed, BLEND_FROM, BLEND_TO) : run ? 1 : 0;
    // Cycles per second the body needs at this speed, with the blended stride.
    const stride = (1 - b) * this.stride.walk + b * this.stride.run;
    const cycles = speed / stride;
    this.locomotionWeight = Math.min(1, this.locomotionWeight + 1 / (FADE * 60));
    const w = this.locomotionWeight;
    if (walk) {
      walk.setEffectiveWeight((1 - b) * w);
      walk.setEffectiveTimeScale(cycles * walk.getClip().duration);
    }
    if (run) {
      run.setEffectiveWeight(b * w);
      run.setEffectiveTimeScale(cycles * run.getClip().duration);
      // Keep run at walk's phase, so the feet agree mid-blend.
      if (walk) run.time = (walk.time / walk.getClip().duration) * run.getClip().duration;
    }
  }

  /** Steps the crossfades. */
  private stepRamps(dt: number): void {
    for (const [action, r] of this.ramps) {
      r.t += dt;
      const k = Math.min(1, r.t / r.duration);
      action.setEffectiveWeight(r.from + (r.to - r.from) * k);
      if (k >= 1) this.ramps.delete(action);
    }
  }

  /** Everything `load` needs to go on exactly as this animator would (a pure function of its state). */
  save(): SavedAnimation {
    const ramps: SavedAnimation["ramps"] = {};
    const actions: SavedAnimation["actions"] = {};
    for (const [clip, a] of this.actions) {
      const internal = a as unknown as Internals;
      actions[clip] = {
        time: a.time,
        weight: a.weight,
        effectiveWeight: a.getEffectiveWeight(),
        timeScale: a.timeScale,
        effectiveTimeScale: a.getEffectiveTimeScale(),
        enabled: a.enabled,
        paused: a.paused,
        once: a.loop === THREE.LoopOnce,
        clamp: a.clampWhenFinished,
        loops: internal._loopCount,
      };
      const r = this.ramps.get(a);
      if (r) ramps[clip] = { ...r };
    }
    return { state: this.state, emote: this.emote && { ...this.emote }, speed: this.speed, grounded: this.grounded, vertical: this.vertical, dt: this.dt, locomotionWeight: this.locomotionWeight, mixerTime: this.mixer.time, ramps, actions };
  }

  /** Puts back a state `save` made (of a rig with the same clips); a malformed one throws and changes nothing. */
  load(saved: SavedAnimation): void {
    const clips = Object.keys(saved?.actions ?? {});
    if (!STATES.includes(saved?.state) || clips.length !== this.actions.size || clips.some((c) => !this.actions.has(c))) {
      throw new Error(`the saved animation's clips (${clips.join(", ")}) are not this rig's (${this.clips().join(", ")})`);
    }
    if (Object.keys(saved.ramps).some((c) => !this.actions.has(c)) || (saved.emote && !this.actions.has(saved.emote.clip))) throw new Error("the saved animation names a clip this rig lacks");
    this.state = saved.state;
    this.emote = saved.emote && { ...saved.emote };
    this.speed = saved.speed;
    // A state saved before the input was kept: standing, and the next update's motion is a change.
    this.grounded = saved.grounded ?? true;
    this.vertical = saved.vertical ?? 0;
    this.dt = saved.dt ?? 0;
    this.locomotionWeight = saved.locomotionWeight;
    this.mixer.time = saved.mixerTime;
    this.ramps.clear();
    for (const [clip, a] of this.actions) {
      const s = saved.actions[clip];
      a.reset();
      a.setLoop(s.once ? THREE.LoopOnce : THREE.LoopRepeat, Infinity);
      a.clampWhenFinished = s.clamp;
      a.time = s.time;
      a.weight = s.weight;
      a.timeScale = s.timeScale;
      a.enabled = s.enabled;
      a.paused = s.paused;
      const internal = a as unknown as Internals;
      internal._effectiveWeight = s.effectiveWeight;
      internal._effectiveTimeScale = s.effectiveTimeScale;
      internal._loopCount = s.loops;
      const r = saved.ramps[clip];
      if (r) this.ramps.set(a, { ...r });
    }
    this.onChange?.(["load"]);
  }

  /**
   * The two clips weighing most now, as (clip, time, weight) triples into `out` at `o` for a
   * crowd draw: a clip's index in `index` (-1 for a clip it lacks, or for none).
   */
  heaviest(out: Float32Array, o: number, index: Map<string, number>): void {
    let a: THREE.AnimationAction | null = null;
    let b: THREE.AnimationAction | null = null;
    let ka = "";
    let kb = "";
    for (const [clip, action] of this.actions) {
      const w = action.getEffectiveWeight();
      if (w <= 0) continue;
      if (!a || w > a.getEffectiveWeight()) {
        [b, kb, a, ka] = [a, ka, action, clip];
      } else if (!b || w > b.getEffectiveWeight()) {
        [b, kb] = [action, clip];
      }
    }
    out[o] = a ? (index.get(ka) ?? -1) : -1;
    out[o + 1] = a ? a.time : 0;
    out[o + 2] = a ? a.getEffectiveWeight() : 0;
    out[o + 3] = b ? (index.get(kb) ?? -1) : -1;
    out[o + 4] = b ? b.time : 0;
    out[o + 5] = b ? b.getEffectiveWeight() : 0;
  }

  /** The state machine's state, the dominant clip and the speed it saw. */
  getState(): AnimationState {
    const playing: AnimationState["playing"] = [];
    let top = { clip: "idle", weight: -1 };
    for (const [clip, action] of this.actions) {
      const weight = action.getEffectiveWeight();
      if (weight <= 1e-3) continue;
      playing.push({ clip, weight, timeScale: action.getEffectiveTimeScale() });
      if (weight > top.weight) top = { clip, weight };
    }
    return { state: this.state, clip: top.clip, speed: this.speed, playing };
  }
}
