// The world log: event ids, the bounded in-memory ring, the full history
// spooled to disk behind it, the sha256 chain and its trace.sealed
// terminator (sealed and verified natively, checked independently and by
// the CLI), trace files confined to the trace directory, written atomically
// and never replaced, exports off the loop within a quota, a SIGKILL in
// the middle of one, and the trace skills over it.
import {
  fnv1a16,
  type InvokeBase,
  type InvokeResult,
  onFixedStep,
  parseTrace,
  readTrace,
  readTraceText,
  resolveProfile,
  sealEvents,
  Tracer,
  traceDir,
  TraceIntegrityError,
  verifyJsonl,
  verifyTraceFile,
  waitSteps,
  WorldLog,
  WorldSession,
  writeTraceFile,
} from "limina";
import { assert, assertEquals, assertRejects, assertThrows, test } from "limina/testing";

function as(profile: string, agentId = "agent_a", sessionId = "sess_a"): InvokeBase {
  return { agentId, sessionId, permissions: resolveProfile(profile), profile };
}
function value(r: InvokeResult): unknown {
  if (!r.ok) throw new Error(`expected success, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}
const errorOf = (r: InvokeResult) => (r.ok ? undefined : r.error);
const traceFile = (name: string) => `${traceDir()}/${name}`;
// Trace files are never replaced, so every name this run writes is its own.
const RUN = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const named = (name: string) => `${name}-${RUN}`;
const sh = (script: string, env: Record<string, string> = {}) => Limina.run({ cmd: "sh", args: ["-c", script], env });
const cliVerify = (path: string, ...flags: string[]) => Limina.run({ cmd: Limina.execPath, args: ["trace", "verify", ...flags, path] });
const lastLine = (text: string) => JSON.parse(text.trimEnd().split("\n").at(-1)!);

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
  // Each byte zero-padded, high byte first (values from an independent FNV-1a).
  assertEquals([fnv1a16("k1305"), fnv1a16("k11")], ["00a7", "6101"]);
  assertEquals(tracer.emit("test.default", {}), `evt_system_000000000002_${fnv1a16("000000000002\u0000test.default\u0000system")}`);
  assertThrows(() => tracer.emit("trace.sealed", {}), { code: "invalid_input", message: "trace.sealed is reserved for the terminator that ends a trace" });
  // Consecutive events of one actor share its id prefix; each change of actor (back, or to "") makes it anew.
  const actors = new Tracer();
  ["", "a1", "a1", "agent_7", "a1", ""].forEach((actorId, n) => {
    const seq = String(n).padStart(12, "0");
    assertEquals(actors.emit("test.actor", {}, { actorId }), `evt_${actorId}_${seq}_${fnv1a16(`${seq}\u0000test.actor\u0000${actorId}`)}`);
  });
  actors.close();
  tracer.close();
  other.close();
});

test("the in-memory ring is bounded; history and exports still hold every event, chained and sealed", async () => {
  const tracer = new Tracer({ tailSize: 16, threadId: "thread_ring" });
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
  const verified = verifyJsonl(jsonl);
  assertEquals([verified.status, verified.events, verified.tornBytes], ["sealed", 1300, 0], "the full history's chain is intact and sealed");
  const terminator = lastLine(jsonl);
  assertEquals([terminator.type, terminator.actorId, terminator.threadId], ["trace.sealed", "system", "thread_ring"]);
  assertEquals(terminator.payload, { events: 1300, headHash: verified.headHash });
  assertEquals(terminator.id, `evt_system_000000001300_${fnv1a16("000000001300\u0000trace.sealed\u0000system")}`);

  const exported = await tracer.exportTo(named("trace-ring-export"));
  assertEquals([exported.name, exported.events, exported.headHash], [`${named("trace-ring-export")}.jsonl`, 1300, verified.headHash]);
  assertEquals(exported.bytes, readTraceText(exported.path).length, "bytes is the file's size");
  const fromFile = readTrace(exported.path);
  assertEquals(fromFile.map((e) => e.id), ids, "readTrace returns the events without the terminator");
  assertEquals(fromFile[0].integrity!.previousHash, null);
  assertEquals(fromFile.at(-1)!.integrity!.hash, verified.headHash);
  assertEquals(await verifyTraceFile(exported.path), verified);
  const cli = await cliVerify(exported.path);
  assertEquals(cli.code, 0, cli.stderr);
  assertEquals(cli.stdout.trim(), `ok: 1300 events, chain intact and sealed (head hash ${verified.headHash})`);

  // Emitting after an export continues the same chain; the export itself keeps what it had.
  tracer.emit("test.after", {});
  const longer = tracer.exportJsonl();
  assertEquals(verifyJsonl(longer).events, 1301);
  assertEquals(longer.split("\n").slice(0, 1300), jsonl.split("\n").slice(0, 1300), "the log only grows");
  assertEquals(readTrace(exported.path).length, 1300);
  tracer.close();
  await assertRejects(() => tracer.exportTo(named("closed")), { code: "unavailable" });
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
  const exported = value(await session.registry.invoke("trace.export", { name: named("trace-session-ring") }, base)) as { events: number };
  assertEquals(exported.events, 10, "trace.export writes the full history (8 events, the trace.tail call's record and the export's world.checkpoint)");
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
  tracer.emit("test.unicode", { text: "héllo \u2603 \n\t\"quoted\" \u{1F600}", n: [0.1, -2.5, 1e21, 3, -0], lone: "\ud800" });
  const r = await registry.invoke("trace.export", { name: named("registry-export") }, base);
  const out = value(r) as { name: string; events: number; bytes: number };
  assertEquals(out.name, `${named("registry-export")}.jsonl`);
  // Everything recorded before the export ran; only its own skill.executed came after.
  assertEquals(out.events, tracer.size - 1);
  const events = readTrace(traceFile(out.name));
  assertEquals(events.length, out.events);
  assertEquals(events.map((e) => e.id), tracer.history().slice(0, out.events).map((e) => e.id));
  assertEquals(events[0].integrity!.previousHash, null);
  const unicode = events.find((e) => e.type === "test.unicode")!.payload as { lone: string };
  assertEquals(unicode.lone, "\ud800", "a lone surrogate survives, escaped as JSON.stringify writes it");
  const py = await Limina.run({ cmd: "python3", args: ["tests/chain_check.py", traceFile(out.name)] });
  assertEquals(py.code, 0, py.stderr);
  assertEquals(py.stdout.trim().split("\n"), events.map((e) => e.integrity!.hash), "Python recomputes every hash and checks the terminator");
  const cli = await cliVerify(traceFile(out.name));
  assertEquals(cli.code, 0, cli.stderr);
  assert(cli.stdout.startsWith(`ok: ${out.events} events, chain intact and sealed`), cli.stdout);
  session.dispose();
});

test("sealEvents and parseTrace agree with the world log's own chain", () => {
  const tracer = new Tracer();
  for (let i = 0; i < 3; i++) tracer.emit("test.seal", { i });
  const logged = tracer.exportJsonl();
  const chained = logged.slice(0, logged.trimEnd().lastIndexOf("\n") + 1);
  const plain = parseTrace(logged).map((e) => {
    delete e.integrity;
    return e;
  });
  assertEquals(plain.length, 3, "parseTrace leaves the terminator out");
  assertEquals(sealEvents(plain, "").jsonl, chained, "sealing the same events from genesis gives the same chain");
  const first = sealEvents(plain.slice(0, 1), "");
  assertEquals(first.jsonl + sealEvents(plain.slice(1), first.lastHash!).jsonl, chained, "and sealing continues a chain");
  assertEquals(sealEvents([], ""), { jsonl: "", lastHash: null });
  assertThrows(() => sealEvents(plain, "sha256:nope"), { code: "invalid_input", message: 'previousHash "sha256:nope" is not "sha256:" and 64 hex digits' });
  const empty = new Tracer();
  const none = empty.exportJsonl();
  assertEquals(none.split("\n").length, 2, "an empty world exports the terminator alone");
  assertEquals(lastLine(none).payload, { events: 0, headHash: null });
  assertEquals(parseTrace(none), []);
  tracer.close();
  empty.close();
});

test("each integrity failure is named with its line, by the reader and the CLI", async () => {
  const tracer = new Tracer();
  for (let i = 0; i < 4; i++) tracer.emit("test.e", { i });
  const good = tracer.exportJsonl();
  const lines = good.trimEnd().split("\n");
  const events = lines.slice(0, 4).map((l) => JSON.parse(l));
  const head = events[3].integrity.hash;
  // A terminator that lies, properly chained: only its payload is wrong.
  const lying = sealEvents([{ ...JSON.parse(lines[4]), integrity: undefined, payload: { events: 5, headHash: head } }], head).jsonl;
  const crafted: [string, string, number, string][] = [
    [`${lines[0]}\n{not json\n${lines.slice(2).join("\n")}\n`, "invalid_json", 2, "not valid JSON: expected a string key at column 2"],
    [good.slice(0, good.length - 20), "partial_final_line", 5, `the final line is cut short (no newline after ${lines[4].length - 19} bytes)`],
    [`${lines[0]}\n${JSON.stringify({ ...events[1], integrity: undefined })}\n`, "missing_integrity", 2, "no integrity field"],
    [`${lines[0]}\n${lines[2]}\n`, "previous_hash_mismatch", 2, `previousHash is "${events[1].integrity.hash}", the chain expects "${events[0].integrity.hash}"`],
    [good.replace('"i":2', '"i":20'), "hash_mismatch", 3, ""],
    ["", "truncated", 1, "the file is empty: a trace ends with a trace.sealed terminator"],
    [`${lines.slice(0, 4).join("\n")}\n`, "truncated", 5, "no trace.sealed terminator after line 4: the trace was cut short (verify a live log as open)"],
    [`${lines.slice(0, 4).join("\n")}\n${lying}`, "terminator_mismatch", 5, "the trace.sealed payload counts 5 events, the chain holds 4"],
    [`${good}${lines[0]}\n`, "after_terminator", 6, "a line follows the trace.sealed terminator on line 5"],
  ];
  for (const [text, reason, line, message] of crafted) {
    const e = assertThrows(() => verifyJsonl(text), { name: "TraceIntegrityError" }) as TraceIntegrityError;
    assertEquals([e.reason, e.line], [reason, line]);
    if (message) assertEquals(e.message, `trace integrity: ${reason} at line ${line}: ${message}`);
    const written = writeTraceFile(named(`trace-bad-${reason}-${line}`), text);
    assertEquals(written.name, `${named(`trace-bad-${reason}-${line}`)}.jsonl`);
    assertThrows(() => readTrace(written.path), { name: "TraceIntegrityError" });
    const fromFile = (await assertRejects(() => verifyTraceFile(written.path), { name: "TraceIntegrityError" })) as TraceIntegrityError;
    assertEquals([fromFile.reason, fromFile.line], [reason, line]);
    const cli = await cliVerify(written.path);
    assertEquals(cli.code, 1, cli.stdout);
    assert(cli.stderr.startsWith(`error: ${written.path}: ${reason} at line ${line}: `), cli.stderr);
  }
  assertEquals(verifyJsonl(good).events, 4);
  const unreadable = await cliVerify(traceFile(named("does-not-exist")));
  assertEquals(unreadable.code, 2);
  assert(unreadable.stderr.startsWith(`error: cannot read ${traceFile(named("does-not-exist"))}: `), unreadable.stderr);
  tracer.close();
});

test("trace file names are confined to the trace directory; a file is never replaced", async () => {
  const session = new WorldSession({ simulate: false });
  const base = as("builder.readWrite");
  for (const name of ["../escape", "/tmp/x", "a/b", ".hidden", "..", "a..b"]) {
    const r = await session.registry.invoke("trace.export", { name }, base);
    assertEquals(errorOf(r)?.code, "invalid_input", name);
    assertThrows(() => writeTraceFile(name, ""), { code: "invalid_input" });
  }
  const missing = await Limina.run({ cmd: "test", args: ["-e", "escape.jsonl"] });
  assertEquals(missing.code, 1, "nothing was written outside the trace directory");
  assertThrows(() => readTrace(traceFile("does-not-exist.jsonl")), { code: "not_found" });

  // A write under a taken name is refused, naming the file; the file keeps its content.
  const first = writeTraceFile(named("taken"), "a\n");
  assertThrows(() => writeTraceFile(named("taken"), "b\n"), {
    code: "invalid_input",
    message: `trace file ${first.path} already exists; trace files are never replaced (choose another name)`,
  });
  assertEquals(readTraceText(first.path), "a\n");

  // An export under a taken name is written under the first free NAME-N; the earlier file is untouched.
  const one = value(await session.registry.invoke("trace.export", { name: named("again") }, base)) as { name: string; events: number };
  const before = readTraceText(traceFile(one.name));
  const two = value(await session.registry.invoke("trace.export", { name: named("again") }, base)) as { name: string; events: number };
  const three = value(await session.registry.invoke("trace.export", { name: `${named("again")}.jsonl` }, base)) as { name: string };
  assertEquals([one.name, two.name, three.name], [`${named("again")}.jsonl`, `${named("again")}-2.jsonl`, `${named("again")}-3.jsonl`]);
  assertEquals(readTraceText(traceFile(one.name)), before);
  assertEquals(two.events, one.events + 2, "each export is the history at its call (the first export's record, the second's world.checkpoint)");
  const listing = await sh(`ls -A "${traceDir()}" | grep -c "${RUN}.*part" || true`);
  assertEquals(listing.stdout.trim(), "0", "no temporary file is left behind");
  session.dispose();
});

test("exports are bounded by a quota of files and bytes per world log: capacity_exceeded, nothing written", async () => {
  const session = new WorldSession({ simulate: false, trace: { exportQuota: { files: 2 } } });
  // Three sessions, each within its own share (one file of two): the world log's quota is what refuses.
  const base = (i: number) => as("builder.readWrite", `agent_${i}`, `sess_${i}`);
  for (let i = 0; i < 2; i++) value(await session.registry.invoke("trace.export", { name: named(`quota-${i}`) }, base(i)));
  const third = errorOf(await session.registry.invoke("trace.export", { name: named("quota-2") }, base(2)));
  assertEquals(third, { code: "capacity_exceeded", message: "this world log has made 2 of its 2 exports (exportQuota.files)" });
  session.dispose();

  const small = new Tracer({ exportQuota: { bytes: 12_000 } });
  for (let i = 0; i < 20; i++) small.emit("test.small", { i });
  const ok = await small.exportTo(named("quota-bytes"));
  for (let i = 0; i < 20; i++) small.emit("test.small", { i, more: "x".repeat(40) });
  const e = await assertRejects(() => small.exportTo(named("quota-bytes-over")), { code: "capacity_exceeded" });
  assert(
    /^an export of up to \d+ bytes would take this world log's exports past its 12000 bytes \(\d+ used; exportQuota\.bytes\)$/.test(e.message),
    e.message,
  );
  assert(e.message.includes(`(${ok.bytes} used;`), "the used bytes are what the first export wrote");
  const none = await sh(`ls -A "${traceDir()}" | grep -c "quota-bytes-over" || true`);
  assertEquals(none.stdout.trim(), "0", "a refused export writes nothing");
  assertThrows(() => new Tracer({ exportQuota: { files: -1 } }), { name: "RangeError", message: "exportQuota.files must be a whole number ≥ 0, got -1" });
  small.close();
});

test("a session may make 1/8 of the world log's exports: one client cannot spend everyone's, even all at once", async () => {
  const session = new WorldSession({ simulate: false, trace: { exportQuota: { files: 16 } } });
  const exportAs = (sessionId: string, i: number) => session.registry.invoke("trace.export", { name: named(`share-${sessionId}-${i}`) }, as("builder.readWrite", `agent_${sessionId}`, sessionId));
  for (let i = 0; i < 2; i++) value(await exportAs("sess_greedy", i));
  assertEquals(errorOf(await exportAs("sess_greedy", 2)), { code: "capacity_exceeded", message: "session sess_greedy has made 2 of its 2 exports (a session may make 1/8 of exportQuota.files)" });
  value(await exportAs("sess_other", 0));
  // Five at once from one session: its two files are counted as they start, so three are refused.
  const burst = await Promise.all([0, 1, 2, 3, 4].map((i) => exportAs("sess_burst", i)));
  assertEquals(burst.filter((r) => r.ok).length, 2);
  session.dispose();
});

test("an export runs off the loop from a snapshot: fixed steps keep running, at little of the loop's CPU, while 400,000 events are written", async () => {
  const tracer = new Tracer();
  for (let i = 0; i < 400_000; i++) tracer.emit("test.bulk", { i, at: [i, 0, 1] }, { actorId: "bulk" });
  // The loop thread's CPU time between steps, which a busy machine does not stretch (unlike the wall clock).
  const cpuAtStep: number[] = [];
  const stop = onFixedStep(() => cpuAtStep.push(Limina.loop.stats().cpuMs));
  // Emitting held the loop: let it catch up first (a frame makes up at most 250 ms, 15 steps, at 5 a frame), so the
  // steps counted below are the export's.
  await waitSteps(20);
  cpuAtStep.length = 0;
  const cpu0 = Limina.loop.stats().cpuMs;
  const pending = tracer.exportTo(named("off-loop"));
  tracer.emit("test.later", {}); // after the call: not in this export
  const exported = await pending;
  const cpuEnd = Limina.loop.stats().cpuMs;
  stop();
  assertEquals(exported.events, 400_000);
  // Some 400 ms of the export thread's work go by (90 steps here); on the loop, there would be none in between and
  // the loop would spend that CPU in one stretch, where a step takes well under 10 ms here.
  assert(cpuAtStep.length >= 10, `${cpuAtStep.length} steps ran while the export was written`);
  const cpu = [cpu0, ...cpuAtStep, cpuEnd];
  const gaps = cpu.slice(1).map((t, i) => t - cpu[i]);
  assert(Math.max(...gaps) < 50, `the loop's longest stretch of CPU between two steps: ${Math.max(...gaps).toFixed(1)} ms`);
  const verified = await verifyTraceFile(exported.path);
  assertEquals([verified.status, verified.events, verified.headHash], ["sealed", 400_000, exported.headHash]);
  tracer.close();
});

test("a SIGKILL during trace.export leaves the previous file or none, never a partial one that verifies", async () => {
  const dir = `${traceDir()}/kill-${RUN}`;
  const run = (script: string) => sh(script, { LIMINA_TRACE_DIR: dir, LIMINA: Limina.execPath });
  const first = await run(`"$LIMINA" tests/fixtures/trace_export.ts export 2000`);
  assertEquals(first.code, 0, first.stderr);
  assertEquals(JSON.parse(first.stdout.trim()).name, "victim.jsonl");
  const previous = readTraceText(`${dir}/victim.jsonl`);
  for (const delay of ["0", "0.15"]) {
    // Kill the second export (of 200,000 events) once its temporary file exists, after `delay` s.
    const killed = await run(`
      "$LIMINA" tests/fixtures/trace_export.ts export 200000 & pid=$!
      until ls -A "$LIMINA_TRACE_DIR" | grep -q "^\\.victim\\.jsonl\\.$pid-"; do
        kill -0 $pid 2>/dev/null || { echo "the export ended before it was killed"; exit 3; }
        sleep 0.002
      done
      sleep ${delay}; kill -9 $pid; wait $pid; echo "killed: $?"`);
    assertEquals(killed.stdout.trim(), "killed: 137", killed.stdout + killed.stderr);
    assertEquals(readTraceText(`${dir}/victim.jsonl`), previous, "the previous file is untouched");
    const files = (await run(`ls -A "$LIMINA_TRACE_DIR"`)).stdout.trim().split("\n");
    for (const file of files) {
      const cli = await cliVerify(`${dir}/${file}`);
      if (file.startsWith(".")) {
        // What the killed export left: hidden, unaddressable by any trace name, and never a complete trace.
        assert(/^\.victim-?\d*\.jsonl\.\d+-\d+\.part$/.test(file) || /^\.victim\.jsonl\.\d+-\d+\.part$/.test(file), file);
        assertEquals(cli.code, 1, `${file} must not verify: ${cli.stdout}`);
        assert(/ (truncated|partial_final_line) at line /.test(cli.stderr), cli.stderr);
      } else {
        // The previous file, or a whole export published just before the kill.
        assertEquals(cli.code, 0, `${file}: ${cli.stderr}`);
      }
    }
  }
  // The next export sweeps what killed ones left.
  const after = await run(`"$LIMINA" tests/fixtures/trace_export.ts export 10 && ls -A "$LIMINA_TRACE_DIR"`);
  assertEquals(after.code, 0, after.stderr);
  assert(!after.stdout.includes(".part"), after.stdout);
  await run(`rm -rf "$LIMINA_TRACE_DIR"`);
});

test("a live log (logName) verifies as open while it grows and is sealed when it closes; its name is never reused", async () => {
  const name = named("trace-live");
  const tracer = new Tracer({ logName: name });
  for (let i = 0; i < 3; i++) tracer.emit("test.live", { i });
  await Promise.resolve(); // a live log flushes its batch on a microtask
  tracer.exportJsonl(); // and waits here for the log thread to write it
  const path = traceFile(`${name}.jsonl`);
  const strict = assertThrows(() => readTrace(path), { name: "TraceIntegrityError" }) as TraceIntegrityError;
  assertEquals([strict.reason, strict.line], ["truncated", 4]);
  const open = verifyJsonl(readTraceText(path), { open: true });
  assertEquals([open.status, open.events], ["open", 3]);
  assertEquals(readTrace(path, { open: true }).map((e) => e.integrity!.hash), parseTrace(tracer.exportJsonl()).map((e) => e.integrity!.hash));
  const cliOpen = await cliVerify(path, "--open");
  assertEquals(cliOpen.code, 0, cliOpen.stderr);
  assertEquals(cliOpen.stdout.trim(), `open: 3 events, chain intact so far, not sealed (head hash ${open.headHash})`);
  const cliStrict = await cliVerify(path);
  assertEquals(cliStrict.code, 1);
  assert(cliStrict.stderr.includes("truncated at line 4: no trace.sealed terminator after line 3"), cliStrict.stderr);

  assertThrows(() => new Tracer({ logName: name }), {
    code: "invalid_input",
    message: `trace file ${path} already exists; a live world log never replaces a file (choose another logName)`,
  });
  for (let i = 0; i < 600; i++) tracer.emit("test.live", { i });
  tracer.close();
  const sealed = verifyJsonl(readTraceText(path));
  assertEquals([sealed.status, sealed.events], ["sealed", 603], "closing writes every event and the terminator");
  assertEquals((await cliVerify(path)).code, 0);
});

test("a live log is sealed when its session is disposed; one never closed, or killed, verifies only as open", async () => {
  const dir = `${traceDir()}/live-${RUN}`;
  const run = (script: string) => sh(script, { LIMINA_TRACE_DIR: dir, LIMINA: Limina.execPath });
  const disposed = await run(`"$LIMINA" tests/fixtures/trace_export.ts dispose 1000 disposed`);
  assertEquals(disposed.code, 0, disposed.stderr);
  const sealed = await verifyTraceFile(`${dir}/disposed.jsonl`);
  assertEquals([sealed.status, sealed.events], ["sealed", 1000]);
  // Exiting without closing the log: its events are on disk, but nothing vouches that they are all.
  const exited = await run(`"$LIMINA" tests/fixtures/trace_export.ts exit 1000 unclosed`);
  assertEquals(exited.code, 0, exited.stderr);
  const unclosed = await verifyTraceFile(`${dir}/unclosed.jsonl`, { open: true });
  assertEquals([unclosed.status, unclosed.events], ["open", 1000]);

  // Killed once all 1000 lines are on disk and it has said so (on a busy machine the lines can land before it prints).
  const killed = await run(`
    out=$(mktemp)
    "$LIMINA" tests/fixtures/trace_export.ts hang 1000 killed > "$out" & pid=$!
    until [ "$(wc -l 2>/dev/null < "$LIMINA_TRACE_DIR/killed.jsonl")" = 1000 ] && grep -q filled "$out"; do sleep 0.01; done
    kill -9 $pid; wait $pid; code=$?; cat "$out"; rm -f "$out"; echo "killed: $code"`);
  assertEquals(killed.stdout.trim(), "filled\nkilled: 137", killed.stderr);
  const cut = (await assertRejects(() => verifyTraceFile(`${dir}/killed.jsonl`), { name: "TraceIntegrityError" })) as TraceIntegrityError;
  assertEquals([cut.reason, cut.line], ["truncated", 1001]);
  const open = await verifyTraceFile(`${dir}/killed.jsonl`, { open: true });
  assertEquals([open.status, open.events], ["open", 1000], "every event written before the kill is an intact open prefix");
  // A final line the killed writer never finished is reported by --open, not trusted.
  const torn = await run(`printf '{"id":"half' >> "$LIMINA_TRACE_DIR/killed.jsonl" && "$LIMINA" trace verify --open "$LIMINA_TRACE_DIR/killed.jsonl"`);
  assertEquals(torn.code, 0, torn.stderr);
  assert(torn.stdout.startsWith("open: 1000 events, chain intact so far, not sealed") && torn.stdout.includes("final line of 11 bytes was not checked"), torn.stdout);
  await run(`rm -rf "$LIMINA_TRACE_DIR"`);
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
  // Children live beside the ring: a slot taken by a newer event forgets its old event's children.
  const parent = tracer.emit("parent", {}, { actorId: "x" });
  const kid = tracer.emit("kid", {}, { actorId: "x", causedBy: [parent] });
  assertEquals(tracer.childrenOf(parent).map((e) => e.id), [kid]);
  const next = tracer.emit("next", {}, { actorId: "x" });
  assertEquals(tracer.childrenOf(parent), [], "an evicted event's children are gone from memory");
  assertEquals(tracer.childrenOf(next), [], "the event that took its slot starts with none");
  tracer.close();
});

test("every reader of the recent window answers as the world log does: across flushes, wrap-around and after close", () => {
  let tick = 0;
  const tracer = new Tracer({ tick: () => tick, tailSize: 37 });
  const emitted: string[] = [];
  const types = ["a.one", "b.two", "agent.perception.updated"];
  const actors = ["x", "ÿ-é", "a \"quoted\" one", "system"];
  for (let i = 0; i < 500; i++) {
    tick = Math.floor(i / 3);
    const causedBy = i > 0 && i % 4 === 0 ? [emitted[i - 1], emitted[Math.max(0, i - 30)]] : [];
    // Payloads JSON gives back differently (an undefined field, a typed array, -0, a date): readers get the log's form.
    const payload = { i, text: "é😀\n\u2028", gone: undefined, floats: new Float32Array([0.5, i]), zero: -0, at: new Date(i * 1000) };
    emitted.push(tracer.emit(types[i % 3], payload, { actorId: actors[i % 4], parentEventId: i % 5 === 0 && i > 0 ? emitted[i - 2] : null, causedBy }));
    if (i % 23 === 0) tracer.flush(); // some of the window flushed, the rest pending
    if (i % 41 !== 0 && i < 450) continue;
    const log = tracer.history();
    const recent = log.slice(-37);
    assertEquals(log.length, i + 1);
    assertEquals(tracer.tail(), recent, `tail after ${i + 1}`);
    for (const e of recent) assertEquals(tracer.get(e.id), e);
    assertEquals(tracer.get(emitted[Math.max(0, i - 37)]), i >= 37 ? undefined : log[0], "evicted, or the first");
    assertEquals(tracer.inspect(5).recent, recent.slice(-5));
    for (const actorId of actors) {
      assertEquals(tracer.trace(actorId, tick - 4), recent.filter((e) => e.actorId === actorId && Math.floor(log.indexOf(e) / 3) >= tick - 4));
      assertEquals(tracer.page({ actorId, limit: 3 }).events, recent.filter((e) => e.actorId === actorId).slice(-3));
    }
    const afterSeq = i - 20;
    const paged = tracer.page({ afterSeq, type: "b.two", limit: 4 });
    assertEquals(paged.events, recent.filter((e, k) => e.type === "b.two" && log.length - recent.length + k > afterSeq).slice(0, 4));
    assertEquals(tracer.latestTypes(8, (t) => t !== "agent.perception.updated"), recent.filter((e) => e.type !== "agent.perception.updated").slice(-8).map((e) => e.type));
    for (const e of recent) {
      const kids = recent.filter((k) => k.parentEventId === e.id || k.causedBy.includes(e.id));
      assertEquals(tracer.childrenOf(e.id), kids, "children among recent events");
    }
  }
  const before = { tail: tracer.tail(), page: tracer.page({ limit: 10 }), trace: tracer.trace("x") };
  tracer.close();
  assertEquals({ tail: tracer.tail(), page: tracer.page({ limit: 10 }), trace: tracer.trace("x") }, before, "the window stays readable once the log is closed");
  assertEquals(tracer.get(emitted.at(-1)!)?.id, emitted.at(-1));
});

test("the world log writes an event's line natively, byte for byte as JSON.stringify writes the event", () => {
  const log = new WorldLog({ recent: 1024 });
  const envelopes = [
    { type: "skill.executed", actorId: "bench", threadId: "mcp-1" },
    { type: 'ty"pe\n', actorId: 'a "quoted" é', threadId: "tab\there" },
    { type: "ü.😀", actorId: "lone \ud800 half", threadId: "thread_main" },
  ];
  envelopes.forEach((e, slot) => log.envelope(slot, `,"type":${JSON.stringify(e.type)},"actorId":${JSON.stringify(e.actorId)},"threadId":${JSON.stringify(e.threadId)},"parentEventId":null,"causedBy":`));
  // Clocks where toISOString writes differently: before the epoch, fractions, leap days, years past 9999 or before 0, the ends of time.
  const clocks = [0, -1, 1.5, -1.5, 951_782_400_000, 1_767_225_599_999, Date.now(), 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_000, -62_167_219_200_001, 8.64e15, -8.64e15];
  const payloads = [undefined, { a: [1, 2], s: "é😀\n\u2028 \"q\"" }, "text", null, 42.5, [{ deep: { er: [] } }]];
  const expected: string[] = [];
  for (const ms of clocks) {
    for (const payload of payloads) {
      const n = expected.length;
      const slot = n % envelopes.length;
      const e = envelopes[slot];
      const id = `evt_${e.actorId}_${String(n).padStart(12, "0")}_${fnv1a16(String(n))}`;
      const causedBy = n % 3 === 0 ? [] : ["evt_bench_000000000000_abcd", 'an "odd" cause'].slice(0, n % 3);
      expected.push(JSON.stringify({ id, ...e, parentEventId: null, causedBy, timestamp: new Date(ms).toISOString(), payload }));
      log.event(JSON.stringify(id).slice(1, -1), slot, causedBy.length === 0 ? "" : JSON.stringify(causedBy), ms, payload === undefined ? "" : JSON.stringify(payload));
      if (n % 7 === 6) log.flush(); // some handed to the log's thread, some not yet
    }
  }
  // A whole line, and a replaced envelope.
  expected.push(JSON.stringify({ id: "evt_x", parent: "given whole" }));
  log.line(expected[expected.length - 1]);
  log.envelope(0, `,"type":"t2","actorId":"x","threadId":"y","parentEventId":null,"causedBy":`);
  expected.push('{"id":"evt_x_1","type":"t2","actorId":"x","threadId":"y","parentEventId":null,"causedBy":[],"timestamp":"1970-01-01T00:00:00.007Z","payload":1}');
  log.event("evt_x_1", 0, "", 7, "1");
  const n = expected.length;
  assertEquals(log.recent(0, n), expected);
  assertEquals(log.recent(n - 3, 3), expected.slice(n - 3));
  assertThrows(() => log.event("evt_x_2", 3, "", 0, "1"), { code: "invalid_input", message: "world log envelope 3 was never registered" });
  assertThrows(() => log.envelope(5, "x"), { code: "invalid_input", message: "world log envelope 5 skips slots (the next is 3)" });
  for (const ms of [NaN, 8.64e15 + 1, -Infinity]) assertThrows(() => log.event("evt_x_2", 0, "", ms, "1"), { code: "invalid_input", message: /is not a valid date/ });
  assertThrows(() => log.line("two\nlines"), { code: "invalid_input" });
  assertThrows(() => log.event("evt_x_2", 0, "", 0, '"two\nlines"'), { code: "invalid_input" });
  assertThrows(() => log.envelope(0, ',"type":"two\nlines"'), { code: "invalid_input" });
  assertThrows(() => log.recent(n, 1), { code: "invalid_input" });
  assertEquals(parseTrace(log.jsonl()).map((e) => e.id), expected.map((t) => JSON.parse(t).id), "a refused event records nothing; the lines seal into one trace");
  log.close();
});

test("each event's text is exactly JSON.stringify of the event, however it is written", () => {
  const tracer = new Tracer({ tailSize: 4096 });
  const seen = new Map<string, unknown>();
  tracer.subscribe((e) => seen.set(e.id, e));
  const ids: string[] = [];
  const actors = ["x", "ÿ-é", 'a "quoted" one', "lone \ud800 half", "tab\there", "system"];
  const threads = ["t1", 'th"read', "thread_main"];
  const payloads: unknown[] = [
    { i: 1, text: "é😀\n\u2028 \"q\" \\", gone: undefined, floats: new Float32Array([0.5, 2]), zero: -0, at: new Date(5000), nan: NaN, nested: [{ a: [1, null, undefined] }] },
    undefined,
    () => 1,
    new Date(7000),
    { toJSON: (key: string) => ({ key }) },
    "a string",
    null,
    42.5,
    [1, "two", { three: 3 }],
  ];
  // One type, one actor, threads by turns; one type, one thread, actors by turns.
  for (const threadId of [...threads, ...threads]) ids.push(tracer.emit("one.actor", { threadId }, { actorId: "x", threadId }));
  for (const actorId of [...actors, ...actors]) ids.push(tracer.emit("one.thread", { actorId }, { actorId, threadId: "t1" }));
  let n = 0;
  for (let round = 0; round < 3; round++) {
    for (const payload of payloads) {
      for (const actorId of actors) {
        const threadId = threads[n % threads.length];
        const parentEventId = n % 7 === 3 ? ids[ids.length - 1] : null;
        const causedBy = n % 5 === 2 ? [ids[ids.length - 1], ids[0]] : undefined;
        // The same type by turns of actors and threads: its envelope is made again each time they change.
        ids.push(tracer.emit(n % 2 === 0 ? "same.type" : `type.${n % 3}`, payload, { actorId, threadId, parentEventId, causedBy }));
        n++;
        if (n % 17 === 0) tracer.flush(); // some read back from the log, some still pending
      }
    }
  }
  // A given payload text is used as is (the policy engine's decisions).
  ids.push(tracer.emit("given.text", { a: [1, 2] }, { actorId: "x" }, '{"a":[1,2]}'));
  // More types than the envelope cache keeps.
  for (let t = 0; t < 1100; t++) ids.push(tracer.emit(`many.t${t}`, { t }, { actorId: t % 2 ? "x" : "y" }));
  for (const id of ids) assertEquals(JSON.stringify(tracer.get(id)), JSON.stringify(seen.get(id)), `the text of ${id}`);
  const first = 2 * (threads.length + actors.length);
  assertEquals(tracer.get(ids[first + actors.length])?.payload, undefined, "an undefined payload is left out, as JSON.stringify leaves it");
  assertEquals(JSON.stringify(tracer.get(ids[first + 4 * actors.length])?.payload), '{"key":"payload"}', "a payload's own toJSON is told its key");
  const size = tracer.size;
  assertThrows(() => tracer.emit("bad", { n: 1n }), { name: "TypeError" });
  assertEquals(tracer.size, size, "a payload JSON cannot hold records nothing");
  assertEquals(tracer.history().length, size);
  tracer.close();
});

test("listening says whether an event recorded now reaches a listener, as delivery does", () => {
  const tracer = new Tracer();
  assertEquals(tracer.listening, false, "no listener");
  let on = false;
  const got: string[] = [];
  const off = tracer.subscribe((e) => got.push(e.id), () => on);
  assertEquals(tracer.listening, false, "one that wants nothing now");
  tracer.emit("t.quiet", {});
  on = true;
  assertEquals(tracer.listening, true, "one that wants events now");
  const heard = tracer.emit("t.heard", {});
  off();
  assertEquals(tracer.listening, false, "unsubscribed");
  const always = tracer.subscribe(() => {});
  assertEquals(tracer.listening, true, "one that always listens");
  always();
  assertEquals(got, [heard], "delivered exactly when listening");
});

test("this run's trace files are removed", async () => {
  const rm = await sh(`rm -rf "${traceDir()}"/*${RUN}*`);
  assertEquals(rm.code, 0, rm.stderr);
});
