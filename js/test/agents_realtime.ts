// A slow model never holds the loop: while 20 decisions are in flight the
// real-time loop keeps stepping. Counted in steps and in the loop thread's
// CPU time, never in wall time, so a busy machine cannot fail it.
import { assert, assertEquals, test } from "limina/testing";
import { createAgentSystems, createWorldSession, ScriptedProvider, waitSteps } from "limina";
import { LoopCpuWatch } from "./support/loop_cpu.ts";

/** Safety net only: how long a provider or the test waits for steps that a healthy loop runs anyway. */
const GIVE_UP_MS = 30_000;
const giveUp = () => new Promise<"gave up">((r) => setTimeout(() => r("gave up"), GIVE_UP_MS));

test("a provider that thinks for 30 steps does not hold the loop", async () => {
  const session = createWorldSession();
  let thinking = 0;
  let gaveUp = 0;
  // Each decision answers only once the loop has run 30 more steps: a loop
  // that waited on its decisions would never get there.
  const slow = new ScriptedProvider(async () => {
    thinking++;
    if ((await Promise.race([waitSteps(30), giveUp()])) === "gave up") gaveUp++;
    return [{ tool: "agent.emitEvent", input: { type: "thought" } }];
  });
  const sys = createAgentSystems(session, { slow });
  for (let i = 0; i < 20; i++) {
    sys.agents.add({ id: `agt_${i}`, type: "player", anchor: [i, 0, 0], decisionIntervalTicks: 1, profile: "player.limited", sessionId: `s${i}`, llm: { provider: "slow", model: "", systemPrompt: "" } });
  }
  const cpu = new LoopCpuWatch();
  const thoughts = () => session.tracer.history().filter((e) => e.type === "agent.signal.thought").length;
  const deadline = performance.now() + GIVE_UP_MS;
  while (thoughts() < 20 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  cpu.stop();
  assert(thinking >= 20, `every agent had a decision in flight (${thinking})`);
  assertEquals(gaveUp, 0, "decisions whose 30 steps never came");
  assert(thoughts() >= 20, `the slow decisions still landed and acted (${thoughts()})`);
  assert(cpu.maxGapMs < 100, `the loop's longest stretch of CPU between two steps: ${cpu.maxGapMs.toFixed(1)} ms`);
  sys.dispose();
  session.dispose();
});
