// A slow model never drops a frame: with a 500 ms provider thinking, the
// real-time loop keeps 60 fixed steps per second.
import { assert, test } from "limina/testing";
import { createAgentSystems, createWorldSession, ScriptedProvider, waitSteps } from "limina";

test("a 500 ms provider does not slow the tick rate", async () => {
  const session = createWorldSession();
  let thinking = 0;
  const slow = new ScriptedProvider(() => {
    thinking++;
    return new Promise((r) => setTimeout(() => r([{ tool: "agent.emitEvent", input: { type: "thought" } }]), 500));
  });
  const sys = createAgentSystems(session, { slow });
  for (let i = 0; i < 20; i++) {
    sys.agents.add({ id: `agt_${i}`, type: "player", anchor: [i, 0, 0], decisionIntervalTicks: 1, profile: "player.limited", sessionId: `s${i}`, llm: { provider: "slow", model: "", systemPrompt: "" } });
  }
  await waitSteps(2);
  const s0 = Limina.loop.steps();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, 1200));
  const rate = (Limina.loop.steps() - s0) / ((performance.now() - t0) / 1000);
  assert(thinking >= 20, `every agent had a decision in flight (${thinking})`);
  // A loop that waited on the provider would manage a few steps a second; the margin is for a busy machine.
  assert(rate > 30, `${rate.toFixed(1)} steps/s while the provider thinks`);
  const done = session.tracer.history().filter((e) => e.type === "agent.signal.thought").length;
  assert(done >= 20, `the slow decisions still landed and acted (${done})`);
  sys.dispose();
  session.dispose();
});
