// The agent-native core's costs: one invoke() (Zod-validated, policy-checked,
// traced) and one emit(). The world log's export and verify: js/bench/trace.ts.
// Run: limina js/bench/registry.ts   (final line: JSON figures)
import { PolicyEngine, resolveProfile, SkillRegistry, Tracer } from "limina";
import { round } from "limina/bench";
import { z } from "zod";

function registry(withPolicy: boolean) {
  const tracer = new Tracer({ tailSize: 8192 });
  const reg = new SkillRegistry(tracer);
  if (withPolicy) reg.attachPolicy(new PolicyEngine(tracer));
  reg.register({
    name: "bench.move",
    version: "1.0.0",
    category: "ecs",
    description: "Moves an entity.",
    input: z.strictObject({ entity: z.string(), position: z.tuple([z.number(), z.number(), z.number()]) }),
    output: z.object({ ok: z.boolean() }),
    permissions: ["ecs.modify"],
    handler: () => ({ ok: true }),
  });
  return { tracer, reg };
}

const base = { agentId: "agent_bench", sessionId: "sess_bench", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
const input = { entity: "ent_1", position: [1, 2, 3] };

async function invokeUs(withPolicy: boolean, calls: number): Promise<number> {
  const { reg } = registry(withPolicy);
  for (let i = 0; i < 2000; i++) await reg.invoke("bench.move", input, base);
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await reg.invoke("bench.move", input, base);
  return ((performance.now() - t0) * 1000) / calls;
}

const invokeStaticUs = await invokeUs(false, 20_000);
const invokePolicyUs = await invokeUs(true, 20_000);

const tracer = new Tracer();
const EMITS = 200_000;
for (let i = 0; i < 10_000; i++) tracer.emit("bench.warm", { i });
const t0 = performance.now();
for (let i = 0; i < EMITS; i++) tracer.emit("agent.signal.ping", { i, at: [i, 0, 1] }, { actorId: "agent_bench" });
const emitUs = ((performance.now() - t0) * 1000) / EMITS;
tracer.close();

const figures = {
  bench: "registry",
  invokeStaticUs: round(invokeStaticUs, 2),
  invokePolicyUs: round(invokePolicyUs, 2),
  emitUs: round(emitUs, 3),
};
console.log(`invoke: ${figures.invokeStaticUs} µs (static permissions), ${figures.invokePolicyUs} µs (policy engine); emit: ${figures.emitUs} µs`);
console.log(JSON.stringify(figures));
