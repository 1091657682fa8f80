// Packages over the wire with the official TypeScript MCP SDK against
// `limina --mcp-stdio`: a `while(true){}` entry is answered within its CPU
// budget while the server keeps answering and stepping, and a package's
// host.invoke("scene.createEntity", …) creates the entity with `pkg`
// provenance in the trace.
// Usage: node js/test/node/sdk_packages.mjs <path-to-limina>  (LIMINA_PACKAGES_DIR and LIMINA_TRUSTED_KEYS set)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const limina = process.argv[2];
const fail = (msg) => {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
};

const client = new Client({ name: "node-sdk-packages", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: limina, args: ["--mcp-stdio", "--profile", "builder.readWrite"], env: process.env, stderr: "inherit" }));
const call = async (name, args = {}) => {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) fail(`${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent;
};

const { tools } = await client.listTools();
for (const name of ["package.list", "package.load"]) if (!tools.some((t) => t.name === name)) fail(`${name} is not listed`);
const listed = (await call("package.list")).packages;
const spin = listed.find((p) => p.ref === "spin@1.0.0");
if (!spin?.attested || spin.kind !== "script" || !/^sha256:[0-9a-f]{64}$/.test(spin.contentHash)) fail(`package.list: ${JSON.stringify(listed)}`);

// Something falling, to see the world step.
const ball = (await call("scene.createEntity", { shape: "sphere", position: [0, 50, 0], dynamic: true })).entity;
const heightOf = async () => (await call("scene.queryEntities", {})).entities.find((e) => e.entity === ball).position[1];
const before = await heightOf();

const started = performance.now();
const load = client.callTool({ name: "package.load", arguments: { ref: "spin@1.0.0", agentId: "agt_spin", sessionId: "sess_spin", profile: "builder.readWrite" } });
// Other calls sent meanwhile are answered too.
const others = Promise.all([call("skills.list"), call("scene.queryEntities", {}), call("package.list", { name: "builder" })]);
const spun = await load;
const loadMs = performance.now() - started;
if (spun.isError) fail(`package.load spin: ${JSON.stringify(spun.content)}`);
const s = spun.structuredContent;
if (s.ok !== false || s.rejectReason !== "cpu_budget" || s.rule !== "package.rejected" || !/CPU/.test(s.reason) || !s.loadEventId) fail(`spin: ${JSON.stringify(s)}`);
const [skills, , builders] = await others;
if (!tools.every((t) => skills.tools.some((s) => s.name === t.name)) || builders.packages.length !== 1) fail("the calls sent alongside were not answered");
// Still stepping: the ball keeps falling after the stopped load (waited for, up to a minute).
let after = await heightOf();
for (let i = 0; i < 600 && !(after < before - 0.1); i++) {
  await new Promise((r) => setTimeout(r, 100));
  after = await heightOf();
}
if (!(after < before - 0.1)) fail(`the world did not step: ${before} → ${after}`);
const explained = await call("audit.explain", { eventId: s.loadEventId });
if (explained.decision?.allow !== false || explained.decision.boundary !== "package") fail(`audit.explain: ${JSON.stringify(explained)}`);

const built = await call("package.load", { ref: "builder@1.0.0", agentId: "agt_builder_pkg", sessionId: "sess_pkg", profile: "builder.readWrite" });
if (built.ok !== true || built.rule !== "profile.grant" || built.rejectReason !== null || !built.loadEventId) fail(`builder: ${JSON.stringify(built)}`);
const made = (await call("scene.queryEntities", {})).entities.find((e) => e.entity !== ball);
if (!made || Math.abs(made.position[0] - 1) > 1e-6 || Math.abs(made.position[2] - 3) > 1e-6) fail(`no entity built by the package: ${JSON.stringify(made)}`);
const events = (await call("trace.tail", { actorId: "agt_builder_pkg", limit: 1000 })).events;
const executed = events.find((e) => e.type === "skill.executed" && e.payload.skill === "scene.createEntity");
// The package acts in the session of the client that loaded it (the server's id; "sess_pkg" is its label).
const loadedAs = events.find((e) => e.id === built.loadEventId);
if (executed?.payload.pkg !== "builder@1.0.0" || !/^mcp-\d+$/.test(executed.threadId) || executed.threadId !== loadedAs?.threadId || loadedAs.payload.label !== "sess_pkg") fail(`no pkg provenance: ${JSON.stringify([executed, loadedAs])}`);
const decision = events.find((e) => e.id === executed.causedBy[0]);
if (decision?.type !== "policy.decision" || decision.payload.context.package !== "builder@1.0.0") fail(`the decision behind it: ${JSON.stringify(decision)}`);
const audit = await call("audit.query", { package: "builder@1.0.0", decision: "allow" });
if (!audit.decisions.some((d) => d.cap === "scene.createEntity")) fail(`audit.query by package: ${JSON.stringify(audit.summary)}`);
await client.close();

console.log(JSON.stringify({ ok: true, loadMs, entity: made.entity, fell: before - after }));
