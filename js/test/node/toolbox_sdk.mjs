// The builder's toolbox over MCP (stdio), driven by the official TypeScript
// SDK against a fresh `limina --mcp-stdio` started in an empty directory
// whose only file is the user's asset manifest and one glTF model: a
// non-cubic box, a cylinder and a trimesh floor made from that glTF; a
// revolute joint whose motor turns a door; a sensor reporting a body that
// enters it; a prefab placed three times; inspector.snapshot giving every
// entity's shape, size and colour; a body pushed off the world, handled by
// the kill plane. The world steps in real time: every check waits for its
// event (with a generous deadline), never for a count of frames.
// Usage: node js/test/node/toolbox_sdk.mjs <path-to-limina>
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { allTools } from "./sdk_tools.mjs";

const limina = process.argv[2];
const fail = (msg) => {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
};

/** A glTF binary (.glb) of one mesh: `positions` (x, y, z triples) and `indices` (triangles), one green material. */
function glb(positions, indices) {
  const pos = Buffer.from(new Float32Array(positions).buffer);
  const idx = Buffer.from(new Uint32Array(indices).buffer);
  const min = [0, 1, 2].map((k) => Math.min(...positions.filter((_, i) => i % 3 === k)));
  const max = [0, 1, 2].map((k) => Math.max(...positions.filter((_, i) => i % 3 === k)));
  const json = {
    asset: { version: "2.0", generator: "limina toolbox test" },
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0, name: "floor" }],
    meshes: [{ primitives: [{ attributes: { POSITION: 0 }, indices: 1, material: 0 }] }],
    materials: [{ pbrMetallicRoughness: { baseColorFactor: [0.35, 0.55, 0.35, 1], metallicFactor: 0, roughnessFactor: 0.9 } }],
    buffers: [{ byteLength: pos.length + idx.length }],
    bufferViews: [
      { buffer: 0, byteOffset: 0, byteLength: pos.length, target: 34962 },
      { buffer: 0, byteOffset: pos.length, byteLength: idx.length, target: 34963 },
    ],
    accessors: [
      { bufferView: 0, componentType: 5126, count: positions.length / 3, type: "VEC3", min, max },
      { bufferView: 1, componentType: 5125, count: indices.length, type: "SCALAR" },
    ],
  };
  let text = Buffer.from(JSON.stringify(json));
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const bin = Buffer.concat([pos, idx]);
  const header = Buffer.alloc(12);
  header.writeUInt32LE(0x46546c67, 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 8 + text.length + 8 + bin.length, 8);
  const chunk = (type, data) => {
    const h = Buffer.alloc(8);
    h.writeUInt32LE(data.length, 0);
    h.writeUInt32LE(type, 4);
    return Buffer.concat([h, data]);
  };
  return Buffer.concat([header, chunk(0x4e4f534a, text), chunk(0x004e4942, bin)]);
}

/** A flat 20 × 20 m floor at y = 0 of 10 × 10 quads, facing up. */
function floorModel() {
  const n = 10;
  const positions = [];
  const indices = [];
  for (let i = 0; i <= n; i++) for (let j = 0; j <= n; j++) positions.push(-10 + (20 * i) / n, 0, -10 + (20 * j) / n);
  const at = (i, j) => i * (n + 1) + j;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) indices.push(at(i, j), at(i, j + 1), at(i + 1, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1));
  }
  return glb(positions, indices);
}

// An empty directory with the user's assets: assets/manifest.json and the model.
const dir = mkdtempSync(join(tmpdir(), "limina-toolbox-"));
mkdirSync(join(dir, "assets/models"), { recursive: true });
writeFileSync(join(dir, "assets/models/floor.glb"), floorModel());
writeFileSync(
  join(dir, "assets/manifest.json"),
  JSON.stringify({ assets: { floor_tiles: { kind: "gltf", path: "models/floor.glb", description: "A flat 20 × 20 m floor" } } }, null, 2),
);

const env = { ...process.env };
delete env.LIMINA_ASSETS_DIR;
const transport = new StdioClientTransport({ command: limina, args: ["--mcp-stdio"], cwd: dir, env, stderr: "pipe" });
transport.stderr?.on("data", () => {});
const client = new Client({ name: "toolbox-sdk-test", version: "1.0.0" });
await client.connect(transport);

async function call(name, args = {}) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) fail(`${name} ${JSON.stringify(args)}: ${r.content[0].text}`);
  return r.structuredContent;
}
async function refusal(name, args) {
  const r = await client.callTool({ name, arguments: args });
  return r.isError ? r.content[0].text : null;
}
/** Polls `probe` until it returns something truthy (up to 30 s of real time). */
async function until(what, probe) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const y = async (entity) => (await call("scene.describe", { entity })).transform.position[1];

const report = {};
const listed = (await allTools(client)).tools.map((t) => t.name);
for (const tool of ["scene.describe", "scene.definePrefab", "scene.instantiate", "physics.createJoint", "physics.setMotor", "physics.sensorContents", "physics.setKillPlane"]) {
  if (!listed.includes(tool)) fail(`${tool} is not listed`);
}

// A trimesh floor made from the user's glTF.
const floor = (await call("scene.createEntity", { shape: "mesh", asset: "floor_tiles", static: true, collider: "trimesh" })).entity;
const floorLook = (await call("scene.describe", { entity: floor })).look;
if (floorLook.shape !== "mesh" || floorLook.asset !== "floor_tiles") fail(`floor look ${JSON.stringify(floorLook)}`);

// A non-cubic box and a cylinder fall onto it and rest on it.
const box = (await call("scene.createEntity", { shape: "box", size: [2, 0.5, 1], color: 0xcc3333, position: [-4, 3, -4], dynamic: true })).entity;
const cylinder = (await call("scene.createEntity", { shape: "cylinder", radius: 0.4, height: 1.5, color: 0x3366cc, position: [4, 3, -4], dynamic: true })).entity;
const landed = async (entity, rest) => Math.abs((await y(entity)) - rest) < 0.03 && (await call("scene.describe", { entity })).body.sleeping;
await until("the box to rest on the trimesh floor", () => landed(box, 0.25));
await until("the cylinder to stand on the trimesh floor", () => landed(cylinder, 0.75));
report.box = (await call("scene.describe", { entity: box })).look;
report.cylinder = (await call("scene.describe", { entity: cylinder })).look;

// A door on a post, turned by its hinge's motor.
const post = (await call("scene.createEntity", { shape: "cylinder", radius: 0.06, height: 2.2, position: [-6, 1.1, 4], static: true, color: 0x553311 })).entity;
const door = (await call("scene.createEntity", { shape: "box", size: [1, 2, 0.08], position: [-5.44, 1.15, 4], dynamic: true, color: 0x996633, tags: ["door"] })).entity;
const { joint } = await call("physics.createJoint", { type: "revolute", entityA: post, entityB: door, anchor: [-6, 1.15, 4], axis: [0, 1, 0], limits: [0, 1.6] });
await call("physics.setMotor", { joint, targetVelocity: 1.2, maxForce: 60 });
report.doorAngle = await until("the motor to turn the door past 1 rad", async () => {
  const j = await call("physics.getJoint", { joint });
  return j.position > 1 && j.position;
});
const doorAt = (await call("scene.describe", { entity: door })).transform.position;
if (Math.abs(Math.hypot(doorAt[0] + 6, doorAt[2] - 4) - 0.56) > 0.02) fail(`the door left its hinge: ${doorAt}`);

// A hidden sensor reports a ball entering it (in the collision events and the world log).
const zone = (await call("scene.createEntity", { shape: "box", size: [2, 2, 2], position: [0, 1.2, 5], sensor: true, visible: false, tags: ["trigger"] })).entity;
const ball = (await call("scene.createEntity", { shape: "sphere", radius: 0.2, position: [0, 5, 5], dynamic: true, color: 0xffcc00 })).entity;
const seen = [];
report.sensor = await until("the sensor to report the ball", async () => {
  seen.push(...(await call("physics.collisionEvents")).events);
  return seen.find((e) => e.sensor && e.started && e.entityA === zone && e.entityB === ball);
});
const logged = (await call("trace.tail", { type: "physics.sensor.entered" })).events.map((e) => e.payload);
if (!logged.some((p) => p.sensor === zone && p.entity === ball)) fail(`the world log lacks the sensor event: ${JSON.stringify(logged)}`);

// A prefab defined once, placed three times.
await call("scene.definePrefab", {
  name: "lamp",
  entities: [
    { shape: "cylinder", radius: 0.05, height: 2, position: [0, 1, 0], static: true, color: 0x222222 },
    { shape: "sphere", radius: 0.2, position: [0, 2.15, 0], static: true, color: 0xffeeaa, tags: ["light"] },
  ],
});
const lamps = [];
for (const x of [-8, 0, 8]) lamps.push(await call("scene.instantiate", { prefab: "lamp", position: [x, 0, -8] }));
const placed = (await call("scene.queryEntities", { tag: "prefab:lamp" })).entities;
if (placed.length !== 6 || new Set(lamps.map((l) => l.instance)).size !== 3) fail(`prefab instances ${JSON.stringify(lamps)}`);
report.prefab = lamps.map((l) => l.instance);

// inspector.snapshot: every entity's shape, size and colour.
const snap = await call("inspector.snapshot", { limit: 500 });
const looks = Object.fromEntries(snap.entities.map((e) => [e.entity, e.look]));
for (const e of snap.entities) {
  const look = e.look;
  if (!look || typeof look.shape !== "string") fail(`${e.entity} has no shape: ${JSON.stringify(e)}`);
  const sized = ["size", "radius", "asset"].some((k) => k in look);
  if (!sized || !("color" in look)) fail(`${e.entity} lacks size or colour: ${JSON.stringify(look)}`);
}
if (JSON.stringify(looks[box].size) !== "[2,0.5,1]" || looks[box].color !== 0xcc3333) fail(`the box: ${JSON.stringify(looks[box])}`);
if (looks[cylinder].shape !== "cylinder" || looks[cylinder].radius !== 0.4 || looks[cylinder].height !== 1.5) fail(`the cylinder: ${JSON.stringify(looks[cylinder])}`);
if (looks[zone].visible !== false) fail("the sensor zone is hidden");
report.entities = snap.entities.length;

// A ball pushed off the edge of the floor falls out of the world: the kill plane removes it.
await call("physics.setKillPlane", { y: -30, action: "remove" });
const stray = (await call("scene.createEntity", { shape: "sphere", radius: 0.3, position: [8, 0.3, 8], dynamic: true })).entity;
await call("physics.applyImpulse", { entity: stray, impulse: [0, 0, 1.5] });
report.killPlane = await until("the kill plane to remove the stray ball", async () => {
  const events = (await call("trace.tail", { type: "physics.killPlane" })).events.map((e) => e.payload);
  return events.find((p) => p.entity === stray && p.action === "removed");
});
const gone = await refusal("scene.describe", { entity: stray });
if (!gone?.startsWith("not_found")) fail(`the stray ball is gone: ${gone}`);

await client.close();
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ ok: true, sdk: "@modelcontextprotocol/sdk", ...report }));
