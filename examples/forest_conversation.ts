// Demo: A traveller walks up to two villagers and talks with each, every line from a local Ollama model.
// A conversation in a forest: a traveller walks up to two villagers in turn
// (social.approach, pursued by the locomotion system each fixed step) and
// talks with each; every line comes from a local Ollama model through
// OllamaChat (/api/chat over the runtime's HTTP client, off the frame
// loop), is spoken with social.say as its speaker — a speech bubble above
// them through their own queue, and speech at their position over an
// ambient bed — and shows up in an agent-ops HUD fed by the world log.
// Nothing is canned: with no Ollama reachable the HUD says "LLM offline"
// and nobody says anything until it answers.
// Run windowed:  limina demo forest_conversation --window
// Or offscreen:  limina demo forest_conversation --frames 1800 --screenshot forest.png
// OLLAMA_HOST (default http://127.0.0.1:11434) and LIMINA_OLLAMA_MODEL
// (default qwen2.5:7b) say which server and model to use.
import { createAgentSystems, createEngine, type EngineEvent, env, type InvokeBase, OllamaChat, onFixedStep, resolveProfile, type Vec3, waitSteps } from "limina";
import * as THREE from "three";

/** Lines each side says per visit before the traveller moves on. */
const EXCHANGES = 2;
const RETRY_SECONDS = 5;
const host = env("OLLAMA_HOST") ?? "http://127.0.0.1:11434";
const baseUrl = /^https?:\/\//.test(host) ? host : `http://${host}`;
const model = env("LIMINA_OLLAMA_MODEL") ?? "qwen2.5:7b";
const chat = new OllamaChat({ baseUrl, model, timeoutMs: 120_000 });

const engine = await createEngine();
const { session } = engine;
const operator: InvokeBase = { agentId: "forest_conversation", sessionId: "ses_forest", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };

async function call<T = Record<string, unknown>>(tool: string, input: unknown, base: InvokeBase = operator): Promise<T> {
  const r = await session.registry.invoke(tool, input, base);
  if (!r.ok) throw new Error(`${tool}: ${r.error.code}: ${r.error.message}`);
  return r.value as T;
}

// The forest: a floor, trees on a fixed pattern, soft light.
session.scene.background = new THREE.Color(0x8fb3c9);
session.scene.fog = new THREE.Fog(0x8fb3c9, 20, 50);
await call("three.setLighting", { ambientIntensity: 1.1, directionalIntensity: 2.2, direction: [4, 10, 3] });
await call("scene.createEntity", { shape: "box", size: 50, position: [0, -25, 0], color: 0x3f6b35, static: true });
const trunk = new THREE.CylinderGeometry(0.15, 0.22, 1.6, 8);
const crown = new THREE.ConeGeometry(1.1, 3, 10);
const bark = new THREE.MeshStandardMaterial({ color: 0x5a3d22 });
const needles = new THREE.MeshStandardMaterial({ color: 0x2c5a2e });
for (let i = 0; i < 46; i++) {
  const a = i * 2.39996;
  const r = 10 + (i % 7) * 2.2;
  const tree = new THREE.Group();
  tree.add(new THREE.Mesh(trunk, bark).translateY(0.8), new THREE.Mesh(crown, needles).translateY(2.9));
  tree.position.set(Math.cos(a) * r, 0, Math.sin(a) * r - 2);
  tree.scale.setScalar(0.8 + (i % 5) * 0.12);
  session.scene.add(tree);
}

/** A simple humanoid (body and head) as an entity standing at `at`. */
function humanoid(color: number, at: Vec3): string {
  const body = new THREE.Group();
  const cloth = new THREE.MeshStandardMaterial({ color });
  body.add(new THREE.Mesh(new THREE.CapsuleGeometry(0.28, 0.8, 4, 12), cloth).translateY(0.7));
  body.add(new THREE.Mesh(new THREE.SphereGeometry(0.2, 16, 12), new THREE.MeshStandardMaterial({ color: 0xe0b48a })).translateY(1.5));
  return session.entities.adopt(body, at, ["humanoid"]).id;
}

const people = {
  agt_traveller: { name: "Wren", entity: humanoid(0x3a6fd8, [-5, 0, 3]), persona: "Wren, a curious traveller crossing the forest on the way to the coast" },
  agt_mira: { name: "Mira", entity: humanoid(0xc0503a, [-1.5, 0, -1.5]), persona: "Mira, a herbalist gathering mushrooms who knows every path in this forest" },
  agt_osric: { name: "Osric", entity: humanoid(0xd8b43a, [4, 0, 1]), persona: "Osric, an old woodcutter resting on a stump, wary of strangers but kind" },
};
type Who = keyof typeof people;
// The agents live in the world with bodies and the social.actor profile; this module paces them.
const systems = createAgentSystems(session, {}, { manual: true });
for (const [id, p] of Object.entries(people)) systems.agents.add({ id, type: "player", entityId: p.entity, profile: "social.actor", sessionId: `ses_${id}`, llm: { provider: "ollama", model, systemPrompt: p.persona } });
const as = (id: Who): InvokeBase => ({ agentId: id, sessionId: `ses_${id}`, permissions: resolveProfile("social.actor"), profile: "social.actor" });

await call("audio.ambient", { volume: 0.35 });

// The HUD: LLM status (bottom left) and the agent-ops feed from the world log (top left).
const status = (await call<{ handle: string }>("ui.hudPanel", { anchor: { type: "screen", corner: "bottomLeft", offset: [12, 12] }, title: "LLM", text: `connecting to ${model} at ${baseUrl}…`, maxWidth: 420, style: { fill: "#333333e0", titleFill: "#444444" } })).handle;
const ops = (await call<{ handle: string }>("ui.hudPanel", { anchor: { type: "screen", corner: "topLeft", offset: [12, 12] }, title: "agent ops", lines: [], maxWidth: 420, lifecycle: { feed: { maxLines: 9 } } })).handle;
const setStatus = (online: boolean | null, text: string) => {
  const fill = online === null ? "#333333e0" : online ? "#0f5a2ae0" : "#8a1414e8";
  session.ui.update(status, { text, style: { fill, titleFill: online === false ? "#b52020" : online ? "#1d7a40" : "#444444" } });
};

const feed: string[] = [];
let llmCalls = 0;
let llmFailures = 0;
session.tracer.subscribe((e: EngineEvent) => {
  const p = e.payload as Record<string, unknown>;
  if (e.type === "skill.executed" && e.actorId.startsWith("agt_")) feed.push(`#${Limina.loop.steps()} ${e.actorId} ${p.skill} ok`);
  else if (e.type === "skill.failed" && e.actorId.startsWith("agt_")) feed.push(`#${Limina.loop.steps()} ${e.actorId} ${p.skill} failed: ${p.code}`);
  else if (e.type === "social.approached") feed.push(`#${Limina.loop.steps()} ${e.actorId} reached ${p.target} (${Number(p.distance).toFixed(2)} m)`);
  else if (e.type === "security.permission.denied" || e.type === "policy.denied") feed.push(`#${Limina.loop.steps()} DENIED ${e.actorId} ${p.skill ?? ""}`);
});
onFixedStep((_dt, step) => {
  if (step % 20 === 0 && feed.length > 0) session.ui.update(ops, { lines: feed.splice(0), title: `agent ops · LLM calls ${llmCalls}, failed ${llmFailures}` });
});

// The camera drifts behind the traveller, looking at whoever it walks to.
const focus = new THREE.Vector3(-2, 1.2, 0);
const eye = new THREE.Vector3(-4, 3.2, 7);
let facing: Who = "agt_mira";
const at = (id: Who) => session.world.position(session.entities.require(people[id].entity).eid);
onFixedStep(() => {
  const t = at("agt_traveller");
  const o = at(facing);
  focus.lerp(new THREE.Vector3((t[0] + o[0]) / 2, 1.3, (t[2] + o[2]) / 2), 0.03);
  eye.lerp(new THREE.Vector3(focus.x - 1, 3.2, focus.z + 6), 0.02);
  engine.camera.position.copy(eye);
  engine.camera.lookAt(focus);
});

// Waits in world time: when a --frames run has spent its frames, nothing is left waiting on a clock.
const sleep = (seconds: number) => waitSteps(Math.round(seconds * 60));
const arrived = (who: Who, target: Who) =>
  new Promise<void>((resolve) => {
    const off = session.tracer.subscribe((e) => {
      if (e.type === "social.approached" && e.actorId === who && (e.payload as { target: string }).target === target) {
        off();
        resolve();
      }
    });
  });

/** The next line for `speaker`, from the model; retried while the LLM is unreachable, never invented. */
async function nextLine(speaker: Who, listener: Who, history: { who: Who; text: string }[]): Promise<string> {
  const me = people[speaker];
  const messages = [
    { role: "system" as const, content: `You are ${me.persona}. You are talking with ${people[listener].name} in a quiet forest. Reply with one short, natural spoken sentence (under 25 words), no quotes, no stage directions.` },
    ...history.map((h) => ({ role: h.who === speaker ? "assistant" as const : "user" as const, content: h.text })),
  ];
  if (history.length === 0) messages.push({ role: "user", content: `(You meet ${people[listener].name}. Greet them.)` });
  for (;;) {
    llmCalls++;
    const started = performance.now();
    try {
      const text = (await chat.chat(messages)).split("\n")[0].replace(/^["“]|["”]$/g, "").slice(0, 280).trim();
      if (text === "") throw new Error("the model replied with nothing");
      setStatus(true, `${model} online at ${baseUrl} · last reply ${((performance.now() - started) / 1000).toFixed(1)} s`);
      return text;
    } catch (e) {
      llmFailures++;
      const reason = e instanceof Error ? e.message : String(e);
      setStatus(false, `LLM offline: ${reason}. Waiting for ${model} at ${baseUrl}; nobody speaks until it answers.`);
      console.log(`LLM offline: ${reason}`);
      await sleep(RETRY_SECONDS);
    }
  }
}

async function say(who: Who, text: string): Promise<void> {
  const { handle } = await call<{ handle: string }>("social.say", { text }, as(who));
  console.log(`${who} (${people[who].name}): ${text}`);
  // The next line waits until this one has been read.
  while (session.ui.has(handle)) await sleep(0.1);
}

// The conversation runs beside the module, not in its top level: a --frames run ends when its frames are spent.
async function converse(): Promise<never> {
  for (let visit = 0; ; visit++) {
    const npc: Who = visit % 2 === 0 ? "agt_mira" : "agt_osric";
    facing = npc;
    const there = arrived("agt_traveller", npc);
    await call("social.approach", { target: npc, talkDistance: 1.6 }, as("agt_traveller"));
    await there;
    console.log(`approached ${npc}`);
    const history: { who: Who; text: string }[] = [];
    for (let turn = 0; turn < 2 * EXCHANGES; turn++) {
      const speaker: Who = turn % 2 === 0 ? "agt_traveller" : npc;
      const text = await nextLine(speaker, speaker === npc ? "agt_traveller" : npc, history);
      history.push({ who: speaker, text });
      await say(speaker, text);
    }
  }
}
void converse();
