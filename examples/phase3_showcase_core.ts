// The Phase-3 showcase, shared by the windowed demo and its test: one arena
// that puts the engine's parts together. Two bound builder sessions author
// it over the in-process MCP surface (lighting with shadow maps, a physical
// floor and bumpers, textured glTF models, a stack of dynamic crates); a
// read-only observer is refused a write; the players are named over their
// heads and a devtools HUD panel shows the evidence; three in-world players — agents in
// dynamic bodies — chase targets with physics impulses under one scheduler
// budget whose weights decide who acts most; Rapier steps every body and the
// engine syncs them into the scene; devtools evidence (inspector snapshots,
// the trace tail, the policy audit, an exported and verified trace) comes
// from the same skills a remote client would call.
// Not a demo by itself: phase3_showcase.ts runs it.
import {
  type AgentSystems,
  createAgentSystems,
  DEFAULT_BUDGET,
  type DecideRequest,
  type EntityEntry,
  type MCPRequest,
  type Mcp,
  onFixedStep,
  readTrace,
  type SchedulerBudget,
  ScriptedProvider,
  traceDir,
  type WorldSession,
} from "limina";

export const ARENA = 9; // half-width of the playing field (m)
/** The players: their colours and scheduler weights (more weight, more of the shared action budget). */
export const PLAYERS = [
  { id: "agt_red", color: 0xe0302a, weight: 1 },
  { id: "agt_green", color: 0x2fbf4a, weight: 2 },
  { id: "agt_blue", color: 0x2a62e0, weight: 3 },
] as const;
/** One action a tick for all players together: they decide faster than that, so the weights matter. */
export const BUDGET: SchedulerBudget = {
  maxDecisionStartsPerTick: 3,
  maxGlobalActionsPerTick: 1,
  defaultAgentBudget: { ...DEFAULT_BUDGET.defaultAgentBudget, maxActionsPerTick: 1, maxQueueDepth: 4, maxToolCallsPerDecision: 2 },
  agents: Object.fromEntries(PLAYERS.map((p) => [p.id, { weight: p.weight }])),
};
const TARGETS = 5;
const CRATES = 6;

export interface Showcase {
  players: AgentSystems;
  /** Player entity ids, in PLAYERS order. */
  bodies: EntityEntry[];
  targets: EntityEntry[];
  crates: EntityEntry[];
  /** Targets each player has reached. */
  scores: number[];
  /** Where the crates were built, to show physics moved them. */
  crateStart: [number, number, number][];
  /** The architect's bound MCP session (builder.readWrite). */
  architect: Mcp;
  /** The read-only observer's bound MCP session (system.readonly). */
  observer: Mcp;
  /** What the observer was told when it tried to build. */
  denied: { code?: string; message?: string };
  /** Devtools evidence: the inspector's snapshot, the players' counts, the trace tail (all bounded, cheap). */
  evidence(): Promise<Evidence>;
  /** The policy audit (audit.usage, which reads the whole world log back): calls allowed and denied per bound session. */
  audit(): Promise<{ sessionId: string; allowed: number; denied: number }[]>;
  /** Exports the world log through trace.export and verifies its chain by reading it back. */
  exportTrace(name: string): Promise<{ name: string; events: number; verified: number }>;
  /** Shows `lines` on the devtools HUD panel (the architect's, through ui.update). */
  display(lines: string[]): void;
}

export interface Evidence {
  entities: number;
  agents: number;
  skills: number;
  traceEvents: number;
  actors: number;
  /** Actions executed per player, counted from the world log as it is written. */
  actions: Record<string, number>;
  /** Tool calls the scheduler's queue bound turned away, per player. */
  rejected: Record<string, number>;
  /** The most active player's latest actions, from trace.tail. */
  tail: string[];
}

/** Pursue the nearest target: two half-strength pushes per decision (a demand the budget cannot meet for all). */
function chase(isTarget: (id: string) => boolean) {
  return (req: DecideRequest): MCPRequest[] => {
    const p = req.perception;
    if (!p.position || !p.selfEntity) return [];
    const target = p.nearby.find((n) => isTarget(n.id));
    if (!target) return [];
    const dx = target.position[0] - p.position[0];
    const dz = target.position[2] - p.position[2];
    const len = Math.hypot(dx, dz) || 1;
    const push = { tool: "physics.applyImpulse", input: { entity: p.selfEntity, impulse: [(dx / len) * 0.9, 0, (dz / len) * 0.9] } };
    return [push, push];
  };
}

export async function buildShowcase(session: WorldSession): Promise<Showcase> {
  const bind = (agentId: string, profile: string) => {
    const mcp = session.mcp();
    mcp.initialize({ agentId, sessionId: `sess_${agentId}`, profile });
    return mcp;
  };
  const architect = bind("architect", "builder.readWrite");
  const decorator = bind("decorator", "builder.readWrite");
  const observer = bind("observer", "system.readonly");
  const build = <T>(mcp: Mcp, tool: string, input: Record<string, unknown>) => mcp.mustCall<T>(tool, input);
  const create = async (input: Record<string, unknown>) => (await build<{ entity: string }>(architect, "scene.createEntity", input)).entity;

  await build(architect, "three.setLighting", {
    ambientColor: 0x8898c0,
    ambientIntensity: 1.0,
    directionalIntensity: 3.0,
    direction: [6, 12, 5],
    castShadow: true,
    shadowMapSize: 1024,
    shadowCameraExtent: ARENA + 4,
  });
  // The floor is a static cube whose top face is y = 0; bumpers ring the field.
  const floor = await create({ shape: "box", size: 2 * ARENA + 6, position: [0, -(ARENA + 3), 0], static: true, color: 0x9aa0a8, friction: 0.8 });
  const bumpers: string[] = [];
  for (let k = 0; k < 16; k++) {
    const a = (k / 16) * Math.PI * 2;
    bumpers.push(await create({ shape: "box", size: 1, position: [Math.cos(a) * (ARENA + 0.5), 0.5, Math.sin(a) * (ARENA + 0.5)], static: true, color: 0x50586a }));
  }
  const targetIds: string[] = [];
  for (let k = 0; k < TARGETS; k++) {
    const a = (k / TARGETS) * Math.PI * 2 + 0.4;
    const id = await create({ shape: "sphere", size: 0.6, position: [Math.cos(a) * 6, 0.3, Math.sin(a) * 6], color: 0xffc400 });
    await build(architect, "ecs.addComponent", { entity: id, component: "target" });
    targetIds.push(id);
  }
  const crateIds: string[] = [];
  for (let k = 0; k < CRATES; k++) {
    // A leaning tower, dropped from above: it falls and topples as the loop starts.
    crateIds.push(await create({ shape: "box", size: 0.8, position: [k * 0.25 - 0.6, 2 + k * 0.9, k * 0.1], dynamic: true, color: 0xb07a3e, friction: 0.6 }));
  }
  const playerIds: string[] = [];
  for (const [k, p] of PLAYERS.entries()) {
    const a = (k / PLAYERS.length) * Math.PI * 2 - Math.PI / 2;
    playerIds.push(await create({ shape: "box", size: 1, position: [Math.cos(a) * 4, 0.5, Math.sin(a) * 4], dynamic: true, color: p.color, friction: 0.9 }));
  }
  // Textured glTF models on the field's corners: checker cubes, and a crate model.
  const models: string[] = [];
  for (const [x, z] of [[-ARENA - 2, ARENA + 2], [ARENA + 2, ARENA + 2], [ARENA + 2, -ARENA - 2]]) {
    const m = (await build<{ entity: string }>(architect, "three.loadGLTF", { assetId: "checker_cube", position: [x, 1.2, z] })).entity;
    await build(architect, "three.setTransform", { entity: m, scale: [2.4, 2.4, 2.4], rotationEuler: [0, 0.6, 0] });
    models.push(m);
  }
  models.push((await build<{ entity: string }>(architect, "three.loadGLTF", { assetId: "crate", position: [-ARENA - 2, 0, -ARENA - 2] })).entity);

  // The second builder styles what the first built.
  await build(decorator, "three.setMaterial", { entity: floor, roughness: 0.9, receiveShadow: true });
  for (const id of [...bumpers, ...crateIds, ...playerIds, ...models]) await build(decorator, "three.setMaterial", { entity: id, castShadow: true, receiveShadow: true });
  for (const id of targetIds) await build(decorator, "three.setMaterial", { entity: id, roughness: 0.2, metalness: 0.3, castShadow: true });

  // The decorator names each player over its head; the architect keeps a devtools panel on screen.
  for (const [k, p] of PLAYERS.entries()) {
    await build(decorator, "ui.label", { anchor: { type: "world", entity: playerIds[k], offset: [0, 0.8, 0], align: "bottom", unitsPerPixel: 0.02 }, text: `${p.id} · weight ${p.weight}` });
  }
  const panel = await build<{ handle: string }>(architect, "ui.hudPanel", {
    anchor: { type: "screen", corner: "topLeft" },
    title: "devtools",
    lines: ["gathering evidence"],
    width: 300,
  });

  // The observer may look, not build.
  const refused = await observer.callTool({ tool: "scene.createEntity", input: { shape: "box" } });
  if (refused.success) throw new Error("a read-only observer must not build");
  const denied = { code: refused.error?.code, message: refused.error?.message };

  const { entities } = session;
  const targets = targetIds.map((id) => entities.require(id));
  const bodies = playerIds.map((id) => entities.require(id));
  const crates = crateIds.map((id) => entities.require(id));
  const isTarget = (id: string) => session.world.entities.get(id)?.tags.has("target") ?? false;
  const players = createAgentSystems(session, { scripted: new ScriptedProvider(chase(isTarget)) }, { budget: BUDGET });
  for (const [k, p] of PLAYERS.entries()) {
    players.agents.add({
      id: p.id,
      type: "player",
      entityId: playerIds[k],
      perceptionRadius: 30,
      decisionIntervalTicks: 3,
      profile: "player.limited",
      sessionId: `sess_${p.id}`,
      llm: { provider: "scripted", model: "", systemPrompt: "chase the nearest target" },
    });
  }

  // Each player's actions and turned-away tool calls, counted as the world log is written.
  const actions: Record<string, number> = Object.fromEntries(PLAYERS.map((p) => [p.id, 0]));
  const rejected: Record<string, number> = Object.fromEntries(PLAYERS.map((p) => [p.id, 0]));
  session.tracer.subscribe((e) => {
    if (!(e.actorId in actions)) return;
    if (e.type === "skill.executed") actions[e.actorId]++;
    else if (e.type === "agent.toolcall.rejected") rejected[e.actorId]++;
  });

  // The game: a player reaching a target scores, and the target hops elsewhere (a fixed-seed walk).
  const scores = PLAYERS.map(() => 0);
  let seed = 0x3c6ef372;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 0x100000000;
  };
  onFixedStep(() => {
    for (const t of targets) {
      const [tx, , tz] = session.world.position(t.eid);
      const k = bodies.findIndex((b) => Math.hypot(session.world.position(b.eid)[0] - tx, session.world.position(b.eid)[2] - tz) < 1.0);
      if (k < 0) continue;
      scores[k]++;
      const a = random() * Math.PI * 2;
      const r = 2 + random() * (ARENA - 3);
      entities.setTransform(t, { position: [Math.cos(a) * r, 0.3, Math.sin(a) * r] });
    }
  });

  return {
    players,
    bodies,
    targets,
    crates,
    scores,
    crateStart: crates.map((c) => session.world.position(c.eid)),
    architect,
    observer,
    denied,
    async evidence() {
      const snap = await observer.mustCall<{ page: { totalEntities: number }; agents: unknown[]; skills: unknown[]; trace: { eventCount: number; actors: string[] } }>("inspector.snapshot", { limit: 0 });
      const busiest = PLAYERS[PLAYERS.length - 1].id;
      const tail = await observer.mustCall<{ events: { type: string; payload: { skill?: string } }[] }>("trace.tail", { actorId: busiest, type: "skill.executed", limit: 3 });
      return {
        entities: snap.page.totalEntities,
        agents: snap.agents.length,
        skills: snap.skills.length,
        traceEvents: snap.trace.eventCount,
        actors: snap.trace.actors.length,
        actions: { ...actions },
        rejected: { ...rejected },
        tail: tail.events.map((e) => `${e.type} ${e.payload.skill}`),
      };
    },
    async audit() {
      const usage = await architect.mustCall<{ perSessionCap: { sessionId: string; allowed: number; denied: number }[] }>("audit.usage", {});
      const bySession = new Map<string, { sessionId: string; allowed: number; denied: number }>();
      for (const c of usage.perSessionCap) {
        const a = bySession.get(c.sessionId) ?? { sessionId: c.sessionId, allowed: 0, denied: 0 };
        a.allowed += c.allowed;
        a.denied += c.denied;
        bySession.set(c.sessionId, a);
      }
      return [...bySession.values()];
    },
    display(lines) {
      void architect.callTool({ tool: "ui.update", input: { handle: panel.handle, lines } });
    },
    async exportTrace(name) {
      const exported = await architect.mustCall<{ name: string; events: number }>("trace.export", { name });
      const events = readTrace(`${traceDir()}/${exported.name}`);
      return { name: exported.name, events: exported.events, verified: events.length };
    },
  };
}
