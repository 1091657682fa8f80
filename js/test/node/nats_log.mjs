// The world log streamed to NATS JetStream: a real nats-server (-js), a
// `limina --mcp-http --log-sink nats://…` world driven by the official
// TypeScript SDK (builder calls, impulses), SIGKILLed mid-run; then
// `limina replay nats://…` rebuilds the world from the stream in another
// process and reaches the digest the live world reported.
// Usage: node js/test/node/nats_log.mjs <path-to-limina>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startNats } from "./nats_server.mjs";
import { startServer } from "./ws_server.mjs";

const limina = process.argv[2];
const dir = mkdtempSync(join(tmpdir(), "limina-nats-"));
const checks = [];
const children = [];
process.on("exit", () => children.forEach((c) => c.kill("SIGKILL")));
const check = (cond, msg) => {
  if (!cond) {
    console.error(`FAIL: ${msg}`);
    process.exit(1);
  }
  checks.push(msg);
};
const run = (args) => new Promise((resolve) => execFile(limina, args, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr })));

// A JetStream server on a free port, storing under a scratch directory.
const { nats, port: natsPort } = await startNats(dir);
children.push(nats);
check(natsPort > 0, `nats-server listens on ${natsPort}`);
const url = `nats://127.0.0.1:${natsPort}/limina.world.test${process.pid}`;

const { server, http } = await startServer(limina, ["--mcp-http", "--port", "0", "--log-sink", url]);
children.push(server);
const client = new Client({ name: "nats-log-test", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${http}/mcp`)));
const call = async (name, args = {}) => {
  const r = await client.callTool({ name, arguments: args });
  check(!r.isError, `${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent;
};
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

await call("scene.createEntity", { shape: "box", size: 30, position: [0, -15, 0], static: true });
const balls = [];
for (let i = 0; i < 5; i++) {
  balls.push((await call("scene.createEntity", { shape: "sphere", size: 0.8, position: [i - 2, 2 + i, 0], dynamic: true, restitution: 0.4 })).entity);
  await pause(100);
}
await call("physics.applyImpulse", { entity: balls[1], impulse: [1, 0.5, 0] });
await call("ecs.addComponent", { entity: balls[3], component: "target" });
let live = await call("inspector.snapshot", { limit: 1 });
for (let i = 0; i < 600 && live.world.tick <= 60; i++) {
  await pause(100);
  live = await call("inspector.snapshot", { limit: 1 });
}
const { tick, digest } = live.world;
check(tick > 60 && /^sha256:/.test(digest), `the live world reports tick ${tick} and its digest`);
await pause(700);
server.kill("SIGKILL");
await new Promise((r) => server.once("exit", r));

const full = await run(["replay", url]);
check(full.code === 0, `replaying the stream of a killed world: ${full.stdout}${full.stderr}`);
const matched = Number(/(\d+) checkpoints matched/.exec(full.stdout)?.[1]);
check(matched >= 1, `every checkpoint in the stream matched (${matched})`);
const calls = Number(/(\d+) calls replayed/.exec(full.stdout)?.[1]);
check(calls === 8, `the 8 world-changing calls were replayed (${calls})`);
const atTick = await run(["replay", url, "--until", String(tick)]);
check(atTick.code === 0, `replaying up to tick ${tick}: ${atTick.stdout}${atTick.stderr}`);
check(atTick.stdout.includes(`digest ${digest}`), `the replayed world at tick ${tick} has the live world's digest ${digest}: ${atTick.stdout}`);

const none = await run(["replay", `nats://127.0.0.1:${natsPort}/limina.nothing.here`]);
check(none.code === 1 && /has no stream/.test(none.stderr), `a subject nothing was logged to is refused: ${none.stderr}`);
const down = await run(["replay", "nats://127.0.0.1:1/limina.x"]);
check(down.code === 1 && /NATS connecting/.test(down.stderr), `an unreachable server is named: ${down.stderr}`);

nats.kill("SIGTERM");
await new Promise((r) => nats.once("exit", r));
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ ok: true, checks: checks.length }));
