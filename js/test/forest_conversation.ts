// The forest_conversation demo, headless, as users run it: against a real
// local HTTP server speaking Ollama's /api/chat (tests/llm_server.py), the
// traveller walks to both villagers and every line said is the server's;
// with no server reachable it says "LLM offline" and nobody speaks.
import { assert, assertEquals, test } from "limina/testing";
import { readPng } from "limina";
import { startLlmServer } from "./support/llm_server.ts";

const dir = (await Limina.run({ cmd: "mktemp", args: ["-d", "/tmp/limina-forest-XXXXXX"] })).stdout.trim();
const server = await startLlmServer("", `${dir}/requests.jsonl`);
const port = server.port;

const W = 480;
const H = 320;

async function runDemo(name: string, frames: number, env: Record<string, string>) {
  const png = `${dir}/${name}.png`;
  // --deterministic: world time, unpaced; the demo waits in world time and the engine holds each step while a reply is on its way.
  const args = ["examples/forest_conversation.ts", "--deterministic", "--frames", String(frames), "--screenshot", png, "--size", `${W}x${H}`];
  const r = await Limina.run({ cmd: Limina.execPath, args, env: { LIMINA_AUDIO: "null", ...env } });
  assertEquals(r.code, 0, `limina ${args.join(" ")}:\n${r.stdout}\n${r.stderr}`);
  return { stdout: r.stdout, frame: readPng(png) };
}

/** Pixels of the bottom-left status panel's region that `is` accepts. */
function statusPixels(frame: { width: number; height: number; data: Uint8Array }, is: (r: number, g: number, b: number) => boolean): number {
  let n = 0;
  for (let y = H - 60; y < H - 12; y++) {
    for (let x = 12; x < 220; x++) {
      const o = (y * frame.width + x) * 4;
      if (is(frame.data[o], frame.data[o + 1], frame.data[o + 2])) n++;
    }
  }
  return n;
}
const isGreenPanel = (r: number, g: number, b: number) => g > r + 30 && g > b + 20 && g < 140;
const isRedPanel = (r: number, g: number, b: number) => r > g + 60 && r > b + 60;
const SAID = /^(agt_\w+) \((\w+)\): (.*)$/gm;

test("the local /api/chat server is up", () => assert(port > 0, "tests/llm_server.py did not start"));

test("with Ollama's /api/chat answering: the traveller walks to both villagers and every line is the model's", async () => {
  const run = await runDemo("online", 2400, { OLLAMA_HOST: `127.0.0.1:${port}`, LIMINA_OLLAMA_MODEL: "chat" });
  assert(run.stdout.includes("approached agt_mira"), run.stdout);
  assert(run.stdout.includes("approached agt_osric"), `walked on to the second villager:\n${run.stdout}`);
  const said = [...run.stdout.matchAll(SAID)].map((m) => ({ who: m[1], text: m[3] }));
  for (const who of ["agt_traveller", "agt_mira", "agt_osric"]) assert(said.some((s) => s.who === who), `${who} spoke:\n${run.stdout}`);
  assertEquals([...new Set(said.map((s) => s.text))], ["Hello there, traveller."], "every line is what the server answered");
  assert(!run.stdout.includes("LLM offline"), run.stdout);
  const requests = await server.requests();
  assert(requests.length >= said.length, `one request per line: ${requests.length} for ${said.length}`);
  for (const r of requests) assertEquals([r.path, r.body.model, r.body.stream], ["/api/chat", "chat", false]);
  assert(requests.some((r) => r.body.messages[0].content.includes("Mira")) && requests.some((r) => r.body.messages[0].content.includes("Osric")), "each speaker has its own persona");
  assert(requests.some((r) => r.body.messages.some((m: { role: string; content: string }) => m.role === "assistant" && m.content === "Hello there, traveller.")), "later turns carry the conversation so far");
  assert(statusPixels(run.frame, isGreenPanel) > 500, "the HUD's LLM status shows online");
});

test("with no Ollama reachable: an honest LLM offline status, and nobody says anything", async () => {
  const run = await runDemo("offline", 420, { OLLAMA_HOST: "http://127.0.0.1:1", LIMINA_OLLAMA_MODEL: "chat" });
  assert(/LLM offline: .*cannot connect to 127.0.0.1:1/.test(run.stdout), run.stdout);
  assert(run.stdout.includes("approached agt_mira"), "the walk does not need the model");
  assertEquals([...run.stdout.matchAll(SAID)].length, 0, `no line was invented:\n${run.stdout}`);
  assert(statusPixels(run.frame, isRedPanel) > 500, "the HUD's LLM status shows offline");
});

test("clean up", async () => {
  await server.stop();
  await Limina.run({ cmd: "rm", args: ["-rf", dir] });
});
