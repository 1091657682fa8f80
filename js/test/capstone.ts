// limina: --deterministic
// The density capstone: 200 agents with ScriptedProviders + 256 dynamic
// bodies + 2000 entities for 300 ticks at 60 steps/s, every action traced.
import { assert, assertEquals, test } from "limina/testing";
import { onFixedStep, waitSteps } from "limina";
import { AGENTS, createCapstone, DYNAMIC_BODIES, ENTITIES } from "../bench/worlds/capstone.ts";

test("200 agents perceive, decide and act over 300 ticks; every action is traced", async () => {
  const { session, systems } = createCapstone();
  assertEquals(session.world.entities.size, ENTITIES);
  assertEquals(session.physics.bodyCount(), DYNAMIC_BODIES + 1);
  const start = Limina.loop.steps();
  const off = onFixedStep((dt, step) => {
    session.step(dt);
    void systems.tick(step);
  });
  await waitSteps(300);
  off();
  await systems.action.settled();
  const stats = Limina.loop.stats();
  assert(stats.steps - start >= 300, "300 fixed steps ran");

  const h = session.tracer.history();
  const count = (type: string) => h.filter((e) => e.type === type).length;
  const decisions = count("agent.decision.made");
  const perceptions = count("agent.perception.updated");
  assert(decisions >= AGENTS * 9, `every agent decided every 30 ticks (${decisions} decisions)`);
  assertEquals(perceptions, decisions + systems.agents.all().filter((a) => a.inFlight).length);
  const byAgent = new Map<string, number>();
  for (const e of h) if (e.type === "agent.decision.made") byAgent.set(e.actorId, (byAgent.get(e.actorId) ?? 0) + 1);
  assertEquals(byAgent.size, AGENTS, "every agent decided");

  const accepted = h.filter((e) => e.type === "agent.decision.made").reduce((n, e) => n + (e.payload as { toolCalls: number }).toolCalls, 0) - count("agent.toolcall.rejected");
  const executed = h.filter((e) => e.type === "skill.executed" && (e.payload as { decisionId?: string }).decisionId);
  const denied = count("security.permission.denied");
  const failed = count("skill.failed");
  const queued = systems.agents.all().reduce((n, a) => n + a.queue.length, 0);
  assert(executed.length > AGENTS * 5, `agents acted (${executed.length} actions)`);
  assertEquals(executed.length + denied + failed + queued, accepted, "every accepted tool call ran traced (or still waits its turn)");
  // The causal chain, resolved in the full history (the oldest events have left the in-memory ring).
  const byId = new Map(h.map((e) => [e.id, e]));
  for (const e of [...executed.slice(0, 50), ...executed.slice(-50)]) {
    const decision = byId.get(e.causedBy[0])!;
    assertEquals(decision.type, "agent.decision.made");
    assertEquals((decision.payload as { decisionId: string }).decisionId, (e.payload as { decisionId: string }).decisionId);
    assertEquals(byId.get(decision.causedBy[0])!.type, "agent.perception.updated");
  }
  // The scene follows only the bodies that moved each step (56 boxes sleep): every body's scene
  // object still shows exactly its SoA transform, as syncing them all would.
  const w = session.world;
  let bodied = 0;
  for (const e of w.entities.entries()) {
    if (e.body === undefined) continue;
    const { position: p, quaternion: q } = e.mesh as { position: { x: number; y: number; z: number }; quaternion: { x: number; y: number; z: number; w: number } };
    assertEquals([p.x, p.y, p.z], w.position(e.eid), `${e.id}'s scene position`);
    assertEquals([q.x, q.y, q.z, q.w], w.rotation(e.eid), `${e.id}'s scene rotation`);
    bodied++;
  }
  assertEquals(bodied, DYNAMIC_BODIES + 1);
  session.dispose();
  systems.dispose();
});
