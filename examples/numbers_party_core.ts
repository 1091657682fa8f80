// The numbers party, shared by the demo, its test and its benchmark: ~200
// "number-people" (extruded numerals 0–9 on legs, with eyes) who wander a
// plaza, pick a partner they can see, walk up to them, chat a while in
// babbling blips, and part — each one a real agent: perceived by the
// batched native spatial query, deciding off the frame path through a
// ScriptedProvider, acting only through skills (every step a traced
// three.setTransform, every chatter blip a positional audio.playAt).
// The crowd is drawn with a few InstancedMeshes fed from the SoA positions.
// Not a demo by itself: numbers_party.ts runs it.
import {
  type AgentSystems,
  createAgentSystems,
  DEFAULT_BUDGET,
  type DecideRequest,
  type EntityEntry,
  type Mcp,
  type MCPRequest,
  onFixedStep,
  type SchedulerBudget,
  ScriptedProvider,
  type WorldSession,
} from "limina";
import * as THREE from "three";

export const AGENTS = 200;
/** The plaza's radius (m): agents keep inside it. */
export const PLAZA_RADIUS = 20;
/** Each agent decides every 10 fixed steps (6 times a second), staggered. */
export const DECISION_INTERVAL = 10;
export const PERCEPTION_RADIUS = 5;
/** Partners stop and chat once this close (m). */
export const TALK_DISTANCE = 1.2;
const WANDER_SPEED = 1.0; // m/s
const APPROACH_SPEED = 1.6;
const STEP_SECONDS = DECISION_INTERVAL / 60;
/** A free agent with someone free in sight asks them over on about one decision in 40 (every ~4 s). */
const PAIR_CHANCE = 0.025;
/** At most this many decisions start per tick: 200 agents every 10 ticks is 20 a tick. */
export const BUDGET: SchedulerBudget = {
  ...DEFAULT_BUDGET,
  maxDecisionStartsPerTick: 24,
  maxGlobalActionsPerTick: 96,
  defaultAgentBudget: { ...DEFAULT_BUDGET.defaultAgentBudget, maxToolCallsPerDecision: 2, maxQueueDepth: 4 },
};

const WANDER = 0;
const APPROACH = 1;
const CHAT = 2;

export interface PartyStats {
  /** Pairs that met and started chatting, so far. */
  chats: number;
  /** three.setTransform calls the agents' actions ran (traced skill.executed). */
  moves: number;
  /** Chatter blips (audio.playAt) the agents' actions ran. */
  blips: number;
  /** Speech bubbles (ui.speechBubble) the agents' actions put up. */
  bubbles: number;
  /** Agents chatting / walking up to a partner right now. */
  chatting: number;
  approaching: number;
}

export interface Party {
  systems: AgentSystems;
  /** The agents' entities, in agent order. */
  people: EntityEntry[];
  /** Each agent's numeral. */
  digits: Uint8Array;
  /** The crowd's draw objects (add to the scene; done by createParty). */
  crowd: THREE.Group;
  stats(): PartyStats;
  /** The most recent fixed steps' agent-pipeline times (ms): the tick's perception, decisions and actions. */
  stepTimes(): number[];
  /** One fixed step of the party (its systems run it on the loop unless `manual`); resolves when its actions ran. */
  tick(step: number): Promise<void>;
  /** Updates the crowd's instances, `alpha` of the way from the last fixed step to this one. */
  draw(alpha: number): void;
  dispose(): void;
}

export interface PartyOptions {
  /** Step the party yourself with `tick` (a benchmark does). */
  manual?: boolean;
}

/** xorshift32 streams, one per agent, so every run is the same party. */
class Streams {
  private readonly s: Uint32Array;
  constructor(n: number, seed: number) {
    this.s = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.s[i] = (Math.imul(i + 1, 0x9e3779b1) ^ seed) >>> 0 || 1;
  }
  next(i: number): number {
    let x = this.s[i];
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s[i] = x >>> 0;
    return (x >>> 0) / 0x100000000;
  }
}

export function createParty(session: WorldSession, options: PartyOptions = {}): Party {
  const n = AGENTS;
  const rng = new Streams(n, 0x5eed1234);
  const mode = new Uint8Array(n);
  const partner = new Int16Array(n).fill(-1);
  const lastPartner = new Int16Array(n).fill(-1);
  const heading = new Float32Array(n);
  const until = new Int32Array(n);
  const cooldown = new Int32Array(n);
  const talkAt = new Int32Array(n);
  /** Whether a chatting agent has turned to its partner yet, and has said hello. */
  const facing = new Uint8Array(n);
  const greeted = new Uint8Array(n);
  const digits = new Uint8Array(n);
  const people: EntityEntry[] = [];
  const byAgent = new Map<string, number>();
  const byEntity = new Map<string, number>();
  let chats = 0;

  // Scattered over the plaza (sunflower spiral), each facing a random way.
  for (let i = 0; i < n; i++) {
    const r = PLAZA_RADIUS * 0.92 * Math.sqrt((i + 0.5) / n);
    const a = i * 2.399963;
    digits[i] = i % 10;
    heading[i] = rng.next(i) * Math.PI * 2;
    // Nobody arrives ready to chat at once: the first pairs form over the first ten seconds.
    cooldown[i] = Math.floor(rng.next(i) * 600);
    const e = session.world.spawn({ position: [Math.cos(a) * r, 0, Math.sin(a) * r], tags: ["number-person", `digit-${digits[i]}`] });
    people.push(e);
    byEntity.set(e.id, i);
  }

  const unpair = (i: number, tick: number, rest: number) => {
    const j = partner[i];
    for (const k of j >= 0 ? [i, j] : [i]) {
      mode[k] = WANDER;
      lastPartner[k] = partner[k];
      partner[k] = -1;
      cooldown[k] = tick + rest;
    }
  };
  const move = (i: number, x: number, z: number, h: number, speed: number): MCPRequest => {
    let nx = x + Math.sin(h) * speed * STEP_SECONDS;
    let nz = z + Math.cos(h) * speed * STEP_SECONDS;
    const r = Math.hypot(nx, nz);
    if (r > PLAZA_RADIUS) {
      nx *= PLAZA_RADIUS / r;
      nz *= PLAZA_RADIUS / r;
    }
    return { tool: "three.setTransform", input: { entity: people[i].id, position: [nx, 0, nz], rotationEuler: [0, h, 0] } };
  };
  const face = (i: number, x: number, z: number, tx: number, tz: number): MCPRequest => ({
    tool: "three.setTransform",
    input: { entity: people[i].id, rotationEuler: [0, Math.atan2(tx - x, tz - z), 0] },
  });

  /** The party policy: what one number-person does next, from what it perceives. */
  const policy = (req: DecideRequest): MCPRequest[] => {
    const p = req.perception;
    const i = byAgent.get(p.selfId);
    if (i === undefined || !p.position) return [];
    const [x, , z] = p.position;
    const tick = p.tick;
    const seen = (j: number) => p.nearby.find((e) => e.id === people[j].id);
    if (mode[i] === CHAT) {
      const other = seen(partner[i]);
      if (tick >= until[i]) {
        // Part: turn away from the partner and wander off.
        unpair(i, tick, 240 + Math.floor(rng.next(i) * 240));
        if (other) heading[i] = Math.atan2(x - other.position[0], z - other.position[2]) + (rng.next(i) - 0.5);
        return [move(i, x, z, heading[i], WANDER_SPEED)];
      }
      if (!facing[i] && other) {
        facing[i] = 1;
        return [face(i, x, z, other.position[0], other.position[2])];
      }
      if (tick >= talkAt[i]) {
        talkAt[i] = tick + 24 + Math.floor(rng.next(i) * 36);
        const freq = 260 + digits[i] * 45 + rng.next(i) * 140;
        const blip: MCPRequest = { tool: "audio.playAt", input: { freq, secs: 0.08 + rng.next(i) * 0.08, position: [x, 1.2, z], volume: 0.5, maxDistance: 30 } };
        if (greeted[i]) return [blip];
        // Each says one line a chat, in a bubble over its head: a greeting, then the sum they make.
        const j = partner[i];
        const text = greeted[j] ? `${digits[j]} + ${digits[i]} = ${digits[i] + digits[j]}!` : `Hi ${digits[j]}! I'm ${digits[i]}.`;
        greeted[i] = 1;
        return [blip, {
          tool: "ui.speechBubble",
          input: { anchor: { type: "world", entity: people[i].id, offset: [0, 1.6, 0], align: "bottom", unitsPerPixel: 0.018 }, text, maxWidth: 160, lifecycle: { ttl: 2, fadeOut: 0.3 } },
        }];
      }
      return [];
    }
    if (mode[i] === APPROACH) {
      const j = partner[i];
      const other = seen(j);
      if (!other || tick >= until[i]) {
        unpair(i, tick, 120);
        return [move(i, x, z, heading[i], WANDER_SPEED)];
      }
      const [tx, , tz] = other.position;
      if (other.distance < TALK_DISTANCE) {
        chats++;
        const talk = tick + 150 + Math.floor(rng.next(i) * 150);
        for (const k of [i, j]) {
          mode[k] = CHAT;
          until[k] = talk;
        }
        facing[i] = 1;
        facing[j] = 0;
        greeted[i] = greeted[j] = 0;
        talkAt[i] = tick;
        talkAt[j] = tick + 18;
        return [face(i, x, z, tx, tz)];
      }
      heading[i] = Math.atan2(tx - x, tz - z);
      return [move(i, x, z, heading[i], APPROACH_SPEED)];
    }
    // Wandering: drift, keep off the others, turn back at the plaza's edge,
    // and now and then pick someone free in sight to go and chat with.
    let h = heading[i] + (rng.next(i) - 0.5) * 0.5;
    let ax = Math.sin(h);
    let az = Math.cos(h);
    if (Math.hypot(x, z) > PLAZA_RADIUS - 2) {
      ax -= x / PLAZA_RADIUS;
      az -= z / PLAZA_RADIUS;
    }
    for (const e of p.nearby) {
      if (e.distance < 0.9 && e.distance > 1e-6) {
        ax += ((x - e.position[0]) / e.distance) * 0.8;
        az += ((z - e.position[2]) / e.distance) * 0.8;
      }
    }
    h = Math.atan2(ax, az);
    heading[i] = h;
    if (tick >= cooldown[i] && rng.next(i) < PAIR_CHANCE) {
      for (const e of p.nearby) {
        const j = byEntity.get(e.id);
        if (j === undefined || j === i || mode[j] !== WANDER || tick < cooldown[j] || j === lastPartner[i]) continue;
        partner[i] = j;
        partner[j] = i;
        mode[i] = mode[j] = APPROACH;
        until[i] = until[j] = tick + 360;
        heading[i] = Math.atan2(e.position[0] - x, e.position[2] - z);
        break;
      }
    }
    return [move(i, x, z, heading[i], mode[i] === APPROACH ? APPROACH_SPEED : WANDER_SPEED)];
  };

  const systems = createAgentSystems(session, { scripted: new ScriptedProvider(policy) }, { budget: BUDGET, manual: true });
  for (let i = 0; i < n; i++) {
    const agent = systems.agents.add({
      id: `agt_num${i}`,
      type: "player",
      entityId: people[i].id,
      perceptionRadius: PERCEPTION_RADIUS,
      decisionIntervalTicks: DECISION_INTERVAL,
      // Moving its own numeral is a scene write; chattering plays sound.
      profile: "builder.readWrite",
      sessionId: `ses_num${i}`,
      llm: { provider: "scripted", model: "", systemPrompt: "a number at a party: wander, find someone, chat, move on" },
    });
    byAgent.set(agent.id, i);
  }

  // What the agents did, counted from the world log as it is written.
  let moves = 0;
  let blips = 0;
  let bubbles = 0;
  const pulse = new Float32Array(n);
  const offTrace = session.tracer.subscribe((e) => {
    if (e.type !== "skill.executed") return;
    const i = byAgent.get(e.actorId);
    if (i === undefined) return;
    const skill = (e.payload as { skill: string }).skill;
    if (skill === "three.setTransform") moves++;
    else if (skill === "audio.playAt") {
      blips++;
      pulse[i] = 1;
    } else if (skill === "ui.speechBubble") bubbles++;
  });

  const crowd = new Crowd(session, people, digits, pulse);
  session.scene.add(crowd.group);

  const STEP_SAMPLES = 600;
  const times: number[] = [];
  const tick = (step: number) => {
    const t0 = performance.now();
    crowd.step();
    return systems.tick(step).then(() => {
      times.push(performance.now() - t0);
      if (times.length > STEP_SAMPLES) times.shift();
    });
  };
  const offStep = options.manual ? () => {} : onFixedStep((_dt, step) => void tick(step));

  return {
    systems,
    people,
    digits,
    crowd: crowd.group,
    stats() {
      let chatting = 0;
      let approaching = 0;
      for (let i = 0; i < n; i++) {
        if (mode[i] === CHAT) chatting++;
        else if (mode[i] === APPROACH) approaching++;
      }
      return { chats, moves, blips, bubbles, chatting, approaching };
    },
    stepTimes: () => times.slice(),
    tick,
    draw: (alpha) => crowd.draw(alpha),
    dispose() {
      offStep();
      offTrace();
      systems.dispose();
      crowd.group.removeFromParent();
    },
  };
}

export interface Hud {
  /** Streams the agents' newest world-log events to the feed panel (a few times a second is plenty). */
  feed(): void;
  /** Shows the perf figures and the party's state on the overlay: render fps and simulation steps/s apart. */
  perf(figures: { fps: number; stepsPerSecond: number; simStepP95Ms: number }, stats: PartyStats): void;
}

const FEED_LINES = 9;

/**
 * The agent-ops HUD — the agents' events as the world log records them —
 * and the perf overlay: two screen panels `host` authors and updates through
 * ui.* skills (so they are traced too, and need ui.write).
 */
export async function createHud(host: Mcp, session: WorldSession): Promise<Hud> {
  const feed = await host.mustCall<{ handle: string }>("ui.hudPanel", {
    anchor: { type: "screen", corner: "topLeft" },
    title: "agent ops · live trace",
    lines: ["waiting for the first decisions"],
    width: 330,
    lifecycle: { feed: { maxLines: FEED_LINES } },
  });
  const overlay = await host.mustCall<{ handle: string }>("ui.hudPanel", {
    anchor: { type: "screen", corner: "topRight" },
    title: "perf",
    lines: ["render … fps", "sim … steps/s", "sim-step p95 …", `${AGENTS} agents`],
    width: 200,
  });
  // The newest events, at most three of a kind (moves outnumber everything
  // else), so perceptions, decisions, moves, blips and bubbles all show.
  const fresh: { kind: string; line: string }[] = [];
  session.tracer.subscribe((e) => {
    if (!e.actorId.startsWith("agt_")) return;
    const kind = (e.payload as { skill?: string }).skill ?? e.type;
    const same = fresh.filter((f) => f.kind === kind);
    if (same.length >= 3) fresh.splice(fresh.indexOf(same[0]), 1);
    fresh.push({ kind, line: `${e.actorId.slice(4)} · ${kind}` });
    if (fresh.length > FEED_LINES) fresh.shift();
  });
  const show = (handle: string, lines: string[]) => void host.callTool({ tool: "ui.update", input: { handle, lines } });
  return {
    feed() {
      if (fresh.length > 0) show(feed.handle, fresh.splice(0).map((f) => f.line));
    },
    perf({ fps, stepsPerSecond, simStepP95Ms }, stats) {
      show(overlay.handle, [`render ${fps.toFixed(1)} fps`, `sim ${stepsPerSecond.toFixed(0)} steps/s`, `sim-step p95 ${simStepP95Ms.toFixed(2)} ms`, `${AGENTS} agents, ${stats.chatting / 2} pairs chatting`]);
    },
  };
}

/** The party's setting: haze, a sun casting shadows over the plaza, the plaza and the lawn round it. */
export function dressPlaza(session: WorldSession): void {
  // The sky and its haze are the engine's look; a little more haze than its default, for the far lawn.
  void session.look.environment.set({ ...session.look.environment.settings(), fog: { ...session.look.environment.settings().fog, density: 0.006 } });
  session.lighting.ambient.color.setHex(0xdde6ff);
  session.lighting.ambient.intensity = 1.1;
  const sun = session.lighting.directional;
  sun.position.set(14, 30, 10);
  sun.intensity = 2.4;
  sun.castShadow = true;
  sun.shadow.mapSize.set(1024, 1024);
  const shadow = sun.shadow.camera as THREE.OrthographicCamera;
  shadow.left = shadow.bottom = -PLAZA_RADIUS - 2;
  shadow.right = shadow.top = PLAZA_RADIUS + 2;
  shadow.far = 80;
  shadow.updateProjectionMatrix();
  const plaza = new THREE.Mesh(new THREE.CircleGeometry(PLAZA_RADIUS + 2, 72).rotateX(-Math.PI / 2), new THREE.MeshLambertMaterial({ color: 0x8f8a80 }));
  plaza.receiveShadow = true;
  // Unlit, and a ring round the plaza rather than under it: the cheapest way to fill the view to the horizon.
  const lawn = new THREE.Mesh(new THREE.RingGeometry(PLAZA_RADIUS + 2, 120, 72, 1).rotateX(-Math.PI / 2), new THREE.MeshBasicMaterial({ color: 0x5f7f50 }));
  session.scene.add(plaza, lawn);
}

// ——— The crowd's look ———

const GLYPH_HEIGHT = 1.1;
/** How far each drawn pose eases toward the SoA per fixed step (a time constant of ~0.12 s, about one decision interval). */
const EASE = 0.13;
const LEG_LENGTH = 0.3;
const GLYPH_DEPTH = 0.2;
/** Seven segments, a–g, lit per digit. */
const SEGMENTS_OF = ["abcdef", "bc", "abged", "abgcd", "fgbc", "afgcd", "afgedc", "abc", "abcdefg", "abcdfg"];

/** An extruded seven-segment numeral standing on y = LEG_LENGTH, centred on x and z. */
function numeralGeometry(digit: number): THREE.BufferGeometry {
  const w = 0.56;
  const h = 1;
  const t = 0.14;
  const g = 0.02;
  const horizontal = (y: number) => [[-w / 2 + g, y], [-w / 2 + g + t / 2, y + t / 2], [w / 2 - g - t / 2, y + t / 2], [w / 2 - g, y], [w / 2 - g - t / 2, y - t / 2], [-w / 2 + g + t / 2, y - t / 2]];
  const vertical = (x: number, y0: number, y1: number) => [[x, y0 + g], [x + t / 2, y0 + g + t / 2], [x + t / 2, y1 - g - t / 2], [x, y1 - g], [x - t / 2, y1 - g - t / 2], [x - t / 2, y0 + g + t / 2]];
  const outline: Record<string, number[][]> = {
    a: horizontal(h),
    b: vertical(w / 2, h / 2, h),
    c: vertical(w / 2, 0, h / 2),
    d: horizontal(0),
    e: vertical(-w / 2, 0, h / 2),
    f: vertical(-w / 2, h / 2, h),
    g: horizontal(h / 2),
  };
  const shapes = [...SEGMENTS_OF[digit]].map((s) => new THREE.Shape(outline[s].map(([x, y]) => new THREE.Vector2(x, y))));
  const geometry = new THREE.ExtrudeGeometry(shapes, { depth: GLYPH_DEPTH, bevelEnabled: false });
  geometry.computeBoundingBox();
  const box = geometry.boundingBox!;
  const s = GLYPH_HEIGHT / (h + t);
  geometry.translate(-(box.min.x + box.max.x) / 2, t / 2, -GLYPH_DEPTH / 2);
  geometry.scale(s, s, 1);
  geometry.translate(0, LEG_LENGTH, 0);
  return geometry;
}

/**
 * Indexed geometries merged into one, so that parts drawn together are one
 * instance (a leg and its foot; an eye and its pupil), each part in its own
 * vertex colour.
 */
function merge(parts: { geometry: THREE.BufferGeometry; color: number }[]): THREE.BufferGeometry {
  const out = new THREE.BufferGeometry();
  for (const name of ["position", "normal"]) {
    const arrays = parts.map((p) => p.geometry.getAttribute(name).array as Float32Array);
    const all = new Float32Array(arrays.reduce((k, a) => k + a.length, 0));
    let o = 0;
    for (const a of arrays) {
      all.set(a, o);
      o += a.length;
    }
    out.setAttribute(name, new THREE.BufferAttribute(all, 3));
  }
  const colors: number[] = [];
  const c = new THREE.Color();
  for (const p of parts) {
    c.setHex(p.color);
    for (let k = 0; k < p.geometry.getAttribute("position").count; k++) colors.push(c.r, c.g, c.b);
  }
  out.setAttribute("color", new THREE.Float32BufferAttribute(colors, 3));
  const index: number[] = [];
  let base = 0;
  for (const { geometry } of parts) {
    const idx = geometry.getIndex()!;
    for (let k = 0; k < idx.count; k++) index.push(idx.getX(k) + base);
    base += geometry.getAttribute("position").count;
  }
  out.setIndex(index);
  return out;
}

/** Writes a column-major transform at `m[o]`: translation (x, y, z), yaw (cos `c`, sin `s`) about y after pitch (`cp`, `sp`) about x, scale (sx, sy, sx). */
function writeMatrix(m: Float32Array, o: number, x: number, y: number, z: number, c: number, s: number, cp: number, sp: number, sx: number, sy: number): void {
  // R = Ry · Rx; columns scaled by (sx, sy, sx).
  m[o] = c * sx;
  m[o + 1] = 0;
  m[o + 2] = -s * sx;
  m[o + 3] = 0;
  m[o + 4] = s * sp * sy;
  m[o + 5] = cp * sy;
  m[o + 6] = c * sp * sy;
  m[o + 7] = 0;
  m[o + 8] = s * cp * sx;
  m[o + 9] = -sp * sx;
  m[o + 10] = c * cp * sx;
  m[o + 11] = 0;
  m[o + 12] = x;
  m[o + 13] = y;
  m[o + 14] = z;
  m[o + 15] = 1;
}

/**
 * The crowd drawn with instancing: one InstancedMesh per numeral, one for
 * all legs (with feet) and one for all eyes (with pupils); Lambert shading,
 * low-poly parts, 12 draw calls a pass for the whole crowd. Positions ease
 * toward the SoA each fixed step (an agent moves 10 times a second) and are
 * interpolated per frame; walking swings the legs and bobs the body, a
 * chatter blip makes the speaker bounce.
 */
class Crowd {
  readonly group = new THREE.Group();
  private readonly n: number;
  private readonly bodies: THREE.InstancedMesh[] = [];
  /** Each agent's slot in its numeral's InstancedMesh. */
  private readonly slot: Uint16Array;
  private readonly legs: THREE.InstancedMesh;
  private readonly eyes: THREE.InstancedMesh;
  // Eased pose now and one step ago (x, z, yaw), walk phase and speed.
  private readonly now: Float32Array;
  private readonly before: Float32Array;
  private readonly walk: Float32Array;
  private readonly speed: Float32Array;

  constructor(private readonly session: WorldSession, private readonly people: EntityEntry[], private readonly digits: Uint8Array, private readonly pulse: Float32Array) {
    const n = (this.n = people.length);
    this.slot = new Uint16Array(n);
    const perDigit = new Array(10).fill(0);
    for (let i = 0; i < n; i++) this.slot[i] = perDigit[digits[i]]++;
    const color = new THREE.Color();
    for (let d = 0; d < 10; d++) {
      const mesh = new THREE.InstancedMesh(numeralGeometry(d), new THREE.MeshLambertMaterial(), Math.max(1, perDigit[d]));
      mesh.count = perDigit[d];
      this.bodies.push(mesh);
    }
    for (let i = 0; i < n; i++) {
      // A hue band per digit, varied per person: vivid, so the crowd stands out from the plaza.
      color.setHSL((digits[i] / 10 + ((i * 0.618) % 1) * 0.06) % 1, 0.85, 0.52);
      this.bodies[digits[i]].setColorAt(this.slot[i], color);
    }
    const leg = new THREE.BoxGeometry(0.05, LEG_LENGTH, 0.05).translate(0, -LEG_LENGTH / 2, 0);
    const foot = new THREE.SphereGeometry(0.06, 8, 4).scale(1, 0.55, 1.6).translate(0, -LEG_LENGTH + 0.02, 0.04);
    const dark = 0x2a2a33;
    this.legs = new THREE.InstancedMesh(merge([{ geometry: leg, color: dark }, { geometry: foot, color: dark }]), new THREE.MeshLambertMaterial({ vertexColors: true }), 2 * n);
    // The pupil sits proud of the eye's front, a little further out.
    const eye = new THREE.SphereGeometry(0.075, 10, 6);
    const pupil = new THREE.SphereGeometry(0.035, 8, 4).translate(0, 0, 0.055);
    this.eyes = new THREE.InstancedMesh(merge([{ geometry: eye, color: 0xffffff }, { geometry: pupil, color: 0x101010 }]), new THREE.MeshLambertMaterial({ vertexColors: true }), 2 * n);
    for (const m of [...this.bodies, this.legs, this.eyes]) {
      // Instances move every frame; one bounding sphere for all of them would go stale.
      m.frustumCulled = false;
      m.castShadow = true;
      m.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
      this.group.add(m);
    }
    this.now = new Float32Array(3 * n);
    this.before = new Float32Array(3 * n);
    this.walk = new Float32Array(n);
    this.speed = new Float32Array(n);
    const w = session.world;
    for (let i = 0; i < n; i++) {
      const e = people[i].eid;
      this.now.set([w.Position.x[e], w.Position.z[e], this.yawOf(e)], 3 * i);
    }
    this.before.set(this.now);
    this.draw(1);
  }

  private yawOf(eid: number): number {
    const r = this.session.world.Rotation;
    // The yaw of a rotation about y alone: q = (0, sin(θ/2), 0, cos(θ/2)).
    return 2 * Math.atan2(r.y[eid], r.w[eid]);
  }

  /** One fixed step: ease each person toward its SoA pose. */
  step(): void {
    const { Position } = this.session.world;
    this.before.set(this.now);
    for (let i = 0; i < this.n; i++) {
      const e = this.people[i].eid;
      const o = 3 * i;
      const dx = (Position.x[e] - this.now[o]) * EASE;
      const dz = (Position.z[e] - this.now[o + 1]) * EASE;
      this.now[o] += dx;
      this.now[o + 1] += dz;
      let dy = this.yawOf(e) - this.now[o + 2];
      dy = Math.atan2(Math.sin(dy), Math.cos(dy));
      this.now[o + 2] += dy * 0.25;
      const v = Math.hypot(dx, dz) * 60;
      this.speed[i] = v;
      this.walk[i] += v * (1 / 60) * 9;
      this.pulse[i] *= 0.9;
    }
  }

  draw(alpha: number): void {
    const bodies = this.bodies.map((b) => b.instanceMatrix.array as Float32Array);
    const legs = this.legs.instanceMatrix.array as Float32Array;
    const eyes = this.eyes.instanceMatrix.array as Float32Array;
    for (let i = 0; i < this.n; i++) {
      const o = 3 * i;
      const x = this.before[o] + (this.now[o] - this.before[o]) * alpha;
      const z = this.before[o + 1] + (this.now[o + 1] - this.before[o + 1]) * alpha;
      let dy = this.now[o + 2] - this.before[o + 2];
      dy = Math.atan2(Math.sin(dy), Math.cos(dy));
      const yaw = this.before[o + 2] + dy * alpha;
      const c = Math.cos(yaw);
      const s = Math.sin(yaw);
      const moving = Math.min(1, this.speed[i] / 0.6);
      const swing = Math.sin(this.walk[i]) * 0.55 * moving;
      const bob = Math.abs(Math.cos(this.walk[i])) * 0.05 * moving + this.pulse[i] * 0.12;
      const squash = 1 + this.pulse[i] * 0.08;
      writeMatrix(bodies[this.digits[i]], 16 * this.slot[i], x, bob, z, c, s, 1, 0, 1, squash);
      for (let k = 0; k < 2; k++) {
        const side = k === 0 ? -1 : 1;
        const hipX = side * 0.1;
        const pitch = side * swing;
        writeMatrix(legs, 16 * (2 * i + k), x + c * hipX, LEG_LENGTH + bob, z - s * hipX, c, s, Math.cos(pitch), Math.sin(pitch), 1, 1);
        // Eyes near the top, on the front face.
        const ex = side * 0.11;
        const ey = LEG_LENGTH + GLYPH_HEIGHT * 0.8 * squash + bob;
        const ez = GLYPH_DEPTH / 2 + 0.03;
        writeMatrix(eyes, 16 * (2 * i + k), x + c * ex + s * ez, ey, z - s * ex + c * ez, c, s, 1, 0, 1, 1);
      }
    }
    for (const m of [...this.bodies, this.legs, this.eyes]) m.instanceMatrix.needsUpdate = true;
  }
}
