// `limina --mcp-stdio` on a headless machine (no display, no
// XDG_RUNTIME_DIR) driven as a standard MCP client drives it: tools/list and
// ordinary calls never start the GPU driver — read from the process's own
// memory map, where a started WebGPU instance maps the Vulkan loader and its
// driver — and the first render.capture starts it, works, and reports what
// starting it cost. stderr stays empty: an MCP client spawns the server with
// stderr piped, and a start-up line would only be noise in its log.
// Usage: node lazy_gpu.mjs <limina>   (last line: a JSON summary)
import { readFileSync } from "node:fs";
import { connectStdio } from "./stdio_rpc.mjs";

const limina = process.argv[2];
const env = { ...process.env };
for (const name of ["XDG_RUNTIME_DIR", "WAYLAND_DISPLAY", "DISPLAY", "DENO_WEBGPU_BACKEND"]) delete env[name];
const { child, call, notify, close, stderr } = connectStdio(limina, ["--mcp-stdio"], { env });
const fail = (msg) => {
  console.error(`FAIL: ${msg}\nstderr:\n${stderr()}`);
  child.kill();
  process.exit(1);
};
const tool = async (name, args) => {
  const r = await call("tools/call", { name, arguments: args });
  if (!r.result || r.result.isError) fail(`${name}: ${JSON.stringify(r)}`);
  return r.result;
};
/** The GPU driver libraries this process has mapped: the Vulkan loader, a Vulkan or EGL driver. */
const gpuLibraries = () => [...new Set(readFileSync(`/proc/${child.pid}/maps`, "utf8").split("\n").map((l) => l.split(/\s+/)[5] ?? "").filter((p) => /libvulkan|libEGL|libGLX|_dri\.so|libgallium|libvulkan_lvp/.test(p)))];
const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))[1]) / 1024;

const init = await call("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "lazy-gpu", version: "1.0.0" } });
if (init.result?.serverInfo?.name !== "limina") fail(`initialize: ${JSON.stringify(init)}`);
notify("notifications/initialized");
// Every page of the listing (standard tools/list is paginated).
const tools = [];
for (let cursor; ;) {
  const page = (await call("tools/list", cursor === undefined ? {} : { cursor })).result;
  tools.push(...page.tools);
  if ((cursor = page.nextCursor) === undefined) break;
}
if (!tools.some((t) => t.name === "render.capture")) fail("render.capture is offered where a driver is installed");
const made = await tool("scene.createEntity", { color: 0xff0000, position: [0, 0, 0] });
const found = await tool("scene.queryEntities", { near: [0, 0, 0], radius: 1 });
if (!found.structuredContent.entities.some((e) => e.entity === made.structuredContent.entity)) fail("the query finds the entity");
const before = gpuLibraries();
if (before.length > 0) fail(`the GPU driver was loaded before anything rendered: ${before.join(", ")}`);
const idleRssMiB = rssMiB();

const first = await tool("render.capture", { width: 64, height: 48, camera: { position: [0, 0, 4], target: [0, 0, 0] } });
const image = first.content.find((c) => c.type === "image");
if (image?.mimeType !== "image/png" || !Buffer.from(image.data, "base64").subarray(1, 4).equals(Buffer.from("PNG"))) fail("the first capture is a PNG");
const gpuStartMs = first.structuredContent.gpuStartMs;
if (!(typeof gpuStartMs === "number" && gpuStartMs > 0)) fail(`the first capture says what starting the GPU cost: ${JSON.stringify(first.structuredContent)}`);
const after = gpuLibraries();
if (!after.some((p) => /libvulkan/.test(p))) fail(`the capture started WebGPU on Vulkan: ${after.join(", ")}`);
const second = await tool("render.capture", { width: 64, height: 48 });
if ("gpuStartMs" in second.structuredContent) fail("only the capture that started the device reports it");

await close();
if (child.exitCode !== 0) fail(`exit ${child.exitCode}`);
if (stderr() !== "") fail("stderr stays empty: no start-up line, no driver noise");
console.log(JSON.stringify({ ok: true, tools: tools.length, idleRssMiB: +idleRssMiB.toFixed(1), gpuStartMs, librariesAfterCapture: after.length }));
