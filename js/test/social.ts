// social.approach / social.say and locomotion: agents with bodies (published
// by real agent systems) walking up to a target each fixed step, speaking as
// themselves through per-speaker bubble queues; denials with zero effect.
import { assert, assertEquals, test } from "limina/testing";
import { Capturer, createAgentSystems, createWorldSession, decodePng, resolveProfile, type Vec3, type WorldSession } from "limina";
import { value } from "./support/results.ts";

const STEP = 1 / 60;
const llm = { provider: "scripted", model: "", systemPrompt: "" };
const actor = (agentId: string) => ({ agentId, sessionId: `ses_${agentId}`, permissions: resolveProfile("social.actor"), profile: "social.actor" });
const limited = (agentId: string) => ({ agentId, sessionId: `ses_${agentId}`, permissions: resolveProfile("player.limited"), profile: "player.limited" });
const BUILDER = { agentId: "b1", sessionId: "s1", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };

/** A world with bodies for agt_walker (at the origin), agt_npc (at [6, 0, 0]) and a bare entity at [0, 0, -8]. */
async function world() {
  const s = createWorldSession({ simulate: false });
  const make = async (position: Vec3) => value<{ entity: string }>(await s.registry.invoke("scene.createEntity", { shape: "box", size: 1, position, color: 0x3366cc }, BUILDER)).entity;
  const walker = await make([0, 0.5, 0]);
  const npc = await make([6, 0.5, 0]);
  const post = await make([0, 0.5, -8]);
  const systems = createAgentSystems(s, {}, { manual: true });
  systems.agents.add({ id: "agt_walker", type: "player", entityId: walker, profile: "social.actor", sessionId: "ses_agt_walker", llm });
  systems.agents.add({ id: "agt_npc", type: "player", entityId: npc, profile: "social.actor", sessionId: "ses_agt_npc", llm });
  const position = (e: string) => s.world.position(s.world.entities.get(e)!.eid);
  const events = (type: string) => s.tracer.tail().filter((e) => e.type === type);
  const steps = (n: number) => {
    for (let i = 0; i < n; i++) s.step(STEP);
  };
  return { s, walker, npc, post, systems, position, events, steps };
}

test("approach: the walker strides toward an agent each fixed step and social.approached says it arrived", async () => {
  const { s, walker, position, events, steps } = await world();
  assertEquals(value(await s.registry.invoke("social.approach", { target: "agt_npc", talkDistance: 1.5 }, actor("agt_walker"))), { approaching: true, target: "agt_npc" });
  const started = events("social.approach");
  assertEquals(started.length, 1);
  steps(30);
  const halfway = position(walker);
  assert(halfway[0] > 0.6 && halfway[0] < 1.0 && Math.abs(halfway[2]) < 1e-6, `half a second at walking pace: ${halfway}`);
  const [, ry, , rw] = s.world.rotation(s.world.entities.get(walker)!.eid);
  assert(Math.abs(2 * Math.atan2(ry, rw) - Math.PI / 2) < 1e-3, "it turned to face +x, where it walks");
  assertEquals(events("social.approached").length, 0, "not there yet");
  steps(240);
  const arrived = events("social.approached");
  assertEquals(arrived.length, 1);
  const e = arrived[0];
  assertEquals([e.actorId, (e.payload as { agentId: string }).agentId, (e.payload as { target: string }).target], ["agt_walker", "agt_walker", "agt_npc"]);
  assert(e.causedBy.includes(started[0].id), "caused by the approach");
  const d = (e.payload as { distance: number }).distance;
  assert(Math.abs(d - 1.5) < 1e-4, `stopped at talking distance: ${d}`);
  assert(Math.abs(position(walker)[0] - 4.5) < 1e-4, `${position(walker)}`);
  steps(60);
  assertEquals(events("social.approached").length, 1, "arrived once");
  assert(Math.abs(position(walker)[0] - 4.5) < 1e-4, "and stays");
  s.dispose();
});

test("approach pursues a moving target, an entity or a point; bad targets are refused before any effect", async () => {
  const { s, walker, npc, post, position, events, steps } = await world();
  value(await s.registry.invoke("social.approach", { target: npc }, actor("agt_walker")));
  steps(60);
  // The target moves behind the walker: it turns around and follows.
  value(await s.registry.invoke("three.setTransform", { entity: npc, position: [-5, 0.5, 0] }, BUILDER));
  steps(400);
  assertEquals(events("social.approached").length, 1);
  assert(Math.abs(position(walker)[0] - -3.5) < 1e-3, `followed it: ${position(walker)}`);
  value(await s.registry.invoke("social.approach", { target: [-3.5, 0, 5], talkDistance: 0.5 }, actor("agt_walker")));
  steps(400);
  assertEquals(events("social.approached").length, 2);
  assert(Math.abs(position(walker)[2] - 4.5) < 1e-3, `${position(walker)}`);
  const before = s.tracer.tail().length;
  for (const [target, code] of [["ent_nobody", "not_found"], ["agt_ghost", "not_found"], ["agt_walker", "invalid_input"], [[1e9, 0, 0], "invalid_input"]] as const) {
    const r = await s.registry.invoke("social.approach", { target }, actor("agt_walker"));
    assert(!r.ok && r.error.code === code, `${JSON.stringify(target)}: ${JSON.stringify(r)}`);
  }
  const bodiless = await s.registry.invoke("social.approach", { target: post }, actor("agt_nobody"));
  assert(!bodiless.ok && bodiless.error.code === "not_found" && bodiless.error.message.includes("inhabits no live entity"), JSON.stringify(bodiless));
  assertEquals(s.tracer.tail().slice(before).filter((e) => e.type.startsWith("social.")).length, 0, "nothing started");
  s.dispose();
});

test("say: the speaker is the caller, whatever the payload claims; the bubble sits above its body", async () => {
  const { s, walker, events } = await world();
  const r = value<{ said: boolean; speaker: string; handle: string }>(await s.registry.invoke("social.say", { text: "I am the walker.", actorId: "agt_npc" }, actor("agt_walker")));
  assertEquals([r.said, r.speaker], [true, "agt_walker"]);
  const said = events("social.said");
  assertEquals(said.length, 1);
  assertEquals([said[0].actorId, (said[0].payload as { speaker: string }).speaker, (said[0].payload as { entity: string }).entity], ["agt_walker", "agt_walker", walker]);
  const info = s.ui.inspect(r.handle)!;
  assertEquals([info.kind, info.content.text, info.queue], ["speechBubble", "I am the walker.", "speaker:agt_walker"]);
  const sound = (said[0].payload as { sound: string | null }).sound;
  if (sound !== null) assert(/^snd_[0-9a-z]+$/.test(sound), `spoken as ${sound}`);
  else assert((said[0].payload as { unspoken?: string }).unspoken, "no voice: the event says why it was not spoken");
  // Rendered: the bubble's white pixels all above the top of the walker's box (y = 1 m), over it.
  for (let i = 0; i < 60; i++) s.step(STEP);
  assertEquals(await s.enableCapture(await Capturer.create()), true);
  const cap = value<{ png: string }>(await s.registry.invoke("render.capture", { width: 256, height: 256, camera: { position: [0, 1.5, 7], target: [0, 1.5, 0], fov: 50 } }, BUILDER));
  const png = decodePng((Uint8Array as unknown as { fromBase64(s: string): Uint8Array }).fromBase64(cap.png));
  const headY = 128 + (0.5 / (7 * Math.tan((25 * Math.PI) / 180))) * 128;
  let above = 0;
  let below = 0;
  let offCentre = 0;
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) {
      const o = (y * png.width + x) * 4;
      if (png.data[o] < 235 || png.data[o + 1] < 235 || png.data[o + 2] < 235) continue;
      if (y < headY) above++;
      else below++;
      if (Math.abs(x - 128) > 60) offCentre++;
    }
  }
  assert(above > 300 && below === 0 && offCentre === 0, `bubble pixels above the head: ${above}, below it: ${below}, off to the side: ${offCentre}`);
  s.dispose();
});

test("player.limited's social calls are denied with zero effect", async () => {
  const { s, walker, position, steps } = await world();
  const tailBefore = s.tracer.tail().length;
  const where = position(walker);
  for (const [name, input] of [["social.approach", { target: "agt_npc" }], ["social.say", { text: "hello" }]] as const) {
    const r = await s.registry.invoke(name, input, limited("agt_walker"));
    assert(!r.ok && r.error.code === "forbidden" && r.error.message.includes("social.act"), JSON.stringify(r));
  }
  steps(120);
  assertEquals(position(walker), where, "it did not move");
  assertEquals(s.ui.handles(), [], "no bubble");
  assertEquals(s.locomotion.walking("agt_walker"), false);
  const after = s.tracer.tail().slice(tailBefore).map((e) => e.type);
  assertEquals(after.filter((t) => t.startsWith("social.") || t.startsWith("ui.")), [], `only denials were recorded: ${after}`);
  s.dispose();
});

test("the bubble queue orders lines per speaker: one at a time, in order, speakers independent", async () => {
  const { s, steps } = await world();
  const say = async (agent: string, text: string) => value<{ handle: string }>(await s.registry.invoke("social.say", { text }, actor(agent))).handle;
  const lines = ["first line", "second line", "third line"];
  const handles = [];
  for (const l of lines) handles.push(await say("agt_walker", l));
  const npcLine = await say("agt_npc", "meanwhile");
  assertEquals(s.ui.queued("speaker:agt_walker"), handles);
  assertEquals(s.ui.queued("speaker:agt_npc"), [npcLine]);
  const shown: string[] = [];
  const showing = () => handles.filter((h) => s.ui.has(h) && s.ui.inspect(h)!.phase !== "queued");
  for (let i = 0; i < 60 * 40 && handles.some((h) => s.ui.has(h)); i++) {
    const now = showing();
    assert(now.length <= 1, `one walker line at a time: ${now}`);
    for (const h of now) {
      const text = s.ui.inspect(h)!.content.text!;
      if (shown.at(-1) !== text) shown.push(text);
    }
    if (i === 1) assert(s.ui.inspect(npcLine)!.phase !== "queued", "the other speaker's line shows alongside");
    steps(1);
  }
  assertEquals(shown, lines);
  assertEquals(s.ui.handles(), [], "each went after its reading time");
  s.dispose();
});
