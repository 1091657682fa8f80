// limina: waits
// The world log on NATS JetStream (`--log-sink nats://…`, `limina replay
// nats://…`) against a real nats-server: see js/test/node/nats_log.mjs.
import { assert, assertEquals, test } from "limina/testing";

test("a world streaming its log to JetStream is SIGKILLed; limina replay nats://… rebuilds it elsewhere to the same digest", async () => {
  const r = await Limina.run({ cmd: "node", args: ["js/test/node/nats_log.mjs", Limina.execPath] });
  assertEquals(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assert(out.ok === true && out.checks >= 8, r.stdout);
});

test("--log-sink takes only nats://HOST:PORT/SUBJECT", async () => {
  const r = await Limina.run({ cmd: Limina.execPath, args: ["--mcp-http", "--port", "0", "--log-sink", "kafka://x/y"] });
  assertEquals(r.code, 1);
  assert(r.stderr.includes("only nats://HOST:PORT/SUBJECT"), r.stderr);
});

test("--log-sink to a port that accepts and never answers fails start-up clearly after its connect timeout, instead of hanging", async () => {
  const r = await Limina.run({ cmd: "node", args: ["js/test/node/silent_nats.mjs", Limina.execPath] });
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assert(out.ok === true, r.stdout + r.stderr);
  assert(out.ms >= 9_000, `it waited for the timeout (${out.ms} ms)`);
});
