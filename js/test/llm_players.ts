// The llm_players demo as users run it (`limina demo llm_players`): with the
// gateway unset it refuses, naming the variables; against a local stand-in
// OpenAI-compatible gateway that records every request, players decide by
// progressive discovery in the Relic Hunt world and every decision prints
// its tool count and prompt size, the bard and the Keeper talk.
import { assert, assertEquals, test } from "limina/testing";
import { startLlmServer } from "./support/llm_server.ts";

const server = await startLlmServer();

async function demo(env: Record<string, string>, unset: string[] = []) {
  return await Limina.run({ cmd: "env", args: [...unset.flatMap((v) => ["-u", v]), Limina.execPath, "demo", "llm_players", "--deterministic"], env: { LIMINA_AUDIO: "null", ...env } });
}

test("unconfigured: a clear error naming LIMINA_GATEWAY_URL and LIMINA_GATEWAY_MODEL, nothing run", async () => {
  const r = await demo({}, ["LIMINA_GATEWAY_URL", "LIMINA_GATEWAY_MODEL"]);
  assertEquals(r.code, 2, r.stderr);
  assert(r.stderr.includes("llm_players: GatewayProvider is not configured: set LIMINA_GATEWAY_URL") && r.stderr.includes("LIMINA_GATEWAY_MODEL"), r.stderr);
  assertEquals(r.stdout, "");
  const half = await demo({ LIMINA_GATEWAY_URL: `http://127.0.0.1:${server.port}/v1` }, ["LIMINA_GATEWAY_MODEL"]);
  assertEquals(half.code, 2);
  assert(half.stderr.includes("LIMINA_GATEWAY_MODEL"), half.stderr);
});

test("against a stand-in gateway: every decision prints its tool count and prompt size; players discover skills; the bard and the Keeper talk", async () => {
  const model = "play:game.players";
  const r = await demo({ LIMINA_GATEWAY_URL: `http://127.0.0.1:${server.port}/v1`, LIMINA_GATEWAY_MODEL: model, LIMINA_LLM_PLAYERS_DECISIONS: "12" });
  assertEquals(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const decided = [...r.stdout.matchAll(/(agt_\w+) decided: (\d+) tools \+ (\d+) in the system message, prompt (\d+) chars ≈ (\d+) tokens/g)];
  assert(decided.length >= 12, `${decided.length} decision lines:\n${r.stdout}`);
  for (const [line, , tools, , chars, tokens] of decided) {
    assert(Number(tools) >= 2 && Number(tools) <= 18, line);
    assertEquals(Math.ceil(Number(chars) / 4), Number(tokens), line);
  }
  assert(/agt_hunter read game\.players/.test(r.stdout) && /agt_hunter ran game\.players/.test(r.stdout), `the hunter read a skill beyond its core set, then used it:\n${r.stdout}`);
  assert(/agt_bard says: /.test(r.stdout) && /agt_keeper says: /.test(r.stdout), `the bard and the Keeper talked:\n${r.stdout}`);
  assert(r.stdout.includes("llm_players: stopped (LIMINA_LLM_PLAYERS_DECISIONS=12) after 12 decisions"), r.stdout);
  // What the gateway was sent: ≤ 16 core tools plus the discovery tools, then the read skill too.
  const sent = (await server.requests()).filter((q) => q.body.model === model && q.body.tools?.some((t: { function: { name: string } }) => t.function.name === "read_skill"));
  const names = (i: number) => sent[i].body.tools.map((t: { function: { name: string } }) => t.function.name);
  assert(names(0).length <= 18 && names(0).includes("list_skills") && !names(0).includes("game__players"), names(0).join(" "));
  assert(sent.some((q, i) => i > 0 && names(i).includes("game__players")), "a later request carries the skill read");
});

test("stop the server", () => server.stop());
