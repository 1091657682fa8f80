// limina: --deterministic
// Prompt tokens per decision: the same LLM players, once offered the full
// catalog their profile may call and once by progressive discovery (a core
// set, active skills, list_skills / read_skill). Each player is a scripted
// model that works toward goals needing skills outside the core set: under
// progressive discovery it lists, reads and then uses them (as a tool-calling
// model does); offered the full catalog it uses them at once. The prompt of
// every decision is measured as sent (messages + function tools, 4 characters
// a token), from the decisions' `prompt` in the world log.
// Run: limina --deterministic js/bench/prompt_tokens.ts [DECISIONS]   (final line: JSON figures)
import { createAgentSystems, createWorldSession, type DecideRequest, LIST_SKILLS, type MCPRequest, READ_SKILL, ScriptedProvider, waitSteps } from "limina";
import { round } from "limina/bench";

const DECISIONS = Number(Limina.args[0] ?? 24);

/** Players: a profile and the skills beyond its core set its goals need (with an input each). */
const PLAYERS: { profile: string; goals: MCPRequest[] }[] = [
  { profile: "player.limited", goals: [{ tool: "camera.get", input: {} }, { tool: "physics.collisionEvents", input: {} }, { tool: "trace.tail", input: { limit: 1 } }] },
  { profile: "social.actor", goals: [{ tool: "audio.play", input: { freq: 440, secs: 0.05 } }, { tool: "camera.get", input: {} }, { tool: "skills.search", input: { query: "sound" } }] },
  { profile: "builder.readWrite", goals: [{ tool: "ui.label", input: { anchor: { type: "world", position: [0, 2, 0] }, text: "hi", lifecycle: { ttl: 0.1 } } }, { tool: "three.setLighting", input: { ambientIntensity: 1 } }, { tool: "camera.set", input: { position: [0, 3, 6], target: [0, 0, 0] } }] },
  { profile: "system.readonly", goals: [{ tool: "physics.collisionEvents", input: {} }, { tool: "camera.get", input: {} }, { tool: "trace.tail", input: { limit: 1 } }] },
];

/** A scripted model: under progressive discovery it lists once, reads each goal's skill before it uses it, and otherwise uses what it is offered. */
function model(goals: MCPRequest[]) {
  let n = 0;
  return (req: DecideRequest): MCPRequest[] => {
    n++;
    const offered = new Set(req.tools.map((t) => t.name));
    const goal = goals[n % goals.length];
    if (!offered.has(LIST_SKILLS)) return [goal];
    if (n === 1) return [{ tool: LIST_SKILLS, input: {} }];
    if (!offered.has(goal.tool)) return [{ tool: READ_SKILL, input: { id: goal.tool } }];
    return [goal];
  };
}

async function run(mode: "full" | "progressive") {
  const session = createWorldSession();
  const providers = Object.fromEntries(PLAYERS.map((p, i) => [`p${i}`, new ScriptedProvider(model(p.goals))]));
  const sys = createAgentSystems(session, providers);
  PLAYERS.forEach((p, i) => sys.agents.add({
    id: `agt_${i}`,
    type: "player",
    anchor: [0, 0, 0],
    decisionIntervalTicks: 2,
    profile: p.profile,
    sessionId: `ses_${i}`,
    llm: { provider: `p${i}`, model: "", systemPrompt: "You are a player in a small world. Pursue your goals with your skills." },
    discovery: { mode },
  }));
  const made = () => session.tracer.history().filter((e) => e.type === "agent.decision.made");
  while (made().length < DECISIONS * PLAYERS.length) await waitSteps(1);
  const prompts = made().map((e) => e.payload as { agentId: string; prompt: { tokens: number; tools: number } }).filter((p) => Number(p.agentId.slice(4)) < PLAYERS.length);
  const perProfile = Object.fromEntries(PLAYERS.map((p, i) => {
    const mine = prompts.filter((d) => d.agentId === `agt_${i}`).slice(0, DECISIONS);
    return [p.profile, { tokens: round(mine.reduce((s, d) => s + d.prompt.tokens, 0) / mine.length, 0), tools: round(mine.reduce((s, d) => s + d.prompt.tools, 0) / mine.length, 1) }];
  }));
  const all = Object.values(perProfile);
  const executed = session.tracer.history().filter((e) => e.type === "skill.executed" && e.actorId.startsWith("agt_")).length;
  sys.dispose();
  await sys.action.settled();
  const skills = session.registry.size;
  session.dispose();
  return { perProfile, tokensPerDecision: round(all.reduce((s, p) => s + p.tokens, 0) / all.length, 0), executed, skills };
}

const full = await run("full");
const progressive = await run("progressive");
const figures = {
  bench: "prompt_tokens",
  skills: full.skills,
  decisionsPerPlayer: DECISIONS,
  fullTokensPerDecision: full.tokensPerDecision,
  progressiveTokensPerDecision: progressive.tokensPerDecision,
  progressiveShare: round(progressive.tokensPerDecision / full.tokensPerDecision, 3),
  full: full.perProfile,
  progressive: progressive.perProfile,
  actionsRun: { full: full.executed, progressive: progressive.executed },
};
console.log(`${figures.skills} skills: ${figures.fullTokensPerDecision} prompt tokens per decision with the full catalog, ${figures.progressiveTokensPerDecision} by progressive discovery (${(figures.progressiveShare * 100).toFixed(1)}%)`);
console.log(JSON.stringify(figures));
Limina.exit(0);
