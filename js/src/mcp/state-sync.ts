// Authoritative state sync for WebSocket clients: `state/subscribe` → a
// snapshot, then per-tick deltas (transforms that changed, entities created,
// restyled and destroyed). `aoi/declare` narrows a client to a sphere of
// interest. Created entities and snapshot entries carry each entity's look
// and tags (docs/entities.md), so a client redraws what it did not build;
// `restyled` resends them when they change.
// Transforms travel as exact float32 bytes, base64-encoded: `moved` holds the
// entities whose position alone changed (`ids` and `positions`, 3 floats
// each), `turned` those that turned about the vertical axis alone — their
// rotation is (0, ry, 0, rw) with both zeros +0, their scale unchanged, as
// for a walking character (`ids` and `transforms`, 5 floats each: px py pz
// ry rw) — and `changed` any other change of rotation or scale (`ids` and
// `transforms`, 10 floats each: px py pz rx ry rz rw sx sy sz).
//
// Snapshots carry `world` (the look settings, lighting and view camera the
// spectator page draws with) and a delta carries it again when it changed.
// A character's entry also carries `character` (its appearance) and, in
// snapshots and `created`, its whole animation state (characters/
// animator.ts's SavedAnimation) as `animation`. After that only discrete
// changes travel — motion taken (the animator's quantized input), emotes
// played — in `animationChanges`, each stamped with the animation clock it
// happened at; every message carries the clock (`animationClock`), and a
// client advances its copy of each animator once per clock step between
// changes, so it holds the same state as the world's. A character whose
// animator was loaded whole (a restore) comes whole again in `animations`.
// While characters are in view a delta goes out every step (the clock).
// A sink (`--spectator-sink`, for relays) gets the
// full-view group's deltas and a snapshot every second, published once
// however many spectators the relays serve.
//
// Clients with the full view share one known state and one encoded delta
// per tick (the "full-view group"). Its transform columns are built off the
// loop, on limina-mcp's encoder thread, which holds what the group was last
// sent (crates/limina-delta/src/json.rs): the loop hands it the step's
// transforms and the rest of the delta's text, and each member's place in
// its outbound queue. With a sink the group's delta is built here whole,
// since the sink publishes it from the loop. A client that falls behind (its
// outbound queue backed up, or a message dropped) leaves the group; once it
// has caught up it gets a fresh snapshot and rejoins. Clients with an area
// of interest each get their own delta, their visible sets answered by one
// batched native spatial query. Nothing here ever waits on a client.
//
// A client that asks for `encoding: "binary"` gets the compact binary
// stream instead (state-binary.ts; docs/mcp-protocol.md, "Binary state
// deltas"); `state/clients` still comes to it as JSON.

import { base64 } from "../../../crates/limina-ops/js/base64.ts";
import { backlog, broadcast, send, SendOutcome } from "../../../crates/limina-mcp/js/hub.ts";
import { setJsonEntities, streamJsonFrame } from "../../../crates/limina-mcp/js/sync.ts";
import type { ClockedChange } from "../characters/characters.ts";
import type { World } from "../ecs/world.ts";
import { type EntityLook, entityLook } from "../scene/describe.ts";
import type { Entities } from "../scene/entities.ts";
import type { SpatialIndex } from "../spatial/spatial-index.ts";
import { RpcError, notification } from "./jsonrpc.ts";
import { JSONRPC } from "./protocol.ts";
import { BINARY_FORMAT, BinaryStreams, POSITION_STEP } from "./state-binary.ts";

/** Ticks between two snapshots a sink publishes (a relay that joins or missed a message waits at most this long). */
const SINK_SNAPSHOT_EVERY = 60;
/** A client this many messages behind is treated as stalled. */
const BACKLOG_LIMIT = 8;
/** Floats per entity: position, rotation, scale. */
const STRIDE = 10;
const LAYOUT = "[px,py,pz,rx,ry,rz,rw,sx,sy,sz]";

type Known = Map<string, Float32Array>;

interface Aoi {
  center: [number, number, number];
  radius: number;
}

interface Subscriber {
  conn: number;
  aoi: Aoi | null;
  /** AOI clients only: what this client was last sent. */
  known: Known;
  /** Delivered everything so far: full-view clients are then in lock-step with the group. */
  synced: boolean;
  /** Streamed in the binary encoding (by `binary`), not here. */
  binary: boolean;
}

interface Columns {
  ids: string[];
  values: number[];
}

/** An entity's look and tags as the stream carries them (and a character's appearance). */
interface Styled {
  entity: string;
  look: EntityLook | null;
  tags: string[];
  character?: { appearance: unknown; model?: string };
}

interface Delta {
  moved: Columns;
  turned: Columns;
  changed: Columns;
  created: (Styled & { transform: number[]; animation?: unknown })[];
  restyled: Styled[];
  destroyed: string[];
  /** Characters in view whose animation changed since the last delta, by entity id: the changes, in order. */
  animationChanges: Record<string, ClockedChange[]>;
  /** Characters in view whose animator was loaded whole: the state now, by entity id. */
  animations: Record<string, unknown>;
  /** Nothing to send: no change in view (of the transforms, when they were compared). */
  empty: boolean;
  /** Applies this delta to a known state. */
  apply(known: Known): void;
}

/** The world's look, lighting and view (web/world-look.ts's `worldLookFeed`). */
export interface SceneFeed {
  /** Moves whenever `look()` may read differently: while it stands still the look is not rebuilt. */
  revision(): number;
  look(): unknown;
}

export interface StateSyncOptions {
  /** The world's look, lighting and view, sent in snapshots and again when it changes. */
  scene?: SceneFeed;
  /** Gets the full-view group's deltas and, every second, its snapshot (`--spectator-sink`). */
  sink?: (text: string) => void;
  /** The characters' animation (web/world-look.ts's `characterAnimation`). */
  animation?: AnimationFeed;
}

/** Where the stream's animation comes from. */
export interface AnimationFeed {
  /** The animation clock now (steps every animator has taken). */
  clock(): number;
  /** The changes since the last take, by entity id, in order. */
  take(): Map<string, ClockedChange[]>;
  /** A character's whole animation state now (undefined: no such character). */
  state(id: string): unknown;
}

export class StateSync {
  private readonly subs = new Map<number, Subscriber>();
  private readonly groupKnown: Known = new Map();
  private readonly row = new Float32Array(STRIDE);
  /** The world's look as last sent (JSON), the feed's revision it was built at, and this tick's change of it (null: none). */
  private sceneJson = "";
  private sceneRevision = -1;
  private sceneChange: unknown = null;
  private sinkStarted = false;
  /** This tick's animation changes, the clock, and the whole states asked for so far this tick. */
  private animationChanges = new Map<string, ClockedChange[]>();
  private animationClock = 0;
  private readonly animationStates = new Map<string, unknown>();

  private readonly world: World;
  /** Per known state: the style revision each entity was last sent at, and the world's then (unchanged since: nothing to resend). */
  private readonly sentStyles = new WeakMap<Known, { revision: number; byId: Map<string, number>; clock: number }>();

  private readonly binary: BinaryStreams;
  /** The full-view group's transform columns are built by the encoder thread (no sink: see the notes above). */
  private readonly offLoop: boolean;
  /** The entity table's revision the encoder last heard of for the group. */
  private groupTable = -1;

  constructor(private readonly entities: Entities, private readonly spatial: SpatialIndex, private readonly options: StateSyncOptions = {}) {
    this.world = entities.world;
    this.binary = new BinaryStreams(entities);
    this.offLoop = !options.sink;
  }

  private styled(id: string, tags: Set<string>, entry: Parameters<typeof entityLook>[0]): Styled {
    const r = entry.resource as { kind?: unknown; appearance?: unknown; model?: string } | undefined;
    const character = r?.kind === "character" ? { character: { appearance: r.appearance, ...(r.model === undefined ? {} : { model: r.model }) } } : {};
    return { entity: id, look: entityLook(entry), tags: [...tags], ...character };
  }

  /** A character's whole animation state now, once per tick however many views ask (undefined: not a character). */
  private animationOf(id: string): unknown {
    if (!this.options.animation) return undefined;
    if (!this.animationStates.has(id)) this.animationStates.set(id, this.options.animation.state(id));
    return this.animationStates.get(id);
  }

  get subscribers(): number {
    return this.subs.size;
  }

  /** Connections the server has now, as snapshots report them. */
  private clientCount = 0;

  /** Tells subscribers how many clients the server has (`state/clients`), when it changed. */
  clients(count: number): void {
    if (count === this.clientCount) return;
    this.clientCount = count;
    if (this.subs.size > 0) broadcast([...this.subs.keys()], notification("state/clients", { clients: count }), true);
  }

  /**
   * Subscribes a connection; its snapshot comes on the next tick, as a
   * `state/snapshot` notification or, with `encoding: "binary"`, a binary message.
   */
  subscribe(conn: number, p: Record<string, unknown> = {}): unknown {
    const encoding = p.encoding ?? "json";
    if (encoding !== "json" && encoding !== "binary") {
      throw new RpcError(JSONRPC.INVALID_PARAMS, `Invalid params: unknown encoding ${JSON.stringify(encoding)}; this server offers "json" (the default) and "binary" (${BINARY_FORMAT})`);
    }
    const maxRate = p.maxRate ?? 60;
    if (encoding === "json" && p.maxRate !== undefined) throw new RpcError(JSONRPC.INVALID_PARAMS, "Invalid params: maxRate applies to the binary encoding");
    if (!(typeof maxRate === "number" && Number.isFinite(maxRate) && maxRate > 0 && maxRate <= 60)) {
      throw new RpcError(JSONRPC.INVALID_PARAMS, "Invalid params: maxRate must be a number of deltas per second in (0, 60]");
    }
    const prev = this.subs.get(conn);
    const aoi = prev?.aoi ?? null;
    this.binary.unsubscribe(conn);
    this.subs.set(conn, { conn, aoi, known: new Map(), synced: false, binary: encoding === "binary" });
    if (encoding === "json") return { ok: true, layout: LAYOUT, aoi, snapshot: "state/snapshot on the next tick, then state/delta every tick" };
    const rate = this.binary.subscribe(conn, maxRate, aoi);
    return { ok: true, encoding, format: BINARY_FORMAT, positionStep: POSITION_STEP, maxRate: rate, aoi, snapshot: "a binary snapshot message on the next tick, then binary deltas" };
  }

  unsubscribe(conn: number): boolean {
    this.binary.unsubscribe(conn);
    return this.subs.delete(conn);
  }

  declareAoi(conn: number, p: Record<string, unknown>): unknown {
    const s = this.subs.get(conn);
    if (!s) throw new RpcError(JSONRPC.INVALID_PARAMS, "Invalid params: aoi/declare needs a state/subscribe first");
    if (p.center === null) {
      s.aoi = null;
    } else {
      const c = p.center;
      if (!(Array.isArray(c) && c.length === 3 && c.every((v) => typeof v === "number" && Number.isFinite(v)))) {
        throw new RpcError(JSONRPC.INVALID_PARAMS, "Invalid params: center must be [x, y, z] finite numbers (or null to clear)");
      }
      if (!(typeof p.radius === "number" && Number.isFinite(p.radius) && p.radius > 0)) {
        throw new RpcError(JSONRPC.INVALID_PARAMS, "Invalid params: radius must be a number > 0");
      }
      s.aoi = { center: c as [number, number, number], radius: p.radius };
    }
    // The view changed: the next tick brings a fresh snapshot.
    s.synced = false;
    s.known = new Map();
    if (s.binary) this.binary.setAoi(conn, s.aoi);
    return { ok: true, aoi: s.aoi };
  }

  private readRow(eid: number): Float32Array {
    const { Position: P, Rotation: R, Scale: S } = this.world;
    const r = this.row;
    r[0] = P.x[eid], r[1] = P.y[eid], r[2] = P.z[eid];
    r[3] = R.x[eid], r[4] = R.y[eid], r[5] = R.z[eid], r[6] = R.w[eid];
    r[7] = S.x[eid], r[8] = S.y[eid], r[9] = S.z[eid];
    return r;
  }

  /** Per AOI subscriber, the eids inside its sphere (one native batched query). */
  private visible(subs: Subscriber[]): Map<Subscriber, Set<number>> {
    const out = new Map<Subscriber, Set<number>>();
    if (subs.length === 0) return out;
    const q = new Float64Array(subs.length * 5);
    subs.forEach((s, k) => q.set([...s.aoi!.center, s.aoi!.radius, -1], k * 5));
    const r = this.spatial.queryBatch(q);
    subs.forEach((s, k) => out.set(s, new Set(r.eids.subarray(r.offsets[k], r.offsets[k + 1]))));
    return out;
  }

  /**
   * The delta from `known` to the current state of the entities in `seen` (all when null). Without `transforms` the
   * transforms of entities already known are not compared (the encoder thread does that), and `known` holds them as
   * they were when the entity came.
   */
  private delta(known: Known, seen: Set<number> | null, transforms = true): Delta {
    const moved: Columns = { ids: [], values: [] };
    const turned: Columns = { ids: [], values: [] };
    const changed: Columns = { ids: [], values: [] };
    const created: Delta["created"] = [];
    const restyled: Styled[] = [];
    const updates: [string, Float32Array][] = [];
    const styles: [string, number][] = [];
    const table = this.world.entities;
    const inView = (id: string) => {
      const e = table.get(id);
      return e !== undefined && (!seen || seen.has(e.eid));
    };
    /** Known entities still in view. */
    let kept = 0;
    let sent = this.sentStyles.get(known);
    if (!sent) this.sentStyles.set(known, (sent = { revision: -1, byId: new Map(), clock: this.animationClock }));
    const worldRevision = this.entities.styleRevision;
    const stale = sent.revision !== worldRevision;
    const fresh = new Set<string>();
    let characters = false;
    for (const e of table.entries()) {
      if (seen && !seen.has(e.eid)) continue;
      if ((e.resource as { kind?: unknown } | undefined)?.kind === "character") characters = true;
      const prev = known.get(e.id);
      if (!prev) {
        const row = this.readRow(e.eid);
        const animation = this.animationOf(e.id);
        created.push({ ...this.styled(e.id, e.tags, e), transform: Array.from(row), ...(animation === undefined ? {} : { animation }) });
        fresh.add(e.id);
        updates.push([e.id, row.slice()]);
        styles.push([e.id, this.entities.styleRevisionOf(e.id)]);
        continue;
      }
      kept++;
      if (stale) {
        const revision = this.entities.styleRevisionOf(e.id);
        if (sent.byId.get(e.id) !== revision) {
          restyled.push(this.styled(e.id, e.tags, e));
          styles.push([e.id, revision]);
        }
      }
      if (!transforms) continue;
      const row = this.readRow(e.eid);
      let shifted = false;
      let rotated = false;
      let scaled = false;
      for (let i = 0; i < 3; i++) if (prev[i] !== row[i]) shifted = true;
      for (let i = 3; i < 7; i++) if (prev[i] !== row[i]) rotated = true;
      for (let i = 7; i < STRIDE; i++) if (prev[i] !== row[i]) scaled = true;
      if (rotated && !scaled && Object.is(row[3], 0) && Object.is(row[5], 0)) {
        turned.ids.push(e.id);
        turned.values.push(row[0], row[1], row[2], row[4], row[6]);
      } else if (rotated || scaled) {
        changed.ids.push(e.id);
        for (let i = 0; i < STRIDE; i++) changed.values.push(row[i]);
      } else if (shifted) {
        moved.ids.push(e.id);
        moved.values.push(row[0], row[1], row[2]);
      }
      if (shifted || rotated || scaled) updates.push([e.id, row.slice()]);
    }
    const destroyed: string[] = [];
    if (kept < known.size) for (const id of known.keys()) if (!inView(id)) destroyed.push(id);
    // Changes of characters that came whole in `created` are in their state already.
    const animationChanges: Record<string, ClockedChange[]> = {};
    const animations: Record<string, unknown> = {};
    let animated = false;
    for (const [id, changes] of this.animationChanges) {
      if (!inView(id) || fresh.has(id)) continue;
      if (changes.some((c) => c[1] === "load")) animations[id] = this.animationOf(id);
      else animationChanges[id] = changes;
      animated = true;
    }
    // Characters in view advance with the clock: a client learns of each step.
    const clock = this.animationClock;
    const stepped = characters && sent.clock !== clock;
    const record = sent;
    const settle = () => {
      for (const [id, rev] of styles) record.byId.set(id, rev);
      for (const id of destroyed) record.byId.delete(id);
      record.revision = worldRevision;
      record.clock = clock;
    };
    const empty = moved.ids.length === 0 && turned.ids.length === 0 && changed.ids.length === 0 && created.length === 0 && restyled.length === 0 && destroyed.length === 0 && !animated && !stepped && this.sceneChange === null;
    return {
      moved,
      turned,
      changed,
      created,
      restyled,
      destroyed,
      animationChanges,
      animations,
      empty,
      apply(k: Known) {
        for (const [id, r] of updates) k.set(id, r);
        for (const id of destroyed) k.delete(id);
        settle();
      },
    };
  }

  /** A delta's wire form: transforms as base64 float32 columns (left out, without `columns`: the encoder thread's). */
  private wire(d: Delta, step: number, at: number, columns = true): unknown {
    const b64 = (values: number[]) => base64(Float32Array.from(values));
    return {
      tick: step,
      sentAt: at,
      ...(columns
        ? {
          moved: { ids: d.moved.ids, positions: b64(d.moved.values) },
          turned: { ids: d.turned.ids, transforms: b64(d.turned.values) },
          changed: { ids: d.changed.ids, transforms: b64(d.changed.values) },
        }
        : {}),
      created: d.created,
      ...(d.restyled.length > 0 ? { restyled: d.restyled } : {}),
      destroyed: d.destroyed,
      ...(this.options.animation ? { animationClock: this.animationClock } : {}),
      ...(Object.keys(d.animationChanges).length > 0 ? { animationChanges: d.animationChanges } : {}),
      ...(Object.keys(d.animations).length > 0 ? { animations: d.animations } : {}),
      ...(this.sceneChange === null ? {} : { world: this.sceneChange }),
    };
  }

  /** The entities `known` holds, as they are now: a snapshot follows this tick's delta, after which what a view knows is the current state. */
  private snapshot(known: Known, aoi: Aoi | null, step: number, at: number): string {
    const entities = [];
    for (const e of this.world.entities.entries()) {
      if (!known.has(e.id)) continue;
      const animation = this.animationOf(e.id);
      entities.push({ ...this.styled(e.id, e.tags, e), transform: Array.from(this.readRow(e.eid)), ...(animation === undefined ? {} : { animation }) });
    }
    const world = this.options.scene ? JSON.parse(this.sceneJson) : null;
    const clock = this.options.animation ? { animationClock: this.animationClock } : {};
    return notification("state/snapshot", { tick: step, sentAt: at, layout: LAYOUT, aoi, clients: this.clientCount, world, ...clock, entities });
  }

  /** Hands the group's step to the encoder thread, which adds the transform columns and fills each member's place; each member's send outcome. */
  private streamGroup(d: Delta, members: number[], step: number, at: number): SendOutcome[] {
    const table = this.world.entities;
    if (table.revision !== this.groupTable) {
      const eids = new Uint32Array(table.size);
      const ids: string[] = [];
      for (const e of table.entries()) {
        eids[ids.length] = e.eid;
        ids.push(JSON.stringify(e.id));
      }
      setJsonEntities(eids, ids);
      this.groupTable = table.revision;
    }
    const text = members.length > 0 ? notification("state/delta", this.wire(d, step, at, false)) : "";
    return streamJsonFrame(text, Math.max(0, text.indexOf('"created":')), !d.empty, Uint32Array.from(members), this.world);
  }

  /** Fans this tick's changes out to every subscriber. */
  tick(step: number): void {
    const sink = this.options.sink;
    // Taken every tick, watched or not, so changes never pile up (a new watcher starts from whole states).
    const feed = this.options.animation;
    if (feed) {
      this.animationChanges = feed.take();
      this.animationClock = feed.clock();
      this.animationStates.clear();
    }
    if (this.subs.size === 0 && !sink) return;
    const at = performance.timeOrigin + performance.now();
    this.sceneChange = null;
    const scene = this.options.scene;
    const revision = scene ? scene.revision() : this.sceneRevision;
    // An unchanged revision: the look is as last built (most ticks).
    if (scene && revision !== this.sceneRevision) {
      this.sceneRevision = revision;
      const look = scene.look();
      const json = JSON.stringify(look);
      if (json !== this.sceneJson) {
        if (this.sceneJson !== "") this.sceneChange = look;
        this.sceneJson = json;
      }
    }
    this.binary.tick(step);
    const ready: Subscriber[] = [];
    for (const s of this.subs.values()) {
      if (s.binary) continue;
      if (backlog(s.conn) >= BACKLOG_LIMIT) s.synced = false; // stalled: it will resync
      else ready.push(s);
    }

    // The full-view group: one delta, encoded once, sent to every member.
    const full = ready.filter((s) => !s.aoi);
    const members = full.filter((s) => s.synced).map((s) => s.conn);
    // With no JSON full-view client and no sink, the group's known state waits (the next delta starts from it).
    const groupDelta = full.length > 0 || sink ? this.delta(this.groupKnown, null, !this.offLoop) : null;
    if (groupDelta) {
      groupDelta.apply(this.groupKnown);
      let outcomes: SendOutcome[] = [];
      if (this.offLoop) outcomes = this.streamGroup(groupDelta, members, step, at);
      else if (!groupDelta.empty && (members.length > 0 || sink)) {
        const text = notification("state/delta", this.wire(groupDelta, step, at));
        sink?.(text);
        outcomes = broadcast(members, text, true);
      }
      outcomes.forEach((o, i) => {
        if (o !== SendOutcome.Sent) this.subs.get(members[i])!.synced = false;
      });
    }
    // A sink's first tick brings a snapshot too: its stream starts whole.
    if (sink && (step % SINK_SNAPSHOT_EVERY === 0 || !this.sinkStarted)) sink(this.snapshot(this.groupKnown, null, step, at));
    this.sinkStarted = true;
    // Joiners (new, or caught up after falling behind) get the group's state whole.
    const joiners = full.filter((s) => !s.synced);
    if (joiners.length > 0) {
      const text = this.snapshot(this.groupKnown, null, step, at);
      const outcomes = broadcast(joiners.map((s) => s.conn), text, true);
      outcomes.forEach((o, i) => (joiners[i].synced = o === SendOutcome.Sent));
    }

    // Area-of-interest clients: each its own view.
    const aoiSubs = ready.filter((s) => s.aoi);
    const visible = this.visible(aoiSubs);
    for (const s of aoiSubs) {
      const fresh = !s.synced;
      const known: Known = fresh ? new Map() : s.known;
      const d = this.delta(known, visible.get(s)!);
      d.apply(known);
      const text = fresh
        ? this.snapshot(known, s.aoi, step, at)
        : !d.empty && notification("state/delta", this.wire(d, step, at));
      if (!text) continue;
      const sent = send(s.conn, text, true) === SendOutcome.Sent;
      s.known = known;
      s.synced = sent;
    }
  }
}
