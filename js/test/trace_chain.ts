// The world log: event ids, the bounded in-memory ring, the full history
// spooled to disk behind it, the sha256 chain (sealed and verified
// natively, checked independently and by the CLI), trace files confined to
// the trace directory, and the trace skills over it.
import {
  fnv1a16,
  type InvokeBase,
  type InvokeResult,
  parseTrace,
  readTrace,
  resolveProfile,
  sealEvents,
  Tracer,
  traceDir,
  TraceIntegrityError,
  verifyJsonl,
  WorldSession,
  writeTraceFile,
} from "limina";
import { assert, assertEquals, assertThrows, test } from "limina/testing";

function as(profile: string, agentId = "agent_a", sessionId = "sess_a"): InvokeBase {
  return { agentId, sessionId, permissions: resolveProfile(profile), profile };
}
function value(r: InvokeResult): unknown {
  if (!r.ok) throw new Error(`expected success, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}
const errorOf = (r: InvokeResult) => (r.ok ? undefined : r.error);
const traceFile = (name: string) => `${traceDir()}/${name}`;

test("event ids: evt_<actor>_<seq:12>_<fnv16 over seq, type and actor>", () => {
  const tracer = new Tracer();
  const a = tracer.emit("test.first", { big: "payload".repeat(100) }, { actorId: "a1" });
  const b = tracer.emit("test.second", {}, { actorId: "agent_7" });
  assertEquals(a, `evt_a1_000000000000_${fnv1a16("000000000000\u0000test.first\u0000a1")}`);
  assertEquals(b, `evt_agent_7_000000000001_${fnv1a16("000000000001\u0000test.second\u0000agent_7")}`);
  assert(/^evt_a1_000000000000_[0-9a-f]{4}$/.test(a), a);
  // The discriminator does not cover the payload: the same seq, type and actor give the same id.
  const other = new Tracer();
  assertEquals(other.emit("test.first", { different: true }, { actorId: "a1" }), a);
  assertEquals(fnv1a16(""), "1cd9");
  assertEquals(tracer.emit("test.default", {}), `evt_system_000000000002_${fnv1a16("000000000002\u0000test.default\u0000system")}`);
  tracer.close();
  other.close();
});

test("the in-memory ring is bounded; history and exports still hold every event, chained", async () => {
  const tracer = new Tracer({ tailSize: 16 });
  const ids: string[] = [];
  for (let i = 0; i < 1300; i++) ids.push(tracer.emit("test.many", { i }, { actorId: i % 2 ? "odd" : "even" }));
  assertEquals(tracer.size, 1300);
  const tail = tracer.tail();
  assertEquals(tail.length, 16, "tail() is exactly tailSize long");
  assertEquals(tail.map((e) => e.id), ids.slice(-16));
  assertEquals(tracer.firstRecentSeq, 1300 - 16);
  assertEquals(tracer.get(ids[0]), undefined, "an evicted event is gone from memory");
  assertEquals(tracer.get(ids[1300 - 17]), undefined, "the newest evicted one too");
  assertEquals(tracer.get(ids[1300 - 16])?.id, ids[1300 - 16], "the oldest recent one is there");
  assertEquals(tracer.page({ afterSeq: -1, limit: 1000 }).events.length, 16, "a stale cursor resumes at the ring's oldest event");
  assertEquals(tracer.trace("even").length, 8);
  assertEquals(tracer.inspect(100).recent.length, 16);

  const history = tracer.history();
  assertEquals(history.length, 1300, "history() reads every event back from the world log");
  assertEquals(history.map((e) => e.id), ids);
  assertEquals(history[0].payload, { i: 0 });
  assert(history.every((e) => e.integrity === undefined), "history() hands back plain events");

  const jsonl = tracer.exportJsonl();
  assertEquals(verifyJsonl(jsonl).events, 1300, "the full history's chain is intact");
  const exported = tracer.exportTo("trace-ring-export");
  assertEquals([exported.name, exported.events], ["trace-ring-export.jsonl", 1300]);
  const fromFile = readTrace(exported.path);
  assertEquals(fromFile.map((e) => e.id), ids);
  assertEquals(fromFile[0].integrity!.previousHash, null);
  assertEquals(fromFile.at(-1)!.integrity!.hash, verifyJsonl(jsonl).lastHash);
  const cli = await Limina.run({ cmd: Limina.execPath, args: ["trace", "verify", exported.path] });
  assertEquals(cli.code, 0, cli.stderr);
  assert(cli.stdout.startsWith("ok: 1300 events"), cli.stdout);

  // Emitting after an export continues the same chain.
  tracer.emit("test.after", {});
  const longer = tracer.exportJsonl();
  assertEquals(verifyJsonl(longer).events, 1301);
  assert(longer.startsWith(jsonl), "the log only grows");
  tracer.close();
});

test("a session's tracer takes its options (tailSize) from the session", async () => {
  const session = new WorldSession({ simulate: false, trace: { tailSize: 3 } });
  const base = as("builder.readWrite");
  for (let i = 0; i < 4; i++) await session.registry.invoke("scene.createEntity", { position: [i, 0, 0] }, base);
  assertEquals(session.tracer.size, 8, "scene.entity.created + skill.executed per call");
  assertEquals(session.tracer.tail().length, 3);
  assertEquals(session.tracer.history().length, 8);
  const tail = value(await session.registry.invoke("trace.tail", { limit: 100 }, base)) as { events: unknown[] };
  assertEquals(tail.events.length, 3, "trace.tail pages over the recent ring");
  const exported = value(await session.registry.invoke("trace.export", { name: "trace-session-ring" }, base)) as { events: number };
  assertEquals(exported.events, 9, "trace.export writes the full history (8 events and the trace.tail call's record)");
  session.dispose();
});

test("trace.tail pages with a cursor and filters; trace.explainEvent resolves parents and children", async () => {
  const session = new WorldSession({ simulate: false });
  const { registry, tracer } = session;
  const root = tracer.emit("test.root", { n: 0 }, { actorId: "a1" });
  const kid = tracer.emit("test.kid", { n: 1 }, { actorId: "a2", causedBy: [root] });
  for (let i = 0; i < 5; i++) tracer.emit("test.noise", { i }, { actorId: "a1" });
  const base = as("system.readonly");
  const p1 = value(await registry.invoke("trace.tail", { afterSeq: -1, limit: 3 }, base)) as { events: { id: string }[]; nextAfterSeq: number };
  assertEquals(p1.events.map((e) => e.id).slice(0, 2), [root, kid]);
  assertEquals(p1.nextAfterSeq, 2);
  const p2 = value(await registry.invoke("trace.tail", { afterSeq: p1.nextAfterSeq, limit: 100, actorId: "a1" }, base)) as { events: { type: string }[] };
  assertEquals(p2.events.map((e) => e.type), ["test.noise", "test.noise", "test.noise", "test.noise"]);
  const typed = value(await registry.invoke("trace.tail", { type: "test.kid" }, base)) as { events: { id: string }[] };
  assertEquals(typed.events.map((e) => e.id), [kid]);
  // deno-lint-ignore no-explicit-any
  const x = value(await registry.invoke("trace.explainEvent", { eventId: kid }, base)) as Record<string, any>;
  assertEquals(x.parents.map((e: { id: string }) => e.id), [root]);
  // deno-lint-ignore no-explicit-any
  const y = value(await registry.invoke("trace.explainEvent", { eventId: root }, base)) as Record<string, any>;
  assertEquals(y.children.map((e: { id: string }) => e.id), [kid]);
  const missing = await registry.invoke("trace.explainEvent", { eventId: "evt_nope_000000000099_0000" }, base);
  assertEquals(errorOf(missing)?.code, "not_found");
  assert(/^evt_a1_000000000000_[0-9a-f]{4}$/.test(root), root);
  session.dispose();
});

test("trace export → verify passes; an independent chain matches; the CLI agrees", async () => {
  const session = new WorldSession({ simulate: false, policy: true });
  const { registry, tracer } = session;
  const base = as("builder.readWrite");
  await registry.invoke("scene.createEntity", { position: [1, 2, 3] }, base);
  await registry.invoke("scene.createEntity", { position: [1, 2] }, base);
  tracer.emit("test.unicode", { text: "héllo \u2603 \n\t\"quoted\"", n: [0.1, -2.5, 1e21, 3] });
  const r = await registry.invoke("trace.export", { name: "registry-export" }, base);
  const out = value(r) as { name: string; events: number; bytes: number };
  assertEquals(out.name, "registry-export.jsonl");
  // Everything recorded before the export ran; only its own skill.executed came after.
  assertEquals(out.events, tracer.size - 1);
  const events = readTrace(traceFile(out.name));
  assertEquals(events.length, out.events);
  assertEquals(events.map((e) => e.id), tracer.history().slice(0, out.events).map((e) => e.id));
  assertEquals(events[0].integrity!.previousHash, null);
  const py = await Limina.run({ cmd: "python3", args: ["tests/chain_check.py", traceFile(out.name)] });
  assertEquals(py.code, 0, py.stderr);
  assertEquals(py.stdout.trim().split("\n"), events.map((e) => e.integrity!.hash));
  const cli = await Limina.run({ cmd: Limina.execPath, args: ["trace", "verify", traceFile(out.name)] });
  assertEquals(cli.code, 0, cli.stderr);
  assert(cli.stdout.startsWith(`ok: ${out.events} events`), cli.stdout);
  session.dispose();
});

test("sealEvents and parseTrace agree with the world log's own chain", () => {
  const tracer = new Tracer();
  for (let i = 0; i < 3; i++) tracer.emit("test.seal", { i });
  const logged = tracer.exportJsonl();
  const plain = parseTrace(logged).map((e) => {
    delete e.integrity;
    return e;
  });
  assertEquals(sealEvents(plain, "").jsonl, logged, "sealing the same events from genesis gives the same chain");
  const first = sealEvents(plain.slice(0, 1), "");
  assertEquals(first.jsonl + sealEvents(plain.slice(1), first.lastHash!).jsonl, logged, "and sealing continues a chain");
  assertEquals(sealEvents([], ""), { jsonl: "", lastHash: null });
  assertEquals(parseTrace(""), []);
  tracer.close();
});

test("each of the five integrity failures is named with its line, by the reader and the CLI", async () => {
  const tracer = new Tracer();
  for (let i = 0; i < 4; i++) tracer.emit("test.e", { i });
  const good = tracer.exportJsonl();
  const lines = good.trimEnd().split("\n");
  const crafted: [string, string, number][] = [
    [`${lines[0]}\n{not json\n${lines.slice(2).join("\n")}\n`, "invalid_json", 2],
    [good.slice(0, good.length - 20), "partial_final_line", 4],
    [`${lines[0]}\n${JSON.stringify({ ...JSON.parse(lines[1]), integrity: undefined })}\n`, "missing_integrity", 2],
    [`${lines[0]}\n${lines[2]}\n${lines[3]}\n`, "previous_hash_mismatch", 2],
    [good.replace('"i":2', '"i":20'), "hash_mismatch", 3],
  ];
  for (const [text, reason, line] of crafted) {
    const e = assertThrows(() => verifyJsonl(text), { name: "TraceIntegrityError" }) as TraceIntegrityError;
    assertEquals([e.reason, e.line], [reason, line]);
    const written = writeTraceFile(`trace-bad-${reason}`, text, false);
    assertEquals(written.name, `trace-bad-${reason}.jsonl`);
    assertThrows(() => readTrace(written.path), { name: "TraceIntegrityError" });
    const cli = await Limina.run({ cmd: Limina.execPath, args: ["trace", "verify", written.path] });
    assertEquals(cli.code, 1);
    assert(cli.stderr.includes(`${reason} at line ${line}`), cli.stderr);
  }
  assertEquals(verifyJsonl(good).events, 4);
  assertEquals(verifyJsonl("").events, 0);
  tracer.close();
});

test("trace file names are confined to the trace directory", async () => {
  const session = new WorldSession({ simulate: false });
  const base = as("builder.readWrite");
  for (const name of ["../escape", "/tmp/x", "a/b", ".hidden", "..", "a..b"]) {
    const r = await session.registry.invoke("trace.export", { name }, base);
    assertEquals(errorOf(r)?.code, "invalid_input", name);
    assertThrows(() => writeTraceFile(name, "", false), { code: "invalid_input" });
  }
  const missing = await Limina.run({ cmd: "test", args: ["-e", "escape.jsonl"] });
  assertEquals(missing.code, 1, "nothing was written outside the trace directory");
  assertThrows(() => readTrace(traceFile("does-not-exist.jsonl")), { code: "not_found" });
  const appended = writeTraceFile("trace-append", "", false);
  writeTraceFile("trace-append", "a\n", true);
  writeTraceFile("trace-append", "b\n", true);
  const cat = await Limina.run({ cmd: "cat", args: [appended.path] });
  assertEquals(cat.stdout, "a\nb\n");
  session.dispose();
});

test("logName keeps the world log as a live trace file, chained as it is flushed", async () => {
  const name = "trace-live";
  const tracer = new Tracer({ logName: name });
  for (let i = 0; i < 3; i++) tracer.emit("test.live", { i });
  await Promise.resolve(); // a live log flushes its batch on a microtask
  tracer.exportJsonl(); // and waits here for the log thread to write it
  const events = readTrace(traceFile(`${name}.jsonl`));
  assertEquals(events.length, 3);
  assertEquals(tracer.exportJsonl().trimEnd().split("\n").map((l) => JSON.parse(l).integrity.hash), events.map((e) => e.integrity!.hash));
  for (let i = 0; i < 600; i++) tracer.emit("test.live", { i });
  tracer.exportJsonl();
  assertEquals(readTrace(traceFile(`${name}.jsonl`)).length, 603, "every flushed event is in the live file");
  tracer.close();
  assertEquals(readTrace(traceFile(`${name}.jsonl`)).length, 603, "closing flushes the rest and keeps the file");
});

test("trace(actorId, sinceTick) and inspect()", () => {
  let tick = 0;
  const tracer = new Tracer({ tick: () => tick, tailSize: 2 });
  tracer.emit("a", {}, { actorId: "x" });
  tick = 5;
  tracer.emit("b", {}, { actorId: "x" });
  tracer.emit("c", {}, { actorId: "y" });
  assertEquals(tracer.trace("x").map((e) => e.type), ["b"], "only the recent ring");
  assertEquals(tracer.trace("x", 5).map((e) => e.type), ["b"]);
  assertEquals(tracer.trace("y", 6).map((e) => e.type), []);
  assertEquals(tracer.tail().map((e) => e.type), ["b", "c"], "the tail is bounded");
  assertEquals(tracer.history().length, 3, "the durable history is complete");
  const i = tracer.inspect();
  assertEquals([i.eventCount, i.actors], [3, ["x", "y"]]);
  assertThrows(() => new Tracer({ tailSize: 0 }), { name: "RangeError" });
  tracer.close();
});
