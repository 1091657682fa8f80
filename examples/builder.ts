// Demo: An in-process agent builds a scene through MCP tool calls, then exports and verifies the world log.
// The headless builder demo: an in-process agent builds a small scene purely
// through MCP tool calls — discovers tools, lights the scene, creates and
// positions entities, styles them, loads a glTF, lets physics run, hits one
// read-only observer is denied a write, then it exports the world log and
// verifies its chain.
// Run: limina demo builder
import { type MCPResponse, readTrace, traceDir, waitSteps, WorldSession } from "limina";

const session = new WorldSession({ policy: true });
const mcp = session.mcp();
mcp.initialize({ agentId: "builder_demo", sessionId: "sess_builder_demo", profile: "builder.readWrite" });

let calls = 0;
async function call(tool: string, input: Record<string, unknown> = {}): Promise<MCPResponse> {
  calls++;
  return await mcp.callTool({ tool, input });
}
async function must<T>(tool: string, input: Record<string, unknown> = {}): Promise<T> {
  calls++;
  return await mcp.mustCall<T>(tool, input);
}
const log = (line: string) => console.log(`  ${line}`);

console.log("builder demo: an in-process agent builds a scene over MCP");

// Discover: the full list, then a targeted search instead of reading every schema.
const tools = mcp.listTools();
log(`discovered ${tools.length} tools`);
const found = await must<{ results: { name: string }[] }>("skills.search", { query: "create entity physics body", limit: 3 });
log(`search "create entity physics body" → ${found.results.map((r) => r.name).join(", ")}`);
const described = await must<{ input_schema: { properties: Record<string, unknown> } }>("skills.describe", { name: "scene.createEntity" });
log(`scene.createEntity takes: ${Object.keys(described.input_schema.properties).join(", ")}`);

// Light the scene with real shadow maps.
await must("three.setLighting", { ambientIntensity: 0.6, directionalIntensity: 3.5, direction: [6, 10, 4], castShadow: true, shadowMapSize: 2048 });
log("lit: ambient + shadow-casting directional light");

// A floor, a tower of crates-to-be, and two balls.
const floor = (await must<{ entity: string }>("scene.createEntity", { shape: "box", size: 20, position: [0, -10, 0], static: true, color: 0x777777 })).entity;
const block = (await must<{ entity: string }>("scene.createEntity", { shape: "box", size: 1, position: [0, 0.5, 0], dynamic: true, color: 0x3366ff })).entity;
const ballA = (await must<{ entity: string }>("scene.createEntity", { shape: "sphere", size: 0.8, position: [-2, 3, 0], dynamic: true, restitution: 0.6 })).entity;
const ballB = (await must<{ entity: string }>("scene.createEntity", { shape: "sphere", size: 0.8, position: [2, 5, 1], dynamic: true, restitution: 0.3 })).entity;
log(`created floor ${floor}, block ${block}, balls ${ballA} and ${ballB}`);

// Position and style them.
await must("ecs.updateComponent", { entity: block, component: "position", value: [0, 2, -1] });
await must("three.setTransform", { entity: block, rotationEuler: [0, Math.PI / 4, 0] });
await must("three.setMaterial", { entity: ballA, color: 0xff5533, roughness: 0.3, metalness: 0.1, castShadow: true });
await must("three.setMaterial", { entity: ballB, color: 0x33dd77, roughness: 0.8, castShadow: true });
await must("three.setMaterial", { entity: floor, receiveShadow: true });
await must("ecs.addComponent", { entity: ballA, component: "target" });
log("positioned and rotated the block, styled the balls, tagged one as target");

// A glTF model from the sandboxed asset manifest.
const crate = await must<{ entity: string; resource: { meshCount: number; materialCount: number; bytes: number } }>("three.loadGLTF", { assetId: "crate", position: [3, 0, -2] });
log(`loaded glTF "crate" as ${crate.entity}: ${crate.resource.meshCount} meshes, ${crate.resource.materialCount} materials, ${crate.resource.bytes} bytes`);
await must("three.setMaterial", { entity: crate.entity, castShadow: true });

// Push a ball and let the world run for a second on the fixed-step loop.
await must("physics.applyImpulse", { entity: ballA, impulse: [1.5, 0, 0] });
await waitSteps(60);
const hit = await must<{ hit: boolean; entity?: string; distance?: number }>("physics.raycast", { origin: [0, 10, -1], direction: [0, -1, 0] });
log(`after 60 steps a ray down from (0,10,-1) hits ${hit.entity} at ${hit.distance?.toFixed(2)} m`);
const collisions = await must<{ events: { started: boolean }[] }>("physics.collisionEvents");
log(`${collisions.events.filter((e) => e.started).length} collisions started`);
const near = await must<{ entities: { entity: string; distance: number }[] }>("scene.queryEntities", { near: [0, 0, 0], radius: 4 });
log(`within 4 m of the origin: ${near.entities.map((e) => `${e.entity} (${e.distance.toFixed(2)} m)`).join(", ")}`);

// An observer under system.readonly may look but not build.
const observer = session.mcp();
observer.initialize({ agentId: "observer", sessionId: "sess_observer", profile: "system.readonly" });
calls++;
const denied = await observer.callTool({ tool: "scene.createEntity", input: { shape: "box" } });
log(`scene.createEntity under system.readonly → ${denied.error?.code}: ${denied.error?.message}`);
if (denied.error?.code !== "forbidden") throw new Error("scene.createEntity must be forbidden for a read-only observer");

// Export the world log and verify its chain.
const exported = await must<{ name: string; events: number; bytes: number }>("trace.export", { name: "builder-demo" });
const events = readTrace(`${traceDir()}/${exported.name}`);
log(`exported ${exported.events} events (${exported.bytes} bytes) to traces/${exported.name}; chain verified (${events.length} events)`);

console.log(`done: ${calls} tool calls, ${session.world.entities.size} entities, ${session.tracer.size} trace events`);
Limina.loop.stop();
