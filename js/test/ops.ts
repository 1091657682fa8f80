// limina: --bench-ops
// limina-ops conventions seen from JS, through the benchmark-only reference
// ops (`benchOps()`, registered by `--bench-ops`): fast ops, zero-copy
// buffers, structured errors; and the native base64 the engine uses.
import { base64 } from "limina";
import { benchOps } from "limina/bench";
import { assert, assertAlmostEquals, assertEquals, assertThrows, test } from "limina/testing";

const ops = benchOps();

test("fast numeric op", () => {
  assertEquals(ops.op_limina_add(2, 40), 42);
  ops.op_limina_noop();
  // Enough calls for V8 to switch to the fast-call path.
  let s = 0;
  for (let i = 0; i < 20_000; i++) s = ops.op_limina_add(s, 1);
  assertEquals(s, 20_000);
});

test("a native op scales a Float32Array in place, no copy", () => {
  const data = new Float32Array(1 << 20);
  for (let i = 0; i < data.length; i++) data[i] = i;
  const buffer = data.buffer;
  ops.op_limina_scale_f32(data, 0.5);
  // Same object, same backing store, new values.
  assert(data.buffer === buffer, "the ArrayBuffer must be the same object");
  assertEquals(data.buffer.byteLength, 4 << 20);
  assertEquals(data[0], 0);
  assertEquals(data[7], 3.5);
  assertEquals(data[(1 << 20) - 1], ((1 << 20) - 1) / 2);
  // A view into the middle of a buffer writes through to the shared memory.
  const window = new Float32Array(buffer, 4 * 10, 4);
  ops.op_limina_scale_f32(window, 2);
  assertEquals(data[9], 4.5);
  assertEquals(Array.from(data.subarray(10, 14)), [10, 11, 12, 13]);
  assertEquals(data[14], 7);
});

test("fast-path calls keep writing in place", () => {
  const data = new Float32Array([1, 2, 3, 4]);
  for (let i = 0; i < 20_000; i++) ops.op_limina_scale_f32(data, 1);
  ops.op_limina_scale_f32(data, 3);
  assertEquals(Array.from(data), [3, 6, 9, 12]);
  assertAlmostEquals(ops.op_limina_sum_f32(data), 30);
});

test("structured errors are catchable with a stable code", () => {
  const data = new Float32Array([1, 2]);
  const e = assertThrows(() => ops.op_limina_scale_f32(data, NaN), {
    name: "LiminaError",
    code: "invalid_input",
    message: "scale factor must be finite",
  });
  assert(e instanceof LiminaError, "native errors are LiminaError instances");
  // A failed op changes nothing.
  assertEquals(Array.from(data), [1, 2]);
});

test("a buffer of the wrong element type is a TypeError, not reinterpreted", () => {
  assertThrows(() => ops.op_limina_sum_f32(new Uint8Array(8) as unknown as Float32Array), { name: "TypeError" });
  assertThrows(() => ops.op_limina_scale_f32([1, 2, 3] as unknown as Float32Array, 2), { name: "TypeError" });
});

test("JSON round trip", () => {
  const payload = { id: "ent_1", pos: [1.5, -2, 3], tags: ["a", "b"], nested: { ok: true, n: null } };
  assertEquals(ops.op_limina_echo_json(payload), payload);
});

test("base64 of a typed array's bytes, exactly", () => {
  assertEquals(base64(new Uint8Array([])), "");
  assertEquals(base64(new TextEncoder().encode("limina")), "bGltaW5h");
  assertEquals(base64(Uint8Array.of(0xff, 0xfe)), "//4=");
  assertEquals(base64(Float32Array.of(1)), "AACAPw==", "float32 1.0, little-endian");
  const view = new Uint8Array([9, 1, 2, 3, 9]).subarray(1, 4);
  assertEquals(base64(view), "AQID", "only the view's bytes");
});

test("without --bench-ops the bench ops are absent and benchOps() says so with `unavailable`", async () => {
  const bare = await Limina.run({ cmd: Limina.execPath, args: ["tests/fixtures/bench_ops.ts"] });
  assertEquals(bare.code, 0, bare.stderr);
  assert(bare.stdout.startsWith("LiminaError unavailable: ") && bare.stdout.includes("--bench-ops"), bare.stdout);
  const flagged = await Limina.run({ cmd: Limina.execPath, args: ["--bench-ops", "tests/fixtures/bench_ops.ts"] });
  assertEquals(flagged.code, 0, flagged.stderr);
  assertEquals(flagged.stdout, "available: 2 + 40 = 42\n");
});
