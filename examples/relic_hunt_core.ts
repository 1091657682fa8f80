// Relic Hunt, shared by the demo and its test: a builder agent makes a
// small game purely over MCP — ground and a walled vault, three relics, a
// vault door that opens when the quest is accepted, a Keeper whose
// dialogue offers the quest, a lava pool that burns, an altar that takes
// the relics back, a win and a lose condition — and a player agent with a
// scripted policy plays it over MCP, from its own reads of the world:
// walking by physics impulses, talking, accepting, picking up, returning.
// Not a demo by itself: relic_hunt.ts runs it.
import type { Mcp, WorldSession } from "limina";

type V3 = [number, number, number];

/** Where things stand (metres; the ground's top is y = 0). */
export const LAYOUT = {
  start: [0, 0.4, -9] as V3,
  keeper: [-1.5, 0.6, -5] as V3,
  altar: [1.5, 0.05, -5] as V3,
  relics: [[-7, 0.25, -1], [7, 0.25, 2], [0, 0.25, 8]] as V3[],
  lava: [4.5, 0.02, 2] as V3,
  vaultDoor: [0, 1, 4] as V3,
};
export const PLAYER = "agt_hunter";
const PLAYER_SIZE = 0.6;
/** The player's mass (a box of density 1). */
const PLAYER_MASS = PLAYER_SIZE ** 3;
export const RELICS = LAYOUT.relics.length;

export interface Built {
  player: string;
  keeper: string;
  door: string;
  /** Skills the builder called. */
  calls: number;
  /** Entities the world holds once built. */
  entities: number;
}

/** The builder's side: the whole game authored through MCP tool calls. */
export async function buildRelicHunt(builder: Mcp): Promise<Built> {
  let calls = 0;
  const call = async <T = Record<string, unknown>>(tool: string, input: Record<string, unknown> = {}): Promise<T> => {
    calls++;
    return await builder.mustCall<T>(tool, input);
  };
  const box = async (position: V3, size: number, color: number, options: Record<string, unknown> = { static: true }) =>
    (await call<{ entity: string }>("scene.createEntity", { shape: "box", size, color, position, ...options })).entity;

  await call("three.setLighting", { ambientIntensity: 0.7, directionalIntensity: 3, direction: [5, 12, -6], castShadow: true, shadowMapSize: 2048 });
  const ground = await box([0, -15, 0], 30, 0x5c6b4e, { static: true, friction: 0.9 });
  await call("three.setMaterial", { entity: ground, receiveShadow: true, roughness: 0.95 });
  // The vault: walls on three sides and a front wall with a door in it (static bodies: it is shut until opened).
  const walls: V3[] = [];
  for (const x of [1.5, 2.5, 3.5, 4.5, 5.5]) walls.push([-x, 0.5, 4], [x, 0.5, 4]);
  for (let z = 5; z <= 10; z++) walls.push([-5.5, 0.5, z], [5.5, 0.5, z]);
  for (let x = -4.5; x <= 4.5; x++) walls.push([x, 0.5, 10]);
  for (const at of walls) await box(at, 1, 0x8a8170);
  const door = await box(LAYOUT.vaultDoor, 2, 0x6b3f1d);
  await call("interaction.register", { entity: door, kind: "door", label: "Vault door", range: 2.5, openOffset: [0, 2.2, 0], locked: true, refusal: "The vault door is sealed: only the Keeper's quest opens it." });

  // Items and the relics lying about.
  await call("item.define", { id: "relic", name: "Relic of the old ones", description: "Warm to the touch.", color: 0xffc21a, tags: ["quest"] });
  for (const at of LAYOUT.relics) await call("item.spawn", { item: "relic", position: at });

  // The player: a sliding block with health, bound to the hunter agent.
  const player = await box(LAYOUT.start, PLAYER_SIZE, 0x2f6fe0, { dynamic: true, friction: 0.8 });
  await call("three.setMaterial", { entity: player, castShadow: true });
  await call("game.addPlayer", { agentId: PLAYER, entity: player });
  await call("stats.define", { entity: player, stat: "health", max: 100, onZero: [{ lose: "the hunter fell" }] });

  // The Keeper: an NPC whose dialogue offers the quest.
  const keeper = await box(LAYOUT.keeper, 1.2, 0xb8a27a);
  await call("quest.define", {
    id: "relics",
    title: "The three relics",
    description: "Bring the Keeper's three relics back to the altar.",
    giver: keeper,
    objectives: [
      { id: "collect", text: "Collect the three relics", when: { has: "relic", count: RELICS } },
      { id: "return", text: "Lay them on the altar" },
    ],
    onAccept: [{ unlock: door }, { open: door }, { say: "The vault is open. Mind the lava." }],
    rewards: [{ take: "relic", count: RELICS }, { say: "You have done it. The relics are home." }, { xp: 100 }],
  });
  await call("dialogue.define", {
    id: "keeper",
    start: "hello",
    nodes: {
      hello: { text: "Traveller! The old ones' relics are scattered.", choices: [{ id: "ask", text: "How can I help?", next: "task" }, { id: "bye", text: "Farewell." }] },
      task: { text: "Bring all three to my altar. One lies sealed in the vault.", choices: [{ id: "offer", text: "I will find them.", effects: [{ offerQuest: "relics" }, { attitude: 20 }] }, { id: "no", text: "Not today." }] },
    },
  });
  await call("npc.define", { entity: keeper, name: "Keeper", persona: "an old guardian of the ruins", dialogue: "keeper", talkRange: 3 });

  // The altar: laying the relics there finishes the quest.
  const altar = await box([LAYOUT.altar[0], -0.4, LAYOUT.altar[2]], 1, 0xd7d2c5);
  await call("trigger.create", {
    trigger: "altar",
    shape: "sphere",
    position: LAYOUT.altar,
    radius: 1.4,
    filter: { players: true },
    onEnter: [{ if: { all: [{ quest: "relics", status: "active" }, { has: "relic", count: RELICS }] }, then: [{ progress: "relics", objective: "return" }] }],
  });
  await call("ecs.addComponent", { entity: altar, component: "altar" });

  // The hazard: a lava pool (seen, not solid) that burns whoever stands in it.
  const lava = await box([LAYOUT.lava[0], -1.48, LAYOUT.lava[2]], 3, 0xff4a12, {});
  await call("three.setMaterial", { entity: lava, color: 0xff4a12, roughness: 0.3, metalness: 0 });
  await call("trigger.create", { trigger: "lava", shape: "box", position: LAYOUT.lava, halfExtents: [1.5, 1, 1.5], filter: { players: true }, onEnter: [{ damage: 6, kind: "fire" }], onStay: [{ damage: 6, kind: "fire" }], every: 20 });

  // Winning and losing.
  await call("game.setWinCondition", { when: { quest: "relics", status: "completed", who: player }, reason: "the three relics are back on the altar" });
  await call("game.setLoseCondition", { when: { stat: "health", op: "lte", value: 0, who: player }, reason: "the hunter fell" });
  await call("game.start", {});
  const entities = (await call<{ entities: unknown[] }>("scene.queryEntities", {})).entities.length;
  return { player, keeper, door, calls, entities };
}

/**
 * The player's scripted policy: each time it thinks it reads the world over MCP (where it is, its
 * quest, its inventory, what is within reach, where relics lie) and does one thing — talk, accept,
 * pick up — or pushes its body a step toward where it needs to be.
 */
export class RelicHunter {
  actions = 0;
  private last: V3 | null = null;
  private lastTick: number | null = null;

  constructor(private readonly mcp: Mcp, private readonly built: Built) {}

  private async call<T = Record<string, unknown>>(tool: string, input: Record<string, unknown> = {}): Promise<T> {
    this.actions++;
    return await this.mcp.mustCall<T>(tool, input);
  }

  private async read<T = Record<string, unknown>>(tool: string, input: Record<string, unknown> = {}): Promise<T> {
    return await this.mcp.mustCall<T>(tool, input);
  }

  /** One decision: look, then act or take a step. */
  async think(): Promise<void> {
    const { player } = this.built;
    const { tick } = await this.read<{ tick: number }>("game.status");
    const seen = (await this.read<{ entities: { entity: string; position: V3 }[] }>("scene.queryEntities", { near: LAYOUT.start, radius: 60 })).entities;
    const at = seen.find((e) => e.entity === player)?.position;
    if (!at) return;
    // Seconds since the last look (decisions can be further apart than planned on a busy machine).
    const dt = this.lastTick === null ? 0 : (tick - this.lastTick) / 60;
    this.lastTick = tick;
    const quest = await this.read<{ status: string }>("quest.get", { quest: "relics", entity: player });
    if (quest.status === "none" || quest.status === "declined") return await this.toward(at, LAYOUT.keeper, 2.2, dt, () => this.talk());
    if (quest.status === "offered") {
      await this.call("quest.accept", { quest: "relics" });
      return;
    }
    if (quest.status !== "active") return;
    const held = (await this.read<{ count: number }>("inventory.count", { entity: player, item: "relic" })).count;
    if (held === RELICS) return await this.toward(at, route(at, LAYOUT.altar), 0, dt);
    const relics = seen.filter((e) => this.relicIds.has(e.entity)).sort((a, b) => dist(a.position, at) - dist(b.position, at));
    if (relics.length === 0) return;
    const reach = await this.read<{ interactables: { entity: string }[] }>("interaction.list", { near: player });
    if (reach.interactables.some((i) => i.entity === relics[0].entity)) {
      await this.call("interaction.pickup", { target: relics[0].entity });
      return;
    }
    await this.toward(at, route(at, relics[0].position), 0, dt);
  }

  private relicIds = new Set<string>();

  /** Learns which entities are relic pickups (from what is interactable), once. */
  async survey(): Promise<void> {
    const all = await this.read<{ interactables: { entity: string; kind: string }[] }>("interaction.list", {});
    for (const i of all.interactables) if (i.kind === "pickup") this.relicIds.add(i.entity);
  }

  private async talk(): Promise<void> {
    let view = await this.call<{ choices: { id: string }[]; ended: boolean }>("dialogue.start", { npc: this.built.keeper });
    for (const want of ["ask", "offer"]) {
      if (view.ended || !view.choices.some((c) => c.id === want)) break;
      view = await this.call("dialogue.choose", { choice: want });
    }
  }

  /**
   * Steers toward `goal`: an impulse that turns the body's velocity (estimated from where it was
   * at the last decision) toward 3.2 m/s at the goal; within `stop` metres, `then` instead.
   */
  private async toward(at: V3, goal: V3, stop: number, dt: number, then?: () => Promise<void>): Promise<void> {
    const dx = goal[0] - at[0];
    const dz = goal[2] - at[2];
    const d = Math.hypot(dx, dz);
    const v: V3 = this.last && dt > 0 ? [(at[0] - this.last[0]) / dt, 0, (at[2] - this.last[2]) / dt] : [0, 0, 0];
    this.last = at;
    if (d <= stop && then) {
      this.last = null;
      return await then();
    }
    const speed = Math.min(3.2, d * 2.5);
    const want: V3 = d > 1e-6 ? [(dx / d) * speed, 0, (dz / d) * speed] : [0, 0, 0];
    // Turn 60% of the way to the wanted velocity, never by more than 2 m/s at once.
    const dv: V3 = [(want[0] - v[0]) * 0.6, 0, (want[2] - v[2]) * 0.6];
    const k = Math.min(1, 2 / (Math.hypot(dv[0], dv[2]) || 1));
    const impulse: V3 = [dv[0] * k * PLAYER_MASS, 0, dv[2] * k * PLAYER_MASS];
    if (Math.hypot(impulse[0], impulse[2]) < 0.01) return;
    await this.call("physics.applyImpulse", { entity: this.built.player, impulse });
  }
}

/** Where to head for `goal`: into or out of the vault only through its doorway (x = 0, z = 3…5). */
function route(at: V3, goal: V3): V3 {
  // Past the front wall's outer face (z = 3.5), less half a body.
  const inside = (p: V3) => p[2] > 3.2;
  if (inside(at) === inside(goal)) return goal;
  // Line up on the doorway's axis (it is 2 m wide) a little way out, then go through.
  const lined = Math.abs(at[0]) < 0.5;
  if (inside(goal)) return lined && at[2] > 1.6 ? goal : [0, at[1], 2];
  return lined ? [0, at[1], 1.8] : [0, at[1], at[2]];
}

function dist(a: V3, b: V3): number {
  return Math.hypot(a[0] - b[0], a[2] - b[2]);
}

/** The hunter's MCP session: a player under player.limited. */
export function hunterSession(session: WorldSession): Mcp {
  const mcp = session.mcp();
  mcp.initialize({ agentId: PLAYER, sessionId: "sess_hunter", profile: "player.limited" });
  return mcp;
}
