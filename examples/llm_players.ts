// Demo: LLM players in the Relic Hunt world deciding through an OpenAI-compatible gateway (LIMINA_GATEWAY_URL, LIMINA_GATEWAY_MODEL).
// LLM players in the Relic Hunt world: a builder agent makes the game over
// MCP (relic_hunt_core.ts), then players with goals decide through an
// OpenAI-compatible gateway — the hunter after the Keeper's relics, a scout
// who reports what it finds — while a bard talks with the Keeper (an NPC
// voiced by the model, remembering what it hears). Each player is offered
// a small core set of skills and finds the rest with list_skills /
// read_skill (progressive discovery); every decision prints how many tools
// it offered and the size of its prompt.
// Configure the gateway:  LIMINA_GATEWAY_URL (e.g. http://127.0.0.1:8080/v1),
//                         LIMINA_GATEWAY_MODEL, and LIMINA_GATEWAY_KEY if it needs one.
// Run:                    limina demo llm_players            (add --window to watch)
// LIMINA_LLM_PLAYERS_DECISIONS=N stops after N decisions; otherwise it runs
// until the game is won or lost, or ten minutes of world time pass.
import { createAgentSystems, createEngine, DEFAULT_BUDGET, type EngineEvent, env, GATEWAY_UNCONFIGURED, GatewayProvider, onFixedStep, type PromptStats } from "limina";
import * as THREE from "three";
import { buildRelicHunt, LAYOUT, PLAYER } from "./relic_hunt_core.ts";

const gateway = new GatewayProvider({ timeoutMs: 120_000 });
if (!gateway.configured) {
  console.error(`llm_players: ${GATEWAY_UNCONFIGURED}`);
  Limina.exit(2);
}
const limit = Number(env("LIMINA_LLM_PLAYERS_DECISIONS") ?? Infinity);
if (!(limit > 0)) {
  console.error(`llm_players: LIMINA_LLM_PLAYERS_DECISIONS must be a positive number of decisions, got ${env("LIMINA_LLM_PLAYERS_DECISIONS")}`);
  Limina.exit(2);
}
/** Ten minutes of world time. */
const GIVE_UP = 36_000;

// The world stands still while the builder makes it.
const engine = await createEngine({ paused: true });
const { session } = engine;
session.scene.background = new THREE.Color(0x9fb6cf);
const builder = session.mcp();
builder.initialize({ agentId: "agt_builder", sessionId: "sess_builder", profile: "builder.readWrite" });
const built = await buildRelicHunt(builder);
const body = async (at: [number, number, number], color: number) =>
  (await builder.mustCall<{ entity: string }>("scene.createEntity", { shape: "box", size: 0.6, color, position: at, dynamic: true, friction: 0.8 })).entity;
const scout = await body([3, 0.4, -9], 0x3fa34d);
const bard = await body([-3, 0.4, -6], 0xa33fa0);
await builder.mustCall("game.addPlayer", { agentId: "agt_scout", entity: scout });
await builder.mustCall("game.addPlayer", { agentId: "agt_bard", entity: bard });

const systems = createAgentSystems(session, { gateway }, {
  budget: { ...DEFAULT_BUDGET, defaultAgentBudget: { ...DEFAULT_BUDGET.defaultAgentBudget, decisionTimeoutMs: 120_000 } },
});
const player = (id: string, entityId: string, profile: string, goal: string) =>
  systems.agents.add({
    id,
    type: "player",
    entityId,
    perceptionRadius: 25,
    decisionIntervalTicks: 90,
    profile,
    sessionId: `sess_${id}`,
    llm: { provider: "gateway", model: "", systemPrompt: `You play in a small 3D world: ground, a walled vault, lava, an altar and the Keeper (an old guardian). ${goal} Use one or two tools per turn. Skills beyond the ones offered: list_skills, then read_skill.` },
  });
player(PLAYER, built.player, "player.limited", `You are the relic hunter. Goal: talk to the Keeper (dialogue), accept the quest for the three relics, pick them up (one lies in the vault behind the door) and bring them to the altar at [${LAYOUT.altar}]. Avoid the lava at [${LAYOUT.lava}]. You move by pushing your own body with physics.applyImpulse (mass ${0.6 ** 3}).`);
player("agt_scout", scout, "player.limited", "You are a scout. Goal: find out what is in this world (entities, what can be interacted with, the game's state) and report each finding with agent.emitEvent.");
player("agt_bard", bard, "social.actor", "You are a travelling bard, curious about the Keeper and the ruins.");
systems.agents.add({
  id: "agt_keeper",
  type: "player",
  entityId: built.keeper,
  decisionIntervalTicks: 600,
  profile: "social.actor",
  sessionId: "sess_keeper",
  llm: { provider: "gateway", model: "", systemPrompt: "You are the Keeper, an old guardian of these ruins, grave but kind. Speak briefly." },
});
const talk = systems.conversations.start({ participants: ["agt_bard", "agt_keeper"], topic: "the ruins and their relics", maxTurns: 4 });

const pad = (n: number) => String(n).padStart(5);
const say = (line: string) => console.log(`tick ${pad(session.tick)}  ${line}`);
console.log(`llm_players: the Relic Hunt world, built over MCP in ${built.calls} calls; players decide through ${env("LIMINA_GATEWAY_URL")} (model ${gateway.model})`);

let decisions = 0;
let ended = false;
const finish = (why: string) => {
  if (ended) return;
  ended = true;
  const usage = systems.agents.all().map((a) => `${a.id} ${a.usage.decisions} decisions, ~${a.usage.estimatedPromptTokens} prompt tokens (${a.usage.promptTokens} in / ${a.usage.completionTokens} out reported)`);
  console.log(`llm_players: ${why} after ${decisions} decisions\n  ${usage.join("\n  ")}`);
  systems.dispose();
  Limina.exit(0);
};

session.tracer.subscribe((e: EngineEvent) => {
  // What comes after the last decision asked for is not reported.
  if (decisions >= limit || ended) return;
  const p = e.payload as Record<string, unknown>;
  switch (e.type) {
    case "agent.decision.made": {
      const prompt = p.prompt as PromptStats;
      const active = prompt.activeSkills.length > 0 ? `, active [${prompt.activeSkills.join(", ")}]` : "";
      say(`${e.actorId} decided: ${prompt.tools} tools + ${prompt.prompted} in the system message, prompt ${prompt.chars} chars ≈ ${prompt.tokens} tokens${active}; ${p.toolCalls} call(s)`);
      if (++decisions >= limit) queueMicrotask(() => finish(`stopped (LIMINA_LLM_PLAYERS_DECISIONS=${limit})`));
      return;
    }
    case "agent.decision.failed":
      say(`${e.actorId} decision failed: ${p.error}`);
      return;
    case "agent.decision.timeout":
      say(`${e.actorId} decision timed out after ${p.timeoutMs} ms`);
      return;
    case "agent.skills.listed":
      say(`${e.actorId} listed ${p.total} more skills`);
      return;
    case "agent.skill.activated":
      say(`${e.actorId} read ${p.skill} (active: ${(p.active as string[]).join(", ")}${(p.dropped as string[]).length ? `; dropped ${(p.dropped as string[]).join(", ")}` : ""})`);
      return;
    case "agent.toolcall.rejected":
      say(`${e.actorId} call rejected: ${p.tool}: ${p.reason}`);
      return;
    case "skill.executed":
      if (e.actorId.startsWith("agt_") && e.actorId !== "agt_builder") say(`${e.actorId} ran ${p.skill}`);
      return;
    case "skill.failed":
      if (e.actorId.startsWith("agt_") && e.actorId !== "agt_builder") say(`${e.actorId} ${p.skill} failed: ${p.code}: ${p.message}`);
      return;
    case "social.said":
      say(`${e.actorId} says: ${p.text}`);
      return;
    case "conversation.ended":
      say(`the conversation ${p.conversation} ended (${p.reason}, ${p.lines} lines)`);
      return;
    case "game.won":
    case "game.lost":
      queueMicrotask(() => finish(`${e.type === "game.won" ? "won" : "lost"}: ${p.reason}`));
      return;
  }
});

onFixedStep(() => {
  if (session.tick >= GIVE_UP) finish("ten minutes of world time passed");
});
// The camera looks over the whole game.
engine.camera.position.set(0, 16, -20);
engine.camera.lookAt(0, 0, 0);
say(`the bard and the Keeper begin ${talk.id}`);
session.paused = false;
