// A user's module as the README sets one up: it imports only Limina's public
// specifiers and is type-checked in CI against `limina types` (scripts/test.sh).
// It also runs: `limina --deterministic tests/types/user_module.ts`.
import {
  createAgentSystems,
  type EngineEvent,
  FIXED_DT,
  type MCPResponse,
  onFixedStep,
  PhysicsWorld,
  pursueNearest,
  ScriptedProvider,
  type Vec3,
  waitSteps,
  WorldSession,
} from "limina";
import { assert, assertEquals, test } from "limina/testing";
import * as THREE from "three";
import { z } from "zod";

const session = new WorldSession();
const ball = session.entities.create({
  shape: "sphere",
  size: 1,
  color: 0xff0000,
  position: [0, 5, 0],
  dynamic: true,
  static: false,
  friction: 0.5,
  restitution: 0.2,
});
const floor = session.entities.create({ shape: "box", size: 20, color: 0x888888, position: [0, -10, 0], dynamic: false, static: true, friction: 0.8, restitution: 0 });

let steps = 0;
onFixedStep((dt: number) => {
  steps++;
  assertEquals(dt, FIXED_DT);
});

const events: EngineEvent[] = [];
session.tracer.subscribe((e) => events.push(e));

const agents = createAgentSystems(session, { scripted: new ScriptedProvider(pursueNearest(1)) });
agents.agents.add({ type: "player", entityId: ball.id, profile: "player.limited", sessionId: "ses_user", llm: { provider: "scripted", model: "", systemPrompt: "" } });

const Settings = z.object({ gravity: z.number().default(-9.81) });
const settings = Settings.parse({});
const own = new PhysicsWorld();
own.setGravity([0, settings.gravity, 0]);
own.dispose();

test("a user module steps the loop and builds a world", async () => {
  const mcp = session.mcp();
  mcp.initialize({ agentId: "user", sessionId: "ses_user_mcp", profile: "builder.readWrite" });
  const r: MCPResponse = await mcp.callTool({ tool: "scene.queryEntities", input: {} });
  assert(r.success, "query works");
  await waitSteps(30);
  const y: Vec3 = session.world.position(ball.eid);
  assert(y[1] < 5, `the ball fell (y = ${y[1]})`);
  assert(steps >= 30);
  assert(session.world.entities.get(floor.id) !== undefined);
  const color = new THREE.Color(0xff0000);
  assertEquals(color.r, 1);
  assert(events.length > 0);
});
