// limina: --deterministic
// The numbers party: in this process, 200 humanoid number-people run through
// the real agent pipeline for ten simulated seconds — every agent perceives,
// decides and walks only through traced nav.moveTo calls caused by its
// decisions, the navmesh crowd keeping them apart (no two interpenetrate at
// any step), pairs walk up to each other, stop, turn and talk, chatter
// through positional audio.playAt and say a line each in a ui.speechBubble; and the
// demo, run as users run it (`limina demo numbers_party`), draws the crowd
// and its agent-ops HUD and perf overlay offscreen, and the crowd in a window
// under Xvfb.
import { assert, assertEquals, test } from "limina/testing";
import { createWorldSession, type EngineEvent, onFixedStep, waitSteps } from "limina";
import { AGENTS, createParty, DECISION_INTERVAL, PLAZA_RADIUS } from "../../examples/numbers_party_core.ts";
import { cleanUp, countPixels, runDemo, scratch, textStrokes } from "./support/demos.ts";

/** A number-person's body: a vivid hue (the plaza, lawn, sky and the HUD's panels and bubbles are all muted: without the crowd, no such pixels). */
const vivid = (r: number, g: number, b: number) => Math.max(r, g, b) > 110 && Math.max(r, g, b) - Math.min(r, g, b) > 90;

// The demo runs come first: once this process has a world session, its loop steps as fast as the
// CPU allows under --deterministic, and would take a core from each demo while the test waits for it.
test("the demo draws its crowd and its HUD (trace feed, perf overlay) offscreen, plays its ambience bed, and reports the party's progress", async () => {
  const wav = scratch("party.wav");
  const run = await runDemo("numbers_party", { frames: 600, size: "640x360", deterministic: true, env: { LIMINA_AUDIO: `wav:${wav}` } });
  assert(!run.stdout.includes("no ambience"), run.stdout);
  const stat = await Limina.run({ cmd: "sox", args: [wav, "-n", "trim", "0.5", "1", "stat"] });
  const rms = Number(/RMS\s+amplitude:\s+([\d.e-]+)/.exec(stat.stderr)![1]);
  assert(rms > 0.002, `the ambience bed plays from the start: RMS ${rms}`);
  const all = run.frame.width * run.frame.height;
  const crowd = countPixels(run.frame, vivid);
  assert(crowd > all * 0.01, `${crowd} crowd pixels of ${all}`);
  // The HUD's panels: dark panels in the top corners (the sky behind them is light), with text in them.
  for (const [x0, x1] of [[0, 320], [440, 640]]) {
    const region = { x0, y0: 0, x1, y1: 150 };
    const panel = countPixels(run.frame, (r, g, b) => Math.max(r, g, b) < 70, region);
    assert(panel > 3000, `a dark HUD panel in x ${x0}–${x1}: ${panel} pixels`);
    assert(textStrokes(run.frame, region) > 150, `text in the HUD panel at x ${x0}–${x1}: ${textStrokes(run.frame, region)} strokes`);
  }
  const reports = [...run.stdout.matchAll(/^t=(\d+)s: (\d+) pairs chatting, (\d+) walking up to someone, (\d+) chats so far; (\d+) moves traced/gm)];
  assertEquals(reports.map((m) => Number(m[1])), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], run.stdout);
  const last = reports[reports.length - 1];
  assert(Number(last[4]) > 0 && Number(last[5]) > AGENTS * 20, last[0]);
  // Render fps and simulation steps/s are reported apart: offscreen under --deterministic the loop
  // steps as fast as it can while only the screenshot's frame is rendered.
  const rates = [...run.stdout.matchAll(/render ([\d.]+) fps, sim (\d+) steps\/s/g)].map((m) => [Number(m[1]), Number(m[2])]);
  assertEquals(rates.length, 10, run.stdout);
  assert(rates.every(([fps, steps]) => fps === 0 && steps > 0), `nothing rendered until the last frame, steps ran: ${JSON.stringify(rates)}`);
});

test("windowed under Xvfb, the window shows the crowd", async () => {
  // Deterministic: frame 3 shows the same world however long a loaded machine takes to load it (the crowd is
  // there from the first frame; each frame drawn in the window costs some 80 ms of CPU here).
  const run = await runDemo("numbers_party", { frames: 3, size: "640x360", window: true, deterministic: true, env: { LIMINA_AUDIO: "null" } });
  assert(/\(640×360, frame 3, .*, window\)/.test(run.stderr), run.stderr);
  const all = run.frame.width * run.frame.height;
  const crowd = countPixels(run.frame, vivid);
  assert(crowd > all * 0.01, `${crowd} crowd pixels of ${all} in the window`);
});

test("--fullscreen covers the display with the crowd, for a bounded run", async () => {
  const run = await runDemo("numbers_party", { frames: 3, window: "fullscreen", screen: "640x400", deterministic: true, env: { LIMINA_AUDIO: "null" } });
  assert(/\(640×400, frame 3, .*, window\)/.test(run.stderr), run.stderr);
  assertEquals([run.frame.width, run.frame.height], [640, 400]);
  const all = run.frame.width * run.frame.height;
  const crowd = countPixels(run.frame, vivid);
  assert(crowd > all * 0.01, `${crowd} crowd pixels of ${all}`);
});

test("200 agents perceive, decide and walk the navmesh crowd only through traced skills, never interpenetrating; pairs meet, talk, chatter and say lines in speech bubbles", async () => {
  const session = createWorldSession();
  const party = await createParty(session);
  assertEquals(party.systems.agents.size, AGENTS);
  const start = party.people.map((e) => session.world.position(e.eid));
  // Non-penetration at every step: each pair at least 0.9 × the sum of their crowd radii (0.35 m × height / 1.75) apart.
  const { Position } = session.world;
  const eids = party.people.map((e) => e.eid);
  const radius = party.characters.map((c) => 0.35 * (c.resource.appearance.height ?? 1.75) / 1.75);
  let worst = Infinity;
  let worstStep = -1;
  const order = eids.map((_, i) => i);
  const offCheck = onFixedStep((_dt, step) => {
    // Sweep along x: only pairs closer in x than the widest sum of radii can touch.
    order.sort((a, b) => Position.x[eids[a]] - Position.x[eids[b]]);
    for (let a = 0; a < order.length; a++) {
      const i = order[a];
      for (let b = a + 1; b < order.length && Position.x[eids[order[b]]] - Position.x[eids[i]] < 1; b++) {
        const j = order[b];
        const d = Math.hypot(Position.x[eids[i]] - Position.x[eids[j]], Position.z[eids[i]] - Position.z[eids[j]]) / (radius[i] + radius[j]);
        if (d < worst) [worst, worstStep] = [d, step];
      }
    }
  });
  await waitSteps(600);
  offCheck();
  assert(worst >= 0.9, `two agents came within ${worst.toFixed(3)} × the sum of their radii at step ${worstStep}`);
  console.log(`  closest pair over the run: ${worst.toFixed(3)} × the sum of their radii`);
  await party.systems.action.settled();
  const h = session.tracer.history();
  const byId = new Map(h.map((e) => [e.id, e]));
  const ofAgents = (type: string) => h.filter((e) => e.type === type && e.actorId.startsWith("agt_num"));
  const perceptions = ofAgents("agent.perception.updated");
  const decisions = ofAgents("agent.decision.made");
  // Every agent decides about every DECISION_INTERVAL steps (staggered by the scheduler's per-tick cap).
  assert(decisions.length >= (AGENTS * 600) / DECISION_INTERVAL * 0.9, `${decisions.length} decisions`);
  assertEquals(new Set(perceptions.map((e) => e.actorId)).size, AGENTS, "every agent perceived");
  assertEquals(ofAgents("agent.toolcall.rejected").length, 0, "every tool call the policy made was valid");

  const executed = ofAgents("skill.executed");
  const moves = executed.filter((e) => (e.payload as { skill: string }).skill === "nav.moveTo");
  const blips = executed.filter((e) => (e.payload as { skill: string }).skill === "audio.playAt");
  assertEquals(moves.length, party.stats().moves);
  assertEquals(blips.length, party.stats().blips);
  assert(moves.length > AGENTS * 40, `${moves.length} moves`);
  // Each walk is the agent's own body's, caused by its own decision, caused by its own perception.
  const entityOf = new Map(party.systems.agents.all().map((a) => [a.id, a.entityId]));
  for (const e of [...moves.slice(0, 200), ...moves.slice(-200)]) {
    const p = e.payload as { input: { entityId: string; target: number[] }; decisionId: string };
    assertEquals(p.input.entityId, entityOf.get(e.actorId));
    assert(Math.hypot(p.input.target[0], p.input.target[2]) <= PLAZA_RADIUS + 1e-6, "a target inside the plaza");
    const decision = byId.get(e.causedBy[0]) as EngineEvent;
    assertEquals([decision.type, decision.actorId, (decision.payload as { decisionId: string }).decisionId], ["agent.decision.made", e.actorId, p.decisionId]);
    assertEquals(byId.get(decision.causedBy[0])?.type, "agent.perception.updated");
  }
  // Chatting partners stopped, turned to each other and talked.
  const talks = executed.filter((e) => (e.payload as { skill: string; input: { clip?: string } }).skill === "animation.play" && (e.payload as { input: { clip: string } }).input.clip === "talk");
  assert(talks.length >= party.stats().chats, `${talks.length} talk animations for ${party.stats().chats} chats`);
  // Nothing moved a number-person but its agent's actions.
  assertEquals(h.filter((e) => e.type === "skill.executed" && !e.actorId.startsWith("agt_num")).length, 0);

  const s = party.stats();
  assert(s.chats >= 20, `${s.chats} pairs met and chatted`);
  // Each chatter says a line in a speech bubble over its own head.
  const bubbles = executed.filter((e) => (e.payload as { skill: string }).skill === "ui.speechBubble");
  assertEquals(bubbles.length, s.bubbles);
  assert(bubbles.length >= s.chats, `${bubbles.length} speech bubbles for ${s.chats} chats`);
  for (const e of bubbles.slice(0, 50)) {
    const input = (e.payload as { input: { anchor: { entity: string }; text: string } }).input;
    assertEquals(input.anchor.entity, entityOf.get(e.actorId));
    assert(/^(Hi \d! I'm \d\.|\d \+ \d = \d+!)$/.test(input.text), input.text);
  }
  assert(blips.length >= s.chats, `${blips.length} chatter blips`);
  // A chatter blip sounds where its speaker stands, and only while it chats with a partner standing by.
  for (const e of blips.slice(0, 50)) {
    const pos = (e.payload as { input: { position: number[] } }).input.position;
    assert(Math.hypot(pos[0], pos[2]) <= PLAZA_RADIUS + 1e-6, "a blip on the plaza");
  }
  const moved = party.people.filter((e, i) => Math.hypot(session.world.position(e.eid)[0] - start[i][0], session.world.position(e.eid)[2] - start[i][2]) > 1).length;
  assert(moved > AGENTS * 0.9, `${moved} of ${AGENTS} agents walked more than a metre`);
  party.dispose();
  session.dispose();
});

test("cleanup", cleanUp);
