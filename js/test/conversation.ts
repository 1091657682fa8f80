// limina: --deterministic
// Conversations: NPC↔NPC and player↔NPC turns with scripted providers —
// lines through social.say (speech bubbles, voice, social.said), NPC
// memories of what was said (world state) and a bounded summary of them in
// the speaker's prompt, turn-taking paced by reading time, an early end,
// failed turns retried then given up, and the same transcript every run.
import { assert, assertEquals, test } from "limina/testing";
import { createAgentSystems, createWorldSession, type DecideRequest, type MCPRequest, npcs, ScriptedProvider, waitSteps } from "limina";

/** A scripted speaker: its line names itself, the turn, and how many memory lines its prompt carried. */
function speaker(name: string, seen: Map<string, DecideRequest[]>, end?: (req: DecideRequest) => boolean) {
  let n = 0;
  return new ScriptedProvider((req): MCPRequest[] => {
    seen.set(name, [...(seen.get(name) ?? []), req]);
    if (end?.(req)) return [{ tool: "end_conversation", input: { reason: "done" } }];
    const memory = /What you remember of them:\n([\s\S]*?)\n\n/.exec(req.systemPrompt)?.[1] ?? "";
    return [{ tool: "social.say", input: { text: `${name} ${++n}: I recall ${memory === "" ? 0 : memory.split(" / ").length + memory.split("\n").length - 1} things.` } }];
  });
}

async function world(withPlayer = false) {
  const session = createWorldSession();
  const body = (x: number) => session.entities.create({ shape: "box", size: 1, position: [x, 0.5, 0], static: true, dynamic: false, color: 0x888888, friction: 0.5, restitution: 0 }).id;
  const mira = body(-1);
  const osric = body(1);
  const player = body(0);
  await npcs.define(session, mira, { name: "Mira", persona: "a herbalist" });
  await npcs.define(session, osric, { name: "Osric", persona: "a woodcutter" });
  const seen = new Map<string, DecideRequest[]>();
  return { session, mira, osric, player, seen, withPlayer };
}

function agents(w: Awaited<ReturnType<typeof world>>, providers: Record<string, ScriptedProvider>) {
  const sys = createAgentSystems(w.session, providers);
  const add = (id: string, entityId: string, prompt: string) =>
    sys.agents.add({ id, type: "player", entityId, decisionIntervalTicks: 20, profile: "social.actor", sessionId: `ses_${id}`, llm: { provider: id, model: "", systemPrompt: prompt } });
  add("agt_mira", w.mira, "You are Mira, a herbalist.");
  add("agt_osric", w.osric, "You are Osric, a woodcutter.");
  if (providers.agt_player) add("agt_player", w.player, "You are a traveller.");
  return sys;
}

/** Steps until the conversation ends, then once more: the last line is remembered on the next tick. */
async function talkUntilEnded(sys: ReturnType<typeof agents>, id: string) {
  for (let i = 0; i < 20_000 && sys.conversations.get(id)!.state !== "ended"; i++) await waitSteps(1);
  await waitSteps(1);
}

async function npcTalk() {
  const w = await world();
  const sys = agents(w, { agt_mira: speaker("Mira", w.seen), agt_osric: speaker("Osric", w.seen) });
  // Osric already remembers something about Mira.
  await npcs.remember(w.session, w.osric, "Mira sold me bad mushrooms once", { about: w.mira, kind: "note" });
  const c = sys.conversations.start({ participants: ["agt_mira", "agt_osric"], topic: "the mushrooms", maxTurns: 4 });
  await talkUntilEnded(sys, c.id);
  return { w, sys, c };
}

test("NPC↔NPC: turns alternate, each line said through social.say, remembered by both NPCs, summarised in the next prompt", async () => {
  const { w, sys, c } = await npcTalk();
  assertEquals([c.state, c.endReason], ["ended", "turns"]);
  assertEquals(c.lines.map((l) => l.speaker), ["agt_mira", "agt_osric", "agt_mira", "agt_osric"]);
  const all = w.session.tracer.history();
  // Once it ended they decide as usual again (and may speak): what counts is what came before.
  const events = all.slice(0, all.findIndex((e) => e.type === "conversation.ended"));
  const said = events.filter((e) => e.type === "social.said").map((e) => e.payload as { speaker: string; text: string; handle: string; sound: string | null; unspoken?: string });
  assertEquals(said.map((s) => [s.speaker, s.text]), c.lines.map((l) => [l.speaker, l.text]), "every line went through social.say");
  assert(said.every((s) => s.handle.startsWith("ui_")), "each with a speech bubble");
  assert(said.every((s) => s.sound !== null || typeof s.unspoken === "string"), `each spoken aloud, or why not: ${JSON.stringify(said[0])}`);
  // Turns are paced by reading time: each next line comes at least 1.5 s after the last.
  for (let i = 1; i < c.lines.length; i++) assert(c.lines[i].tick - c.lines[i - 1].tick >= 90, `turn ${i + 1} waited for the last line to be read`);
  // Both NPCs remember the conversation (said by them, heard from the other).
  const mira = npcs.recall(w.session, w.mira, {});
  assertEquals(mira.filter((m) => m.kind === "said").map((m) => m.text), [c.lines[2].text, c.lines[0].text]);
  assertEquals(mira.filter((m) => m.kind === "heard").map((m) => [m.text, m.about]), [[`Osric: ${c.lines[3].text}`, w.osric], [`Osric: ${c.lines[1].text}`, w.osric]]);
  // Osric's first turn knew his old memory of Mira and her first line; Mira's second knew Osric's.
  const osricFirst = w.seen.get("Osric")![0].systemPrompt;
  assert(osricFirst.startsWith("You are Osric, a woodcutter."), "the persona first");
  assert(osricFirst.includes("Mira sold me bad mushrooms once") && osricFirst.includes(`Mira: ${c.lines[0].text}`), osricFirst);
  assert(osricFirst.includes("about: the mushrooms") && osricFirst.includes("(your attitude 0 of −100…100)"), osricFirst);
  assertEquals(w.seen.get("Osric")![0].tools.map((t) => t.name), ["social.say", "end_conversation"], "a turn offers the line and the end, nothing else");
  // No other decisions while talking: one decision a line.
  assertEquals(events.filter((e) => e.type === "agent.decision.made").length, 4);
  assertEquals(events.filter((e) => e.type === "conversation.turn").length, 4);
  assertEquals(sys.agents.get("agt_mira")!.conversation, null, "free again once it ended");
  sys.dispose();
  w.session.dispose();
});

test("deterministic with the scripted provider: the same lines at the same ticks, and the same NPC memories, every run", async () => {
  const a = await npcTalk();
  const b = await npcTalk();
  const start = (r: typeof a) => r.c.lines[0].tick;
  assertEquals(a.c.lines.map((l) => [l.tick - start(a), l.speaker, l.text]), b.c.lines.map((l) => [l.tick - start(b), l.speaker, l.text]));
  const memories = (r: typeof a) => npcs.recall(r.w.session, r.w.osric, {}).map((m) => [m.tick - start(r), m.kind, m.text]);
  assertEquals(memories(a), memories(b));
  for (const r of [a, b]) {
    r.sys.dispose();
    r.w.session.dispose();
  }
});

test("player↔NPC: the player's prompt has no memory section, the NPC remembers the player's lines; end_conversation ends it early", async () => {
  const w = await world(true);
  const sys = agents(w, {
    agt_player: speaker("Traveller", w.seen, (req) => req.systemPrompt.includes("Traveller 1:") && req.systemPrompt.includes("Mira 1:")),
    agt_mira: speaker("Mira", w.seen),
    agt_osric: speaker("Osric", w.seen),
  });
  const c = sys.conversations.start({ participants: ["agt_player", "agt_mira"], maxTurns: 10 });
  await talkUntilEnded(sys, c.id);
  assertEquals([c.lines.length, c.endReason], [2, "ended by agt_player"]);
  assert(!w.seen.get("Traveller")![0].systemPrompt.includes("What you remember"), "a player (no NPC) carries no memory summary");
  assertEquals(npcs.recall(w.session, w.mira, { kind: "heard" }).map((m) => [m.text, m.about]), [[`agt_player: ${c.lines[0].text}`, w.player]]);
  assertEquals(sys.agents.get("agt_osric")!.conversation, null, "Osric was never in it");
  sys.dispose();
  w.session.dispose();
});

test("the memory summary is bounded: at most 4 memories of each other participant, at most 600 characters", async () => {
  const w = await world();
  for (let i = 0; i < 12; i++) await npcs.remember(w.session, w.mira, `Osric told me story number ${i} about the old oak by the river, at length`, { about: w.osric, kind: "heard" });
  const sys = agents(w, { agt_mira: speaker("Mira", w.seen), agt_osric: speaker("Osric", w.seen) });
  const c = sys.conversations.start({ participants: ["agt_mira", "agt_osric"], maxTurns: 1 });
  await talkUntilEnded(sys, c.id);
  const prompt = w.seen.get("Mira")![0].systemPrompt;
  const summary = /What you remember of them:\n([\s\S]*?)\n\n/.exec(prompt)![1];
  assert(summary.length <= 600, `${summary.length} characters`);
  assert(summary.includes("story number 11") && summary.includes("story number 8") && !summary.includes("story number 7"), summary);
  sys.dispose();
  w.session.dispose();
});

test("a speaker whose turns fail: each failure traced, retried twice, then the conversation ends; a turn may not call anything else", async () => {
  const w = await world();
  const sys = agents(w, {
    agt_mira: new ScriptedProvider(() => [{ tool: "scene.queryEntities", input: {} }, { tool: "social.say", input: { text: "Hello." } }]),
    agt_osric: new ScriptedProvider(() => Promise.reject(new Error("the model is down"))),
  });
  const c = sys.conversations.start({ participants: ["agt_mira", "agt_osric"], maxTurns: 6 });
  await talkUntilEnded(sys, c.id);
  assertEquals(c.endReason, "failed: the model is down");
  assertEquals(c.lines.map((l) => l.text), ["Hello."]);
  const events = w.session.tracer.history();
  assertEquals(events.filter((e) => e.type === "conversation.turn.failed").map((e) => (e.payload as { failures: number }).failures), [1, 2, 3]);
  const rejected = events.filter((e) => e.type === "agent.toolcall.rejected").map((e) => e.payload as { tool: string; code: string });
  assertEquals(rejected, [{ ...rejected[0], tool: "scene.queryEntities", code: "forbidden" }], "outside the conversation's skills");
  assertEquals(events.filter((e) => e.type === "skill.executed" && (e.payload as { skill: string }).skill === "scene.queryEntities").length, 0);
  sys.dispose();
  w.session.dispose();
});

test("refused: fewer than two, a participant without a body, one named twice or already talking", async () => {
  const w = await world();
  const sys = agents(w, { agt_mira: speaker("Mira", w.seen), agt_osric: speaker("Osric", w.seen) });
  sys.agents.add({ id: "agt_ghost", type: "player", anchor: [0, 0, 0], profile: "social.actor", sessionId: "s", llm: { provider: "agt_mira", model: "", systemPrompt: "" } });
  const refusal = (spec: unknown) => {
    try {
      sys.conversations.start(spec as never);
      return "started";
    } catch (e) {
      return (e as Error).message;
    }
  };
  assert(refusal({ participants: ["agt_mira"] }).startsWith("conversation: ✖ Too small: expected array to have >=2 items"), refusal({ participants: ["agt_mira"] }));
  assertEquals(refusal({ participants: ["agt_mira", "agt_ghost"] }), "agt_ghost inhabits no entity: it has nowhere to speak from");
  assertEquals(refusal({ participants: ["agt_mira", "agt_mira"] }), "a participant is named twice");
  sys.conversations.start({ participants: ["agt_mira", "agt_osric"] });
  assert(refusal({ participants: ["agt_osric", "agt_mira"] }).startsWith("agt_osric is already in conv_"), "one conversation at a time");
  sys.dispose();
  w.session.dispose();
});
