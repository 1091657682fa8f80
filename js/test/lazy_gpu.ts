// The lazy GPU: nothing starts WebGPU (the Vulkan loader, its driver) until
// something renders, and starting it is quiet. An MCP server answering
// tools/list and ordinary calls never maps a GPU driver; its first
// render.capture starts one, works, and says what that cost; runs that
// render (a screenshot, a module asking for an adapter) print no driver
// noise on a headless machine — no display, no XDG_RUNTIME_DIR.
import { assert, assertEquals, test } from "limina/testing";
import { drive } from "./support/drivers.ts";

/** Runs the binary as on a headless machine: no display, no session runtime directory. */
function headless(args: string[]) {
  return Limina.run({ cmd: "env", args: ["-u", "XDG_RUNTIME_DIR", "-u", "WAYLAND_DISPLAY", "-u", "DISPLAY", "-u", "DENO_WEBGPU_BACKEND", Limina.execPath, ...args] });
}

test("--mcp-stdio: tools/list and calls never start the GPU driver; the first render.capture does, works and reports it; stderr stays clean", async () => {
  const out = await drive("node", "js/test/node/lazy_gpu.mjs");
  assert((out.gpuStartMs as number) > 0, JSON.stringify(out));
});

test("a run that renders a screenshot prints its own line and no driver noise", async () => {
  const dir = (await Limina.run({ cmd: "mktemp", args: ["-d", "/tmp/limina-lazy-gpu-XXXXXX"] })).stdout.trim();
  const r = await headless(["demo", "billiards", "--frames", "2", "--size", "96x64", "--screenshot", `${dir}/shot.png`]);
  assertEquals(r.code, 0, r.stderr);
  const lines = r.stderr.split("\n").filter((l) => l !== "");
  assertEquals(lines.length, 1, r.stderr);
  assert(lines[0].startsWith(`limina: wrote ${dir}/shot.png (96×64, frame 2, `), r.stderr);
  await Limina.run({ cmd: "rm", args: ["-rf", dir] });
});

test("a module asking for an adapter and a device gets them quietly", async () => {
  const r = await headless(["tests/fixtures/gpu_device.ts"]);
  assertEquals(r.code, 0, r.stderr);
  assertEquals(r.stderr, "", "nothing on stderr");
  const report = JSON.parse(r.stdout.trim());
  assert(report.adapter.length > 0 && report.mapped === 16, r.stdout);
});
