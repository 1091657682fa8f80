// A durable world over the wire, with the official TypeScript MCP SDK's
// Streamable HTTP client: `limina --mcp-http --world-file F` builds a world,
// SIGTERM saves it, a restarted server restores it (the module learns it is
// restoring and does not build again) with the same digest, entities,
// materials and next ids; a SIGKILLed server leaves the last periodic save.
// Usage: node js/test/node/world_file.mjs <path-to-limina>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { execFile, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const limina = process.argv[2];
const dir = mkdtempSync(join(tmpdir(), "limina-world-file-"));
const file = join(dir, "world.limina");
const checks = [];
let server = null;
const check = (cond, msg) => {
  if (!cond) {
    console.error(`FAIL: ${msg}`);
    server?.kill("SIGKILL");
    process.exit(1);
  }
  checks.push(msg);
};

async function start(extra = []) {
  server = spawn(limina, ["--mcp-http", "--port", "0", "--world-file", file, ...extra, "js/test/support/durable_world.ts"], { stdio: ["ignore", "inherit", "pipe"] });
  const child = server;
  process.on("exit", () => child.kill("SIGKILL"));
  let stderr = "";
  const port = await new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => {
      stderr += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
  const client = new Client({ name: "world-file-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  const call = async (name, args = {}) => {
    const r = await client.callTool({ name, arguments: args });
    check(!r.isError, `${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent;
  };
  const exited = new Promise((resolve) => server.on("close", (code, signal) => resolve({ code, signal, stderr })));
  return { client, call, exited, stderr: () => stderr };
}

const run = (args) => new Promise((resolve) => execFile(limina, args, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr })));

const world = async (call) => {
  const snap = await call("inspector.snapshot", { limit: 500 });
  return { digest: snap.world.digest, tick: snap.world.tick, entities: snap.entities.map((e) => [e.entity, e.tags, e.transform]) };
};

// First run: a new world. Only static bodies, so the digest holds still while the server steps.
const a = await start();
const made = [];
for (const [i, shape] of ["box", "sphere", "box"].entries()) {
  made.push((await a.call("scene.createEntity", { shape, size: 1, position: [i * 2, 0.5, 1], static: true })).entity);
}
await a.call("ecs.addComponent", { entity: made[1], component: "target" });
await a.call("three.setMaterial", { entity: made[2], color: 0x22cc44, roughness: 0.25 });
await a.call("scene.destroyEntity", { entity: made[0] });
const before = await world(a.call);
check(before.entities.length === 3, `the landmark and two entities: ${JSON.stringify(before.entities)}`);
server.kill("SIGTERM");
const stopped = await a.exited;
check(stopped.code === 0, `SIGTERM ends the server with 0 after saving (${stopped.code} ${stopped.signal}): ${stopped.stderr}`);
check(/SIGTERM: stopped serving in \d+ ms \([\d.]+ ms of CPU\) after flushing \(.*, saved the world to /.test(stopped.stderr), "the server says it saved the world");
check(existsSync(file) && readdirSync(dir).length === 1, `the world file alone, no temporary left: ${readdirSync(dir)}`);
const saved = `${file}.a`;
copyFileSync(file, saved);

// Second run: restored, not rebuilt.
const b = await start();
check(/restored the world from/.test(b.stderr()), `the server restored the file: ${b.stderr()}`);
check(/durable world: restored=true entities=3/.test(b.stderr()), `the module learned it is restoring and skipped its building: ${b.stderr()}`);
const after = await world(b.call);
check(after.digest === before.digest, `the same digest (${after.digest} vs ${before.digest})`);
check(after.tick >= before.tick, `the tick goes on (${after.tick} ≥ ${before.tick})`);
check(JSON.stringify(after.entities) === JSON.stringify(before.entities), "the same entities, tags and transforms");
const next = (await b.call("scene.createEntity", { shape: "sphere", position: [0, 3, 0], dynamic: true })).entity;
check(next === "ent_5", `the next id continues the saved counter (${next})`);
const near = await b.call("scene.queryEntities", { near: [2, 0.5, 1], radius: 0.5 });
check(near.entities.some((e) => e.entity === made[1]), "the spatial index sees the restored entities");
const stale = await b.client.callTool({ name: "scene.destroyEntity", arguments: { entity: made[0] } });
check(!stale.isError && stale.structuredContent?.removed === false, `a destroyed id stays dead across the restart: ${JSON.stringify(stale.structuredContent)}`);

// The restarted server's log continues the saved world: it replays from that world file, and only from it.
const exported = await b.call("trace.export", { name: `world-file-${process.pid}` });
const trace = `traces/${exported.name}`;
const fromSaved = await run(["replay", trace, "--snapshot", saved]);
check(fromSaved.code === 0 && /(\d+) calls replayed/.exec(fromSaved.stdout)?.[1] === "2", `the restarted world's log replays from the saved file: ${fromSaved.stdout}${fromSaved.stderr}`);
const fromNothing = await run(["replay", trace]);
check(fromNothing.code === 1 && /continues a world restored at tick/.test(fromNothing.stdout), `without the snapshot it says which world the log continues: ${fromNothing.stdout}`);
rmSync(trace);

// A crash: periodic saves (every second) are what survive a SIGKILL.
server.kill("SIGTERM");
await b.exited;
const c = await start(["--save-every", "1"]);
const late = (await c.call("scene.createEntity", { shape: "box", position: [5, 0.5, 5], static: true })).entity;
// Two saves finished after the entity was made: the second began after it existed.
const saves = async (n) => {
  let seen = statSync(file).mtimeMs;
  for (let changes = 0; changes < n; ) {
    await new Promise((r) => setTimeout(r, 50));
    const now = statSync(file).mtimeMs;
    if (now !== seen) (seen = now), changes++;
  }
};
await saves(2);
server.kill("SIGKILL");
await c.exited;
const d = await start();
const survived = await world(d.call);
check(survived.entities.some(([id]) => id === late), `the entity made before the last periodic save survived the SIGKILL (${late})`);
server.kill("SIGTERM");
await d.exited;

// SIGKILL at any moment, during saves too (a save every second of a world that grows): every
// restart restores a whole save — never a torn one — at least as new as the last one restored,
// and no partial file is left beside the world file.
let restored = survived.entities.length;
for (const delay of [0, 150, 400, 700, 1100, 1500]) {
  const e = await start(["--save-every", "1"]);
  const now = (await world(e.call)).entities.length;
  check(now >= restored, `a restart after a SIGKILL restores a whole save (${now} entities, ${restored} before)`);
  restored = now;
  for (let i = 0; i < 20; i++) await e.call("scene.createEntity", { shape: "box", position: [i, 0.5, delay / 100], static: true });
  await new Promise((r) => setTimeout(r, delay));
  server.kill("SIGKILL");
  await e.exited;
}
const last = await start();
check((await world(last.call)).entities.length >= restored, "the world after the last SIGKILL restores too");
server.kill("SIGTERM");
await last.exited;
check(readdirSync(dir).every((f) => !f.endsWith(".part")), `no partial save is left behind: ${readdirSync(dir)}`);
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ ok: true, checks: checks.length }));
