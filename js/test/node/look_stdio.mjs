// The look over MCP stdio with the official TypeScript SDK, on a fresh
// binary: the six look skills are listed; a floor and a sphere are made;
// captures with every post pass off and with AO + bloom + AA on, at two sun
// elevations, and of the untouched default (the sky). Prints a JSON summary
// with the PNGs (base64) for the suite to measure.
// Usage: node js/test/node/look_stdio.mjs <path-to-limina>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { allTools } from "./sdk_tools.mjs";

const limina = process.argv[2];
const fail = (msg) => {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
};

const transport = new StdioClientTransport({ command: limina, args: ["--mcp-stdio"], env: process.env, stderr: "inherit" });
const client = new Client({ name: "look-stdio-test", version: "1.0.0" });
await client.connect(transport);

const { tools } = await allTools(client);
const LOOK = ["render.setEnvironment", "render.setPost", "render.setQuality", "render.getSettings", "material.list", "material.apply"];
const missing = LOOK.filter((n) => !tools.some((t) => t.name === n && t.inputSchema?.type === "object"));
if (missing.length) fail(`not listed: ${missing.join(", ")}`);

const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) fail(`${name}: ${JSON.stringify(r.content)}`);
  return r;
};
const capture = async (camera) => {
  const r = await call("render.capture", { width: 256, height: 144, camera });
  const image = r.content.find((c) => c.type === "image");
  if (image?.mimeType !== "image/png") fail(`render.capture gave no PNG: ${JSON.stringify(r.content).slice(0, 200)}`);
  return image.data;
};

// The default look, untouched: looking toward the horizon.
const sky = await capture({ position: [0, 1, 0], target: [0, 1.6, -5] });

const floor = (await call("scene.createEntity", { shape: "box", size: 1, position: [0, -0.1, 0], static: true, color: 0xb0aca4 })).structuredContent.entity;
await call("three.setTransform", { entity: floor, scale: [30, 0.2, 30] });
await call("three.setMaterial", { entity: floor, receiveShadow: true });
const ball = (await call("scene.createEntity", { shape: "sphere", size: 1, position: [0, 0.5, 0], color: 0xc8302a })).structuredContent.entity;
await call("three.setMaterial", { entity: ball, castShadow: true });
await call("three.setLighting", { castShadow: true });
const camera = { position: [0, 1.6, 3.2], target: [0, 0.4, 0] };

await call("render.setPost", { ao: false, bloom: false, antialias: "none", grade: false, dof: false });
const off = await capture(camera);
await call("render.setPost", { ao: true, bloom: true, antialias: "fxaa" });
const on = await capture(camera);
await call("render.setEnvironment", { sunElevation: 65 });
const high = await capture(camera);
await call("render.setEnvironment", { sunElevation: 8 });
const low = await capture(camera);
const settings = (await call("render.getSettings", {})).structuredContent;
await client.close();
console.log(JSON.stringify({ ok: true, tools: tools.length, settings, sky, off, on, high, low }));
