// The numbers party, shared by the demo, its test and its benchmark: 200
// "number-people" — humanoids, each wearing its numeral's colour — who
// wander a plaza, pick a partner they can see, walk up to them, chat a
// while in babbling blips, and part — each one a real agent: perceived by
// the batched native spatial query, deciding off the frame path through a
// ScriptedProvider, acting only through skills (every walk a traced
// nav.moveTo through the navmesh crowd, which steers round the others;
// every chatter blip a positional audio.playAt). Each is a character (a
// kinematic controller and an Animator, its feet matched to its speed);
// the crowd is drawn as one instanced, GPU-skinned draw (CrowdDraw).
// Not a demo by itself: numbers_party.ts runs it.
import {
  type AgentSystems,
  type Character,
  createAgentSystems,
  CrowdDraw,
  DEFAULT_BUDGET,
  type DecideRequest,
  type EntityEntry,
  lodScale,
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
/** A wanderer walks toward a point this far ahead (m), set afresh at each decision. */
const WANDER_AHEAD = 2.5;
/** A free agent with someone free in sight asks them over on about one decision in 40 (every ~4 s). */
const PAIR_CHANCE = 0.025;
/** At most this many decisions start per tick: 200 agents every 10 ticks is 20 a tick. */
export const BUDGET: SchedulerBudget = {
  ...DEFAULT_BUDGET,
  maxDecisionStartsPerTick: 24,
  maxGlobalActionsPerTick: 96,
  defaultAgentBudget: { ...DEFAULT_BUDGET.defaultAgentBudget, maxToolCallsPerDecision: 3, maxQueueDepth: 4 },
};

const WANDER = 0;
const APPROACH = 1;
const CHAT = 2;

export interface PartyStats {
  /** Pairs that met and started chatting, so far. */
  chats: number;
  /** nav.moveTo calls the agents' actions ran (traced skill.executed). */
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
  /** The agents' characters, in agent order. */
  characters: Character[];
  /** Their entities, in agent order. */
  people: EntityEntry[];
  /** Each agent's numeral. */
  digits: Uint8Array;
  /** The crowd's draw (its object is in the scene; done by createParty). */
  crowd: CrowdDraw;
  stats(): PartyStats;
  /** The most recent fixed steps' agent-pipeline times (ms): the tick's perception, decisions and actions. */
  stepTimes(): number[];
  /** One fixed step of the party (its systems run it on the loop unless `manual`); resolves when its actions ran. */
  tick(step: number): Promise<void>;
  /** Poses the crowd's instances as the characters stand now. */
  draw(): void;
  dispose(): void;
}

export interface PartyOptions {
  /** Step the party yourself with `tick` (a benchmark does). */
  manual?: boolean;
  /** The drawn frame's height in pixels, so the crowd's levels of detail keep their size in pixels (default: 360). */
  frameHeight?: () => number;
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

const SKINS = [0xf1c27d, 0xe0ac69, 0xc68642, 0x8d5524, 0xffdbac];
const HAIRS = [0x2b1d14, 0x3b2a1e, 0x6a4e2e, 0xb08d57, 0x1c1c1c];

/** The plaza's floor (a static collider) and the navmesh over it, built directly: no skill runs but the agents'. */
function buildFloor(session: WorldSession): void {
  session.physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [PLAZA_RADIUS + 2, 0.5, PLAZA_RADIUS + 2] }, position: [0, -0.5, 0] });
  const r = PLAZA_RADIUS + 2;
  session.nav.build({ agentRadius: 0.35, bounds: { min: [-r, -1, -r], max: [r, 3, r] } });
}

export async function createParty(session: WorldSession, options: PartyOptions = {}): Promise<Party> {
  const n = AGENTS;
  const rng = new Streams(n, 0x5eed1234);
  const mode = new Uint8Array(n);
  const partner = new Int16Array(n).fill(-1);
  const lastPartner = new Int16Array(n).fill(-1);
  const heading = new Float32Array(n);
  const until = new Int32Array(n);
  const cooldown = new Int32Array(n);
  const talkAt = new Int32Array(n);
  /** Whether a chatting agent has stopped and turned to its partner yet, and has said hello. */
  const facing = new Uint8Array(n);
  const greeted = new Uint8Array(n);
  const digits = new Uint8Array(n);
  const characters: Character[] = [];
  const byAgent = new Map<string, number>();
  const byEntity = new Map<string, number>();
  let chats = 0;

  buildFloor(session);
  const crowd = new CrowdDraw(n);
  // Scattered over the plaza (sunflower spiral), each facing a random way.
  for (let i = 0; i < n; i++) {
    const r = PLAZA_RADIUS * 0.92 * Math.sqrt((i + 0.5) / n);
    const a = i * 2.399963;
    digits[i] = i % 10;
    heading[i] = rng.next(i) * Math.PI * 2;
    // Nobody arrives ready to chat at once: the first pairs form over the first ten seconds.
    cooldown[i] = Math.floor(rng.next(i) * 600);
    // Dressed in its numeral's hue band, varied per person: vivid, so the crowd stands out from the plaza.
    const hue = (digits[i] / 10 + ((i * 0.618) % 1) * 0.06) % 1;
    const appearance = {
      height: 1.6 + rng.next(i) * 0.3,
      shirt: new THREE.Color().setHSL(hue, 0.85, 0.52).getHex(),
      pants: new THREE.Color().setHSL(hue, 0.75, 0.34).getHex(),
      skin: SKINS[(i * 7) % SKINS.length],
      hair: HAIRS[(i * 3) % HAIRS.length],
    };
    const position: [number, number, number] = [Math.cos(a) * r, 0, Math.sin(a) * r];
    const c = await session.characters.spawn({ position, appearance, tags: ["number-person", `digit-${digits[i]}`], maxSpeed: 2, drawnByCrowd: true });
    crowd.paint(i, appearance);
    characters.push(c);
    byEntity.set(c.entity.id, i);
  }
  const people = characters.map((c) => c.entity);

  const unpair = (i: number, tick: number, rest: number) => {
    const j = partner[i];
    for (const k of j >= 0 ? [i, j] : [i]) {
      mode[k] = WANDER;
      lastPartner[k] = partner[k];
      partner[k] = -1;
      cooldown[k] = tick + rest;
    }
  };
  /** Walk toward a point `WANDER_AHEAD` along heading h (kept on the plaza) through the crowd. */
  const wander = (i: number, x: number, z: number, h: number): MCPRequest => {
    let tx = x + Math.sin(h) * WANDER_AHEAD;
    let tz = z + Math.cos(h) * WANDER_AHEAD;
    const r = Math.hypot(tx, tz);
    if (r > PLAZA_RADIUS) {
      tx *= PLAZA_RADIUS / r;
      tz *= PLAZA_RADIUS / r;
    }
    return { tool: "nav.moveTo", input: { entityId: people[i].id, target: [tx, 0, tz], speed: WANDER_SPEED } };
  };
  const walkTo = (i: number, tx: number, tz: number): MCPRequest => ({ tool: "nav.moveTo", input: { entityId: people[i].id, target: [tx, 0, tz], speed: APPROACH_SPEED } });

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
        // Part: turn away from the partner and wander off (walking ends the talk).
        unpair(i, tick, 240 + Math.floor(rng.next(i) * 240));
        if (other) heading[i] = Math.atan2(x - other.position[0], z - other.position[2]) + (rng.next(i) - 0.5);
        return [wander(i, x, z, heading[i])];
      }
      if (!facing[i] && other) {
        // Stop, turn to the partner and talk (an emote until it walks on).
        facing[i] = 1;
        return [
          { tool: "nav.stop", input: { entityId: people[i].id } },
          { tool: "character.lookAt", input: { entityId: people[i].id, target: people[partner[i]].id } },
          { tool: "animation.play", input: { entityId: people[i].id, clip: "talk" } },
        ];
      }
      if (tick >= talkAt[i]) {
        talkAt[i] = tick + 24 + Math.floor(rng.next(i) * 36);
        const freq = 260 + digits[i] * 45 + rng.next(i) * 140;
        const blip: MCPRequest = { tool: "audio.playAt", input: { freq, secs: 0.08 + rng.next(i) * 0.08, position: [x, 1.6, z], volume: 0.5, maxDistance: 30 } };
        if (greeted[i]) return [blip];
        // Each says one line a chat, in a bubble over its head: a greeting, then the sum they make.
        const j = partner[i];
        const text = greeted[j] ? `${digits[j]} + ${digits[i]} = ${digits[i] + digits[j]}!` : `Hi ${digits[j]}! I'm ${digits[i]}.`;
        greeted[i] = 1;
        return [blip, {
          tool: "ui.speechBubble",
          input: { anchor: { type: "world", entity: people[i].id, offset: [0, 2, 0], align: "bottom", unitsPerPixel: 0.018 }, text, maxWidth: 160, lifecycle: { ttl: 2, fadeOut: 0.3 } },
        }];
      }
      return [];
    }
    if (mode[i] === APPROACH) {
      const j = partner[i];
      const other = seen(j);
      if (!other || tick >= until[i]) {
        unpair(i, tick, 120);
        return [wander(i, x, z, heading[i])];
      }
      const [tx, , tz] = other.position;
      if (other.distance < TALK_DISTANCE) {
        chats++;
        const talk = tick + 150 + Math.floor(rng.next(i) * 150);
        for (const k of [i, j]) {
          mode[k] = CHAT;
          until[k] = talk;
          facing[k] = 0;
        }
        greeted[i] = greeted[j] = 0;
        talkAt[i] = tick;
        talkAt[j] = tick + 18;
        facing[i] = 1;
        return [
          { tool: "nav.stop", input: { entityId: people[i].id } },
          { tool: "character.lookAt", input: { entityId: people[i].id, target: people[j].id } },
          { tool: "animation.play", input: { entityId: people[i].id, clip: "talk" } },
        ];
      }
      heading[i] = Math.atan2(tx - x, tz - z);
      return [walkTo(i, tx, tz)];
    }
    // Wandering: drift, turn back at the plaza's edge (the crowd keeps them off each other),
    // and now and then pick someone free in sight to go and chat with.
    let h = heading[i] + (rng.next(i) - 0.5) * 0.5;
    let ax = Math.sin(h);
    let az = Math.cos(h);
    if (Math.hypot(x, z) > PLAZA_RADIUS - 3) {
      ax -= x / PLAZA_RADIUS;
      az -= z / PLAZA_RADIUS;
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
        return [walkTo(i, e.position[0], e.position[2])];
      }
    }
    return [wander(i, x, z, heading[i])];
  };

  const systems = createAgentSystems(session, { scripted: new ScriptedProvider(policy) }, { budget: BUDGET, manual: true });
  for (let i = 0; i < n; i++) {
    const agent = systems.agents.add({
      id: `agt_num${i}`,
      type: "player",
      entityId: people[i].id,
      perceptionRadius: PERCEPTION_RADIUS,
      decisionIntervalTicks: DECISION_INTERVAL,
      // Walking, turning and talking are character acts; chattering plays sound.
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
  const offTrace = session.tracer.subscribe((e) => {
    if (e.type !== "skill.executed") return;
    const i = byAgent.get(e.actorId);
    if (i === undefined) return;
    const skill = (e.payload as { skill: string }).skill;
    if (skill === "nav.moveTo") moves++;
    else if (skill === "audio.playAt") blips++;
    else if (skill === "ui.speechBubble") bubbles++;
  });

  session.scene.add(crowd.object);
  const { Position, Rotation } = session.world;
  const draw = () => {
    for (let i = 0; i < n; i++) crowd.follow(i, Position, Rotation, people[i].eid, characters[i].animator);
    // Far members drawn coarse, as seen from the view camera.
    const camera = session.view.camera;
    crowd.update(camera.position, lodScale(options.frameHeight?.() ?? 360, camera.fov));
  };
  draw();

  const STEP_SAMPLES = 600;
  const times: number[] = [];
  const tick = (step: number) => {
    const t0 = performance.now();
    return systems.tick(step).then(() => {
      times.push(performance.now() - t0);
      if (times.length > STEP_SAMPLES) times.shift();
    });
  };
  const offStep = options.manual ? () => {} : onFixedStep((_dt, step) => void tick(step));

  return {
    systems,
    characters,
    people,
    digits,
    crowd,
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
    draw,
    dispose() {
      offStep();
      offTrace();
      systems.dispose();
      crowd.dispose();
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
    lines: ["render fps: …", "sim steps/s: …", "sim-step p95 ms: …", `${AGENTS} agents`],
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
      // Each figure ends its line, so a changing value moves nothing else on the panel.
      show(overlay.handle, [`render fps: ${fps.toFixed(1)}`, `sim steps/s: ${stepsPerSecond.toFixed(0)}`, `sim-step p95 ms: ${simStepP95Ms.toFixed(2)}`, `${AGENTS} agents, pairs chatting: ${stats.chatting / 2}`]);
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
