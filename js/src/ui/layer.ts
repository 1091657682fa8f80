// The UI of one world: its live containers by opaque handle, their
// lifecycles advanced each fixed step, per-speaker queues (one container
// per queue key shows at a time, in creation order) and feeds.

import * as THREE from "three";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { Vec3 } from "../ecs/world.ts";
import { attachOverlay } from "../render/overlay.ts";
import type { Entities } from "../scene/entities.ts";
import { UiContainer, type Locate } from "./container.ts";
import { Lifecycle, LifecycleState } from "./lifecycle.ts";
import { type Content, PanelSpec, type PanelSpecInput, type PanelSpecParsed } from "./panel.ts";
import { resolveStyle, rgba, type UiStyleInput } from "./style.ts";

const PREFIX = "ui_";
/** Live containers a world holds at most (queued ones count). */
export const MAX_CONTAINERS = 4096;
/** Of those, what one owner (a session) may hold, so one client cannot take every place. */
export const MAX_CONTAINERS_PER_OWNER = MAX_CONTAINERS / 8;

interface Live {
  handle: string;
  spec: PanelSpecParsed;
  container: UiContainer;
  life: LifecycleState;
  /** Characters revealed when last composited. */
  shownReveal: number;
  /** Who made it (a session), if anyone in particular. */
  owner: string | null;
}

export interface ContainerInfo {
  handle: string;
  kind: string;
  phase: string;
  /** The panel's material opacity now. */
  opacity: number;
  /** Device pixels it covers at its pixelScale (a screen panel, exactly). */
  pixelSize: [number, number];
  /** Logical size and the body text's box in it. */
  width: number;
  height: number;
  textBox: { x: number; y: number; w: number; h: number };
  content: Content;
  queue: string | null;
}

export class UiLayer {
  private readonly live = new Map<string, Live>();
  private readonly queues = new Map<string, string[]>();
  /** Live containers per owner. */
  private readonly owned = new Map<string, number>();
  private next = 1;
  /** Where the containers are: drawn over the world's scene, untone-mapped, so their colours stay exact. */
  readonly overlay = new THREE.Scene();

  constructor(scene: THREE.Scene, private readonly entities: Entities) {
    attachOverlay(scene, this.overlay);
  }

  /**
   * Creates a container (input as ui.panel takes it) for `owner` (a session,
   * which may hold 1/8 of the world's places) and returns its handle.
   * Everything is checked before anything is added: bad input changes nothing.
   */
  create(input: PanelSpecInput | PanelSpecParsed, owner: string | null = null): string {
    const parsed = PanelSpec.safeParse(input);
    if (!parsed.success) throw engineError("invalid_input", `ui panel: ${parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ")}`);
    const spec = parsed.data;
    if (this.live.size >= MAX_CONTAINERS) throw engineError("capacity_exceeded", `a world holds at most ${MAX_CONTAINERS} UI containers; remove some first`);
    const held = owner === null ? 0 : this.owned.get(owner) ?? 0;
    if (held >= MAX_CONTAINERS_PER_OWNER) {
      throw engineError("capacity_exceeded", `session ${owner} holds ${held} UI containers, its most (1/8 of the world's ${MAX_CONTAINERS}); remove some first`);
    }
    const { kind, anchor } = spec;
    if (kind === "hudPanel" && anchor.type !== "screen") throw engineError("invalid_input", "a hudPanel is screen-anchored: give anchor {type: 'screen', corner, offset}");
    if (spec.tail && kind !== "speechBubble" && kind !== "thoughtBubble") throw engineError("invalid_input", `tail is for speechBubble and thoughtBubble, not ${kind}`);
    if (spec.leader && kind !== "callout") throw engineError("invalid_input", `leader is for callout, not ${kind}`);
    if ((spec.tail || spec.leader) && anchor.type !== "world") throw engineError("invalid_input", "tails and leaders point into the world: they need a world anchor");
    const locate = anchor.type === "world" ? (anchor.entity !== undefined ? this.entityLocator(anchor.entity) : fixed(anchor.position!)) : null;
    // A bubble on an entity aims its tail or puffs at that entity unless told otherwise.
    let aim: string | Vec3 | undefined = spec.tail?.target ?? spec.leader?.target;
    if (aim === undefined && (kind === "speechBubble" || kind === "thoughtBubble") && anchor.type === "world") aim = anchor.entity;
    const aimed = aim === undefined ? null : typeof aim === "string" ? this.entityLocator(aim) : fixed(aim);
    const [ox, oy, oz] = spec.tail?.offset ?? [0, 0, 0];
    const pointAt: Locate | null = aimed && (ox || oy || oz) ? () => {
      const p = aimed();
      return p && [p[0] + ox, p[1] + oy, p[2] + oz];
    } : aimed;
    const lifecycle = spec.lifecycle ?? Lifecycle.parse({});
    const content: Content = { text: spec.text, title: spec.title, lines: feedLines(spec.lines, lifecycle.feed?.maxLines) };
    const container = new UiContainer(
      {
        kind,
        anchor,
        locate,
        content,
        style: resolveStyle(kind, spec.style),
        sizing: { width: spec.width, maxWidth: spec.maxWidth, maxLines: spec.maxLines },
        pixelScale: spec.pixelScale ?? (anchor.type === "screen" ? 1 : 2),
        pointAt,
        tailWidth: spec.tail?.width ?? 22,
        leaderColor: spec.leader?.color ? rgba(spec.leader.color) : null,
      },
      lifecycle.typewriter ? 0 : undefined,
    );
    const handle = PREFIX + (this.next++).toString(36);
    const life = new LifecycleState(lifecycle, () => container.layout.characters);
    const entry: Live = { handle, spec, container, life, shownReveal: lifecycle.typewriter ? 0 : Infinity, owner };
    this.live.set(handle, entry);
    if (owner !== null) this.owned.set(owner, held + 1);
    this.overlay.add(container.group);
    const key = lifecycle.queue;
    const waiting = key === undefined ? null : this.queues.get(key) ?? this.queues.set(key, []).get(key)!;
    waiting?.push(handle);
    if (!waiting || waiting[0] === handle) life.show();
    container.setAlpha(life.alpha);
    return handle;
  }

  /** A locator for entity `id`, which must exist now (not_found otherwise). */
  private entityLocator(id: string): Locate {
    const entry = this.entities.require(id);
    const world = this.entities.world;
    return () => (world.entities.get(id) === entry ? world.position(entry.eid) : null);
  }

  /** Changes a container's words or style and re-composites it; false for an unknown handle. */
  update(handle: string, changes: { text?: string; title?: string; lines?: string[]; style?: UiStyleInput }): { ok: boolean; changed: boolean } {
    const entry = this.live.get(handle);
    if (!entry) return { ok: false, changed: false };
    const old = entry.container.content;
    const feed = entry.life.spec.feed;
    const lines = changes.lines === undefined ? old.lines : feed ? feedLines([...(old.lines ?? []), ...changes.lines], feed.maxLines) : changes.lines;
    const content: Content = { text: changes.text ?? old.text, title: changes.title ?? old.title, lines };
    const style = changes.style ? { ...entry.spec.style, ...changes.style } : undefined;
    const sameWords = content.text === old.text && content.title === old.title && JSON.stringify(content.lines) === JSON.stringify(old.lines);
    const sameStyle = !style || JSON.stringify(style) === JSON.stringify(entry.spec.style ?? {});
    if (sameWords && sameStyle) return { ok: true, changed: false };
    if (style) entry.spec = { ...entry.spec, style };
    if (!sameWords && content.text !== old.text) entry.life.restart();
    entry.shownReveal = entry.life.revealed;
    entry.container.recomposite({ content, style: style ? resolveStyle(entry.spec.kind, style) : undefined }, entry.life.revealed);
    return { ok: true, changed: true };
  }

  /** Removes a container: detached from the scene, its GPU resources freed. */
  remove(handle: string): boolean {
    const entry = this.live.get(handle);
    if (!entry) return false;
    this.live.delete(handle);
    if (entry.owner !== null) {
      const held = this.owned.get(entry.owner)! - 1;
      if (held === 0) this.owned.delete(entry.owner);
      else this.owned.set(entry.owner, held);
    }
    entry.container.dispose();
    const key = entry.life.spec.queue;
    if (key !== undefined) {
      const waiting = this.queues.get(key)!;
      const wasFirst = waiting[0] === handle;
      waiting.splice(waiting.indexOf(handle), 1);
      if (waiting.length === 0) this.queues.delete(key);
      else if (wasFirst) this.showNext(waiting[0]);
    }
    return true;
  }

  private showNext(handle: string): void {
    const next = this.live.get(handle)!;
    next.life.show();
    next.container.setAlpha(next.life.alpha);
  }

  /** One fixed step of every container's lifecycle. */
  step(dt: number): void {
    for (const entry of [...this.live.values()]) {
      const { life, container } = entry;
      life.step(dt);
      // A container whose entity was destroyed goes with it.
      if (life.phase === "gone" || container.anchorLost()) {
        this.remove(entry.handle);
        continue;
      }
      if (life.revealed !== entry.shownReveal) {
        entry.shownReveal = life.revealed;
        container.reveal(life.revealed);
      }
      container.setAlpha(life.alpha);
    }
  }

  has(handle: string): boolean {
    return this.live.has(handle);
  }

  /** Handles waiting in `key`'s queue, the one showing first. */
  queued(key: string): string[] {
    return [...(this.queues.get(key) ?? [])];
  }

  /** What a container is and shows now, or null for an unknown handle. */
  inspect(handle: string): ContainerInfo | null {
    const entry = this.live.get(handle);
    if (!entry) return null;
    const { container, life } = entry;
    const c = container.layout;
    return {
      handle,
      kind: container.kind,
      phase: life.phase,
      opacity: container.group.visible ? container.opacity : 0,
      pixelSize: container.pixelSize,
      width: c.width,
      height: c.height,
      textBox: c.textBox,
      content: container.content,
      queue: life.spec.queue ?? null,
    };
  }

  /** Every live handle, in creation order. */
  handles(): string[] {
    return [...this.live.keys()];
  }

  /** Removes every container. */
  clear(): void {
    for (const handle of [...this.live.keys()]) this.remove(handle);
  }
}

function fixed(p: Vec3): Locate {
  const at: Vec3 = [p[0], p[1], p[2]];
  return () => at;
}

function feedLines(lines: string[] | undefined, maxLines: number | undefined): string[] | undefined {
  if (lines === undefined || maxLines === undefined) return lines;
  return lines.slice(-maxLines);
}
