// limina: --deterministic waits
// The static player, `limina export-web`: its SHA-256 and chain check (run
// in the browser, without WebCrypto) agree with limina-trace's native ones on
// intact and damaged logs; the export refuses a missing or broken trace and
// an --out it cannot or must not write, leaving nothing behind; and in real
// headless Chromium (js/test/node/web_export.mjs) the exported folder, served
// by a plain static file server, plays, pauses, seeks to the positions the
// native replay of the trace gives for that tick, and refuses a log with one
// byte changed or one line removed, saying so, with nothing played.
import { canonicalJson, type EngineEvent, parseTrace, readTraceText, replay, saveWorld, sha256, sha256Hex, traceDir, TraceIntegrityError, verifyJsonl, verifyLog, waitSteps, WorldSession } from "limina";
import { assert, assertEquals, test } from "limina/testing";
import { drive } from "./support/drivers.ts";

const run = (cmd: string, ...args: string[]) => Limina.run({ cmd, args });
const exportWeb = (...args: string[]) => run(Limina.execPath, "export-web", ...args);
const scratch = `/tmp/limina-web-export-${Date.now()}`;

/** A recorded world: a floor, spheres falling and bouncing, an impulse, a move, one destroyed, and a humanoid walking then stopping (the last id). */
async function recordTrace(name: string): Promise<{ trace: string; ids: string[] }> {
  const session = new WorldSession({ checkpointEvery: 30 });
  const mcp = session.mcp();
  mcp.initialize({ agentId: "recorder", sessionId: "sess_export", profile: "builder.readWrite" });
  const call = <T = { entity: string }>(tool: string, input: Record<string, unknown>) => mcp.mustCall<T>(tool, input);
  const ids = [(await call("scene.createEntity", { shape: "box", size: [30, 1, 30], position: [0, -0.5, 0], color: 0x707070, static: true })).entity];
  for (let i = 0; i < 4; i++) {
    ids.push((await call("scene.createEntity", { shape: "sphere", size: 1, position: [i * 1.5 - 2, 3 + i, 0], color: 0x2060ff, dynamic: true, restitution: 0.6 })).entity);
    await waitSteps(7);
  }
  const walker = (await call<{ entityId: string }>("character.spawn", { position: [0, 0, 5], appearance: { shirt: 0xcc3333 } })).entityId;
  await call("physics.applyImpulse", { entity: ids[2], impulse: [1.5, 2, 0] });
  await call("character.move", { entityId: walker, direction: [1, 0], speed: 1.4 });
  await waitSteps(40);
  await call("three.setTransform", { entity: ids[3], position: [4, 5, 1] });
  await waitSteps(50);
  await call("character.move", { entityId: walker, direction: [1, 0], speed: 0 });
  await call("scene.destroyEntity", { entity: ids[4] });
  await waitSteps(40);
  const exported = await call<{ name: string }>("trace.export", { name });
  session.dispose();
  return { trace: `${traceDir()}/${exported.name}`, ids: [...ids, walker] };
}

/** The transform rows ([px,py,pz,rx,ry,rz,rw,sx,sy,sz]) of every entity, and each character's animation state, when `limina replay --until tick` stops. */
async function replayedAt(events: EngineEvent[], tick: number): Promise<{ rows: Record<string, number[]>; animations: Record<string, unknown> }> {
  const session = new WorldSession({ simulate: false, checkpointEvery: 0 });
  const result = await replay(session, events, { until: tick });
  assert(result.ok && result.tick === tick, JSON.stringify(result));
  const w = session.entities.world;
  const rows: Record<string, number[]> = {};
  for (const e of w.entities.entries()) {
    const i = e.eid;
    rows[e.id] = [w.Position.x[i], w.Position.y[i], w.Position.z[i], w.Rotation.x[i], w.Rotation.y[i], w.Rotation.z[i], w.Rotation.w[i], w.Scale.x[i], w.Scale.y[i], w.Scale.z[i]];
  }
  const animations = Object.fromEntries(session.characters.list().map((c) => [c.entity.id, c.animator.save()]));
  session.dispose();
  return { rows, animations };
}

const write = (path: string, text: string) => Limina.run({ cmd: "sh", args: ["-c", 'cat > "$0"', path], stdin: text });

/** The reason (and line) the native check gives, or "ok". */
function nativeVerdict(text: string): string {
  try {
    verifyJsonl(text);
    return "ok";
  } catch (e) {
    if (e instanceof TraceIntegrityError) return `${e.reason}@${e.line}`;
    throw e;
  }
}

test("the player's own SHA-256 equals limina-trace's, and its chain check agrees with the native one on intact and damaged logs", async () => {
  const bytes = new Uint8Array(200_003);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
  // Every padding case around the 64-byte block (55, 56, 63, 64, 119, 120 …) and a long input.
  for (const n of [...Array(140).keys(), 1000, 4096, bytes.length]) {
    const data = bytes.subarray(0, n);
    assertEquals(`sha256:${sha256Hex(data)}`, sha256(data), `${n} bytes`);
  }
  // Canonical JSON as the chain defines it: keys sorted by UTF-16 code units ("10" before "9"), JSON.stringify's numbers and escapes.
  assertEquals(canonicalJson(JSON.parse('{"b":1,"a":[{"z":1e21,"y":-0,"9":0.1},"\\u2028é\\ud800"],"10":null}')), '{"10":null,"a":[{"9":0.1,"y":0,"z":1e+21},"\u2028é\\ud800"],"b":1}');

  const { trace } = await recordTrace("web-export-chain");
  const text = readTraceText(trace);
  const lines = text.split("\n").slice(0, -1);
  const intact = verifyLog(text);
  assert(intact.ok, JSON.stringify(intact));
  assertEquals(intact.headHash, verifyJsonl(text).headHash);
  assertEquals(intact.events.length, verifyJsonl(text).events);
  const damaged: Record<string, string> = {
    "one byte changed": text.replace('"position":[4,5,1]', '"position":[4,6,1]'),
    "a line removed": [...lines.slice(0, 5), ...lines.slice(6)].join("\n") + "\n",
    "two lines swapped": [...lines.slice(0, 3), lines[4], lines[3], ...lines.slice(5)].join("\n") + "\n",
    "the terminator removed": lines.slice(0, -1).join("\n") + "\n",
    "a line after the terminator": text + lines[2] + "\n",
    "a cut final line": text.slice(0, -10),
    "not JSON": text.replace("{", "{{"),
    "an integrity field dropped": text.replace(/,"integrity":\{[^}]*\}/, ""),
    empty: "",
  };
  for (const [what, t] of Object.entries(damaged)) {
    assert(t !== text, what);
    const mine = verifyLog(t);
    assert(!mine.ok, `${what}: the player accepted it`);
    assertEquals(`${mine.reason}@${mine.line}`, nativeVerdict(t), what);
  }
  await run("rm", trace);
});

test("limina export-web refuses a missing or broken trace and an --out it cannot or must not write, and leaves nothing behind", async () => {
  const { trace } = await recordTrace("web-export-refusals");
  await run("mkdir", "-p", scratch);
  const missing = await exportWeb(`${scratch}/no-such.jsonl`, "--out", `${scratch}/a`);
  assertEquals(missing.code, 1, missing.stdout);
  assert(missing.stderr.includes("refusing") && missing.stderr.includes("no-such.jsonl"), missing.stderr);
  const broken = `${scratch}/broken.jsonl`;
  await write(broken, readTraceText(trace).replace('"position":[4,5,1]', '"position":[4,6,1]'));
  const refused = await exportWeb(broken, "--out", `${scratch}/b`);
  assertEquals(refused.code, 1, refused.stdout);
  assert(refused.stderr.includes("hash_mismatch"), refused.stderr);
  await run("mkdir", "-p", `${scratch}/taken`);
  await write(`${scratch}/taken/keep.txt`, "mine");
  const taken = await exportWeb(trace, "--out", `${scratch}/taken`);
  assertEquals(taken.code, 1, taken.stdout);
  assert(taken.stderr.includes("exists and is not empty"), taken.stderr);
  const unwritable = await exportWeb(trace, "--out", `${scratch}/broken.jsonl/player`);
  assertEquals(unwritable.code, 1, unwritable.stdout);
  assert(unwritable.stderr.includes("cannot write") && unwritable.stderr.includes("nothing written"), unwritable.stderr);
  // Only what the test made: no half-written folder, no staging left beside it.
  assertEquals((await run("ls", "-A", scratch)).stdout.split("\n").filter((l) => l !== "").sort(), ["broken.jsonl", "taken"]);
  assertEquals((await run("ls", "-A", `${scratch}/taken`)).stdout.trim(), "keep.txt");
  await run("rm", "-r", scratch, trace);
});

test("export-web --snapshot S records from the snapshot's tick: a first keyframe of the restored world, ending at the recorded digest", async () => {
  const session = new WorldSession({ checkpointEvery: 15 });
  const mcp = session.mcp();
  mcp.initialize({ agentId: "recorder", sessionId: "sess_export_snap", profile: "builder.readWrite" });
  const call = (tool: string, input: Record<string, unknown>) => mcp.mustCall<{ entity: string }>(tool, input);
  const before = [
    (await call("scene.createEntity", { shape: "box", size: 30, position: [0, -15, 0], static: true })).entity,
    (await call("scene.createEntity", { shape: "sphere", size: 1, position: [0, 2, 0], dynamic: true })).entity,
  ];
  await waitSteps(40);
  await run("mkdir", "-p", scratch);
  const world = `${scratch}/before.world`;
  // The snapshot is taken as saveWorld is called; the world steps on while the file is written.
  const savedAt = session.tick;
  await saveWorld(session, world);
  await call("scene.createEntity", { shape: "box", size: 0.7, position: [1, 4, 0], dynamic: true });
  await waitSteps(30);
  const exported = await mcp.mustCall<{ name: string }>("trace.export", { name: "web-export-snapshot" });
  const trace = `${traceDir()}/${exported.name}`;
  const final = parseTrace(readTraceText(trace)).filter((e) => e.type === "world.checkpoint").at(-1)!.payload as { tick: number; digest: string };
  session.dispose();
  const made = await exportWeb(trace, "--snapshot", world, "--out", `${scratch}/from-snapshot`);
  assertEquals(made.code, 0, made.stderr);
  const [header, ...stream] = readTraceText(`${scratch}/from-snapshot/recording.jsonl`).split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
  assertEquals([header.firstTick, header.lastTick, header.digest], [savedAt, final.tick, final.digest]);
  const first = stream.find((m) => m.method === "state/snapshot");
  assertEquals(first.params.tick, savedAt, "the first keyframe is at the snapshot's tick");
  const kept = first.params.entities.map((e: { entity: string }) => e.entity);
  assert(before.every((id) => kept.includes(id)), `the first keyframe holds the world the snapshot restored (${kept})`);
  const missing = await exportWeb(trace, "--snapshot", `${world}.missing`, "--out", `${scratch}/no`);
  assertEquals(missing.code, 1);
  assert(missing.stderr.includes("cannot restore") && missing.stderr.includes("no world file"), missing.stderr);
  await run("rm", "-r", scratch, trace);
});

test("the exported player, from a static file server in headless Chromium, plays, pauses, seeks to the replayed positions of a tick, and refuses a tampered log", async () => {
  const { trace, ids } = await recordTrace("web-export-player");
  const good = `${scratch}/good`;
  await run("mkdir", "-p", scratch);
  const made = await exportWeb(trace, "--out", good);
  assertEquals(made.code, 0, made.stderr);
  assert(made.stdout.includes("exported ticks 0–") && made.stdout.includes("python3 -m http.server"), made.stdout);
  const files = (await run("sh", "-c", 'cd "$0" && find . -type f | sort', good)).stdout.trim().split("\n");
  for (const f of ["./index.html", "./page.js", "./page.css", "./config.json", "./world.jsonl", "./recording.jsonl", "./hdri/studio.exr"]) assert(files.includes(f), `${f} in ${files}`);
  const text = readTraceText(trace);
  assertEquals(readTraceText(`${good}/world.jsonl`), text, "the folder holds the world log as it was");

  // Tampered copies: one byte of a payload changed; one line removed.
  const lines = text.split("\n");
  for (const [name, log] of [["byte", text.replace('"position":[4,5,1]', '"position":[4,5,2]')], ["line", [...lines.slice(0, 7), ...lines.slice(8)].join("\n")]]) {
    assert(log !== text, name);
    await run("cp", "-r", good, `${scratch}/${name}`);
    await write(`${scratch}/${name}/world.jsonl`, log);
  }

  // What the native replay of the trace gives at a few ticks, the later one after the destroy, then one earlier (a backward seek).
  const events = parseTrace(text);
  const last = Number(/exported ticks 0–(\d+)/.exec(made.stdout)![1]);
  const ticks = [Math.floor(last * 0.3), last - 5, 37];
  const expected = [];
  for (const tick of ticks) expected.push({ tick, ...(await replayedAt(events, tick)) });
  assert(!(ids[4] in expected[1].rows) && ids[4] in expected[0].rows, "the destroyed sphere is gone by the later tick");
  const walker = ids[5];
  const states = expected.map((e) => (e.animations[walker] as { state: string }).state);
  assertEquals(states, ["locomotion", "idle", "locomotion"], "the humanoid walks at the first and last ticks seeked, and stands at the second");
  await write(`${scratch}/expected.json`, JSON.stringify(expected));

  const out = await drive("node", "js/test/node/web_export.mjs", scratch, `${scratch}/expected.json`);
  assert((out.checks as number) >= 20, JSON.stringify(out));
  await run("rm", "-r", scratch, trace);
});
