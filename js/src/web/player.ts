// The static player (`limina export-web`), in the browser: the spectator
// page's drawing fed from files instead of a server. It fetches the world
// log and checks its sha256 chain (log-chain.ts) before anything plays — a
// broken log is refused, visibly, and nothing is drawn — then plays the
// recording export-web made by replaying that log natively: the state stream
// of every tick, a keyframe every second. Seeking restores the keyframe at
// or before the tick and applies the deltas after it; playing applies the
// deltas in order at 60 ticks a second times the speed.

import { verifyLog } from "./log-chain.ts";

/** The recording's first line: what it replays and how it is bound to the log. */
export interface RecordingHeader {
  format: "limina.recording";
  version: 1;
  /** The world log beside it, its events (without the terminator) and head hash. */
  log: string;
  events: number;
  headHash: string | null;
  firstTick: number;
  lastTick: number;
  /** The world digest the native replay ended at. */
  digest: string;
}

/** What the player drives: the page's mirror and drawing. */
export interface PlayerView {
  /** Replaces the whole state with a `state/snapshot`'s params. */
  snapshot(params: Record<string, unknown>): void;
  /** Applies a `state/delta`'s params. */
  delta(params: Record<string, unknown>): void;
  /** The tick shown now (ticks without changes carry no delta). */
  shown(tick: number): void;
}

interface Frame {
  tick: number;
  params: Record<string, unknown>;
}

const TICKS_PER_SECOND = 60;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** The last index in `frames` whose tick is ≤ `tick` (-1: none). */
function lastAtOrBefore(frames: Frame[], tick: number): number {
  let lo = 0;
  let hi = frames.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (frames[mid].tick <= tick) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

export class Player {
  status: "verifying" | "refused" | "ready" = "verifying";
  message = "checking the world log's sha256 chain";
  playing = false;
  speed = 1;
  tick = -1;
  header: RecordingHeader | null = null;
  private keyframes: Frame[] = [];
  private deltas: Frame[] = [];
  private events: Record<string, unknown>[] = [];
  /** Fractional ticks owed to the clock while playing. */
  private owed = 0;
  private lastFrame = 0;

  constructor(private readonly view: PlayerView) {}

  /** Loads and verifies; resolves once the player is ready or has refused. */
  async load(): Promise<void> {
    this.show();
    try {
      const recording = await this.text("recording.jsonl");
      const lines = recording.split("\n").filter((l) => l !== "");
      const header = JSON.parse(lines[0]) as RecordingHeader;
      if (header.format !== "limina.recording" || header.version !== 1) return this.refuse(`recording.jsonl is not a Limina recording this player reads`);
      const verdict = verifyLog(await this.text(header.log));
      if (!verdict.ok) return this.refuse(`the world log's sha256 chain is broken — ${verdict.reason} at line ${verdict.line}: ${verdict.message}. Nothing is played.`);
      if (verdict.headHash !== header.headHash || verdict.events.length !== header.events) {
        return this.refuse(`the recording was not made from this world log (its head hash is ${header.headHash}, the log's ${verdict.headHash}). Nothing is played.`);
      }
      for (const line of lines.slice(1)) {
        const msg = JSON.parse(line) as { method: string; params: Record<string, unknown> };
        const frame = { tick: msg.params.tick as number, params: msg.params };
        if (msg.method === "state/snapshot") this.keyframes.push(frame);
        else if (msg.method === "state/delta") this.deltas.push(frame);
      }
      if (this.keyframes.length === 0) return this.refuse("the recording holds no keyframe");
      this.header = header;
      this.events = verdict.events;
      this.status = "ready";
      this.message = `world log verified: ${header.events} events, sha256 chain intact (head ${String(header.headHash).slice(0, 19)}…)`;
      const seek = $<HTMLInputElement>("seek");
      seek.min = String(header.firstTick);
      seek.max = String(header.lastTick);
      this.seek(header.firstTick);
      this.playing = !new URLSearchParams(location.search).has("paused");
      this.lastFrame = performance.now();
      this.show();
      requestAnimationFrame((t) => this.frame(t));
    } catch (e) {
      this.refuse(e instanceof Error ? e.message : String(e));
    }
  }

  private async text(name: string): Promise<string> {
    const r = await fetch(name, { cache: "no-store" });
    if (!r.ok) throw new Error(`cannot load ${name}: HTTP ${r.status}`);
    return r.text();
  }

  private refuse(message: string): void {
    this.status = "refused";
    this.message = `refused: ${message}`;
    this.playing = false;
    this.show();
  }

  /** Shows the world as it was at `tick` (clamped to the recording). */
  seek(tick: number): void {
    if (!this.header) return;
    const target = Math.max(this.header.firstTick, Math.min(this.header.lastTick, Math.round(tick)));
    let from = this.tick;
    if (target < this.tick || this.tick < 0) {
      const k = this.keyframes[Math.max(0, lastAtOrBefore(this.keyframes, target))];
      this.view.snapshot(k.params);
      from = k.tick;
    }
    for (let i = lastAtOrBefore(this.deltas, from) + 1; i < this.deltas.length && this.deltas[i].tick <= target; i++) this.view.delta(this.deltas[i].params);
    this.tick = target;
    this.view.shown(target);
    this.show();
  }

  play(on: boolean): void {
    if (this.status !== "ready") return;
    if (on && this.tick >= this.header!.lastTick) this.seek(this.header!.firstTick);
    this.playing = on;
    this.owed = 0;
    this.show();
  }

  setSpeed(speed: number): void {
    if (Number.isFinite(speed) && speed > 0) this.speed = speed;
    this.show();
  }

  private frame(now: number): void {
    requestAnimationFrame((t) => this.frame(t));
    // A hidden tab or a stall does not fast-forward the world.
    const dt = Math.min(0.25, (now - this.lastFrame) / 1000);
    this.lastFrame = now;
    if (!this.playing) return;
    this.owed += dt * TICKS_PER_SECOND * this.speed;
    const whole = Math.floor(this.owed);
    if (whole === 0) return;
    this.owed -= whole;
    this.seek(this.tick + whole);
    if (this.tick >= this.header!.lastTick) this.play(false);
  }

  /** The controls and the verdict, as they are now. */
  private show(): void {
    const status = $("player-status");
    status.textContent = this.message;
    status.className = this.status;
    $("player").hidden = this.status !== "ready";
    if (!this.header) return;
    $("play").textContent = this.playing ? "Pause" : "Play";
    $<HTMLInputElement>("seek").value = String(this.tick);
    $("player-tick").textContent = `tick ${this.tick} / ${this.header.lastTick}`;
    $("player-events").textContent = this.recentEvents().join("\n");
  }

  /** The last few world-log events up to the tick shown (skill calls by the tick they applied at). */
  private recentEvents(): string[] {
    const out: string[] = [];
    for (const e of this.events) {
      const p = e.payload as { tick?: unknown; appliedTick?: unknown; skill?: unknown } | null;
      const at = typeof p?.appliedTick === "number" ? p.appliedTick : typeof p?.tick === "number" ? p.tick : null;
      if (at === null || at > this.tick || e.type !== "skill.executed") continue;
      out.push(`${at}  ${e.actorId}  ${p!.skill}`);
    }
    return out.slice(-4);
  }

  /** Wires the play/pause button, the seek bar and the speed menu. */
  bindControls(): void {
    $("play").addEventListener("click", () => this.play(!this.playing));
    $<HTMLInputElement>("seek").addEventListener("input", (e) => this.seek(Number((e.target as HTMLInputElement).value)));
    $<HTMLSelectElement>("speed").addEventListener("change", (e) => this.setSpeed(Number((e.target as HTMLSelectElement).value)));
    addEventListener("keydown", (e) => {
      if (e.code === "Space" && this.status === "ready") {
        this.play(!this.playing);
        e.preventDefault();
      }
    });
  }

  state(): Record<string, unknown> {
    return { status: this.status, message: this.message, playing: this.playing, speed: this.speed, tick: this.tick, firstTick: this.header?.firstTick, lastTick: this.header?.lastTick };
  }
}
