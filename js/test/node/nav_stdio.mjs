// A fresh binary over MCP stdio, as an outside agent drives it: a floor and
// a wall, nav.build, nav.findPath round the wall, character.spawn and
// nav.moveTo — then waiting (by polling the world log, never a frame count)
// for nav.arrived, which must come within a few seconds of world time.
// Prints a JSON summary as its last line.
import { connectStdio } from "./stdio_rpc.mjs";

const limina = process.argv[2];
const { child: server, call: request, stderr } = connectStdio(limina, ["--mcp-stdio"]);
async function tool(name, args) {
  const r = await request("tools/call", { name, arguments: args });
  if (r.error || !r.result.success) throw new Error(`${name}: ${JSON.stringify(r.error ?? r.result.error)}\n${stderr()}`);
  return r.result.result;
}
const fail = (why) => {
  console.log(JSON.stringify({ ok: false, why }));
  server.kill();
  process.exit(1);
};
const timer = setTimeout(() => fail("timed out"), 60_000);

await request("initialize", { agentId: "walker", sessionId: "sess_walk", profile: "builder.readWrite" });
const { tools } = (await request("tools/list", {})).result;
const names = tools.map((t) => t.name);
for (const n of ["nav.build", "nav.findPath", "nav.isReachable", "nav.moveTo", "nav.stop", "character.spawn", "character.move", "animation.play", "animation.getState", "camera.follow"]) {
  if (!names.includes(n)) fail(`${n} is not listed`);
}
await tool("scene.createEntity", { shape: "box", size: 30, position: [0, -15, 0], static: true });
// The wall: three boxes side by side across x = 0, z from -4.5 to 4.5.
for (const z of [-3, 0, 3]) await tool("scene.createEntity", { shape: "box", size: 3, position: [0, 1.5, z], static: true });
const built = await tool("nav.build", {});
const path = await tool("nav.findPath", { from: [-5, 0, 0], to: [5, 0, 0] });
if (!path.found || path.length <= 10.5) fail(`no detour round the wall: ${JSON.stringify(path)}`);
const { entityId } = await tool("character.spawn", { position: [-5, 0, 0] });
const go = await tool("nav.moveTo", { entityId, target: [5, 0, 0] });
const started = (await tool("inspector.snapshot", { limit: 1 })).world.tick;
let arrived = null;
while (!arrived) {
  await new Promise((r) => setTimeout(r, 100));
  const { events } = await tool("trace.tail", { limit: 50 });
  arrived = events.find((e) => e.type === "nav.arrived") ?? null;
  if (events.some((e) => e.type === "nav.failed")) fail("nav.failed");
}
const arrivedBy = (await tool("inspector.snapshot", { limit: 1 })).world.tick;
const world = (await tool("inspector.snapshot", { limit: 100 })).entities.find((e) => e.entity === entityId);
const state = await tool("animation.getState", { entityId });
await request("shutdown", {});
server.stdin.end();
clearTimeout(timer);
const p = world.transform.position;
console.log(JSON.stringify({
  ok: true,
  polygons: built.polygons,
  pathLength: path.length,
  pathPoints: path.path.length,
  moveDistance: go.distance,
  worldSeconds: (arrivedBy - started) / 60,
  arrival: arrived.payload,
  finalPosition: p,
  distanceToGoal: Math.hypot(p[0] - 5, p[2]),
  state: state.state,
}));
