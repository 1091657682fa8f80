// The spectator page in real headless Chromium: `limina --mcp-ws` serves it
// (exact content types, a strict CSP, Host/Origin checks), the page connects
// as a spectator without a token, draws the world's entities (checked in
// the screenshot's pixels) and follows changes live; what the page crafts
// to write is refused and changes nothing.
// Usage: node js/test/node/web_page.mjs <path-to-limina>
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import http from "node:http";
import WebSocket from "ws";
import { launchChromium } from "./browser.mjs";
import { checker, startServer, startWsServer, wsPeer } from "./ws_server.mjs";

const limina = process.argv[2];
// The page draws at the `low` tier; so does the server's render.capture (the SSIM check).
const { server, port } = await startWsServer(limina, ["--quality", "low"], "ignore");
const { check, fail, checks } = checker(server);
const base = `http://127.0.0.1:${port}`;

/** A raw GET (node's http sends exactly the headers given). */
function get(path, headers = {}, method = "GET") {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

// ---- the files, their types and the CSP ----------------------------------------
const index = await get("/");
check(index.status === 200 && index.headers["content-type"] === "text/html; charset=utf-8", `GET / is the page as text/html (${index.status} ${index.headers["content-type"]})`);
check(index.body.toString().includes('<script type="module" src="page.js">'), "the page loads its one module");
const csp = index.headers["content-security-policy"] ?? "";
check(csp.includes("default-src 'none'") && csp.includes("script-src 'self'") && !csp.includes("unsafe-inline") && !csp.includes("unsafe-eval"), `a strict CSP: ${csp}`);
check(csp.includes(`connect-src 'self' ws://127.0.0.1:${port}`), "the CSP lets the page connect back to its own server only");
check(index.headers["x-content-type-options"] === "nosniff" && index.headers["x-frame-options"] === "DENY", "nosniff, no framing");
const js = await get("/page.js");
check(js.status === 200 && js.headers["content-type"] === "text/javascript; charset=utf-8" && js.body.length > 100_000, "the bundle is served as JavaScript");
const css = await get("/page.css");
check(css.status === 200 && css.headers["content-type"] === "text/css; charset=utf-8", "the stylesheet as CSS");
const exr = await get("/hdri/studio.exr", {}, "HEAD");
check(exr.status === 200 && exr.headers["content-type"] === "image/x-exr" && exr.body.length === 0, "HEAD of an HDRI: its type, no body");
const config = JSON.parse((await get("/config.json")).body.toString());
check(config.server === "world" && config.wsPort === port && config.token === false, `config.json: ${JSON.stringify(config)}`);
check((await get("/secret")).status === 404, "an unknown path is 404");
check((await get("/", {}, "POST")).status === 405, "POST to the page is 405");
check((await get("/", { Origin: "http://evil.example" })).status === 403, "a foreign Origin is refused (403)");
check((await get("/", { Host: "evil.example" })).status === 403, "a non-loopback Host (DNS rebinding) is refused (403)");

// ---- who may connect, and as whom ------------------------------------------------
const foreign = await new Promise((resolve) => {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`, { headers: { Origin: "http://evil.example" } });
  ws.on("unexpected-response", (_req, res) => resolve(res.statusCode));
  ws.on("open", () => resolve("open"));
  ws.on("error", () => resolve("error"));
});
check(foreign === 403, `a WebSocket from a foreign Origin is refused (${foreign})`);
const browserLike = new WebSocket(`ws://127.0.0.1:${port}/`, ["limina.v1"], { headers: { Origin: base } });
await new Promise((resolve, reject) => {
  browserLike.on("open", resolve);
  browserLike.on("error", reject);
});
check(browserLike.protocol === "limina.v1", "the page's subprotocol is agreed");
const ask = (ws, id, method, params) =>
  new Promise((resolve) => {
    const on = (data) => {
      const msg = JSON.parse(data.toString());
      if (msg.id !== id) return;
      ws.off("message", on);
      resolve(msg);
    };
    ws.on("message", on);
    ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  });
const asBuilder = await ask(browserLike, 1, "initialize", { agentId: "sneaky", sessionId: "s1", profile: "builder.readWrite" });
check(asBuilder.error && /spectator/.test(asBuilder.error.message), `a browser without a token cannot take a builder profile: ${JSON.stringify(asBuilder.error)}`);
browserLike.close();

// ---- the world: a builder makes it --------------------------------------------------
const builder = await wsPeer(port);
const init = await builder.call("initialize", { agentId: "builder", sessionId: "b", profile: "builder.readWrite" });
if (!init.result?.session) fail(`builder initialize: ${JSON.stringify(init)}`);
const make = async (args) => (await builder.call("tools/call", { name: "scene.createEntity", arguments: args })).result.result.entity;
const count = async () => (await builder.call("tools/call", { name: "scene.queryEntities", arguments: {} })).result.result.entities.length;
await make({ shape: "box", size: 30, color: 0x808080, position: [0, -15, 0], static: true });
const red = await make({ shape: "box", size: 2, color: 0xff0000, position: [0, 1, 0] });
await make({ shape: "sphere", size: 1.5, color: 0x0000ff, position: [-3, 0.75, 3] });
check((await count()) === 3, "the server holds 3 entities");

// ---- the page, in Chromium ------------------------------------------------------------
// Small, for software rendering on a loaded machine; larger when a picture is kept.
const browser = await launchChromium(process.env.LIMINA_WEB_SCREENSHOT ? { width: 800, height: 450 } : { width: 320, height: 240 });
const page = await browser.open(`${base}/`);
const state = "globalThis.limina?.state()";
const first = await page.waitFor(`(() => { const s = ${state}; return s && s.status.startsWith("watching") && s.entities === 3 && s.objects === 3 && s.frames > 0 ? s : null })()`, "the page to draw the world");
check(first.backend === "webgl2", `the page draws with three's WebGL2 backend here (${first.backend})`);
check(first.entities === (await count()), "the page shows the server's entity count");

/** Pixels that are clearly `red` or `blue`, and where the red ones are. */
function look(shot) {
  let reds = 0;
  let blues = 0;
  let rx = 0;
  let distinct = new Set();
  for (let i = 0; i < shot.rgba.length; i += 4) {
    const [r, g, b] = [shot.rgba[i], shot.rgba[i + 1], shot.rgba[i + 2]];
    distinct.add((r >> 4) * 256 + (g >> 4) * 16 + (b >> 4));
    if (r > 120 && r > 2 * g && r > 2 * b) {
      reds++;
      rx += (i / 4) % shot.width;
    }
    if (b > 100 && b > 1.6 * r && b > 1.4 * g) blues++;
  }
  return { reds, blues, redX: reds ? rx / reds : NaN, colours: distinct.size };
}
const shot = await page.screenshot();
// LIMINA_WEB_SCREENSHOT=file.png keeps what the page showed (the README's picture is made so).
if (process.env.LIMINA_WEB_SCREENSHOT) writeFileSync(process.env.LIMINA_WEB_SCREENSHOT, shot.png);
const before = look(shot);
check(before.colours > 20, `the screenshot is not blank (${before.colours} distinct colours)`);
check(before.reds > 100, `the red box is drawn (${before.reds} red pixels)`);
check(before.blues > 30, `the blue sphere is drawn (${before.blues} blue pixels)`);

// ---- the same camera natively: render.capture, for the SSIM check in js/test/web.ts --------
// The page is still at the world's view camera (nobody moved it) and draws at the `low` tier, as
// the server does (--quality low). The page's overlays are hidden from here on (the checks below
// read the page's state, not its overlays), so its pictures show the world alone.
const capture = await builder.call("tools/call", { name: "render.capture", arguments: { width: shot.width, height: shot.height } });
const native = capture.result?.result;
check(native?.png && native.width === shot.width && native.height === shot.height, `render.capture of the view camera at the page's size (${JSON.stringify(capture.error ?? { width: native?.width, height: native?.height })})`);
const overlays = `["hud", "join-box", "player-box"].map((id) => document.getElementById(id))`;
await page.evaluate(`${overlays}.forEach((e) => (e.hidden = true))`);
const bare = await page.screenshot();
const images = mkdtempSync(join(tmpdir(), "limina-web-ssim-"));
writeFileSync(join(images, "page.png"), bare.png);
writeFileSync(join(images, "native.png"), Buffer.from(native.png, "base64"));

// ---- it follows the world live ---------------------------------------------------------
const framesBefore = await page.evaluate(`${state}.frames`);
await builder.call("tools/call", { name: "ecs.updateComponent", arguments: { entity: red, component: "position", value: [4, 1, -4] } });
await page.waitFor(`(() => { const e = globalThis.limina.entity(${JSON.stringify(red)}); return e && Math.abs(e.transform[0] - 4) < 1e-6 && e.transform[2] === -4 })()`, "the move to reach the page");
await page.waitFor(`${state}.frames > ${framesBefore}`, "a frame after the move");
const moved = await page.screenshot();
// The moved box against the native picture from before: what a wrong picture scores (js/test/web.ts).
writeFileSync(join(images, "moved.png"), moved.png);
const after = look(moved);
check(after.reds > 50 && Math.abs(after.redX - before.redX) > 15, `the red box moved on screen (x ${before.redX.toFixed(1)} → ${after.redX.toFixed(1)})`);
const added = await make({ shape: "sphere", size: 1, color: 0x00ff00, position: [2, 0.5, 4] });
await page.waitFor(`${state}.entities === 4 && ${state}.objects === 4`, "a created entity to appear");
await builder.call("tools/call", { name: "scene.destroyEntity", arguments: { entity: added } });
await page.waitFor(`${state}.entities === 3 && ${state}.objects === 3`, "a destroyed entity to go");
check(true, "entities created and destroyed on the server appear and go on the page");
const clients = await page.waitFor(`${state}.clients >= 2 && ${state}.clients`, "the HUD's client count");
check(clients >= 2, `the HUD counts the server's clients (${clients})`);

// ---- what the page crafts to write is refused and changes nothing --------------------------
const write = await page.evaluate(`limina.request("tools/call", { name: "scene.createEntity", arguments: { position: [1, 1, 1] } })`);
check(write.error !== undefined, `a tools/call from the page is refused: ${JSON.stringify(write.error)}`);
const reinit = await page.evaluate(`limina.request("initialize", { agentId: "x", sessionId: "y", profile: "builder.readWrite" })`);
check(reinit.error !== undefined, `re-initializing as a builder is refused: ${JSON.stringify(reinit.error)}`);
check((await count()) === 3, "the world is unchanged: still 3 entities");

// ---- the page ran clean: no CSP violation, no exception ---------------------------------------
const bad = page.console.filter((l) => /Content Security Policy|exception|Uncaught/i.test(l));
check(bad.length === 0, `no CSP violation or uncaught exception in the page (${bad.join(" | ")})`);

// ---- it reconnects when the server restarts -----------------------------------------------------
builder.ws.close();
server.kill("SIGTERM");
await new Promise((resolve) => server.once("exit", resolve));
await page.waitFor(`${state}.status.startsWith("reconnecting")`, "the page to see the server go");
const restarted = await startServer(limina, ["--mcp-ws", "--port", String(port)], "ignore");
const builder2 = await wsPeer(port);
await builder2.call("initialize", { agentId: "builder", sessionId: "b2", profile: "builder.readWrite" });
await builder2.call("tools/call", { name: "scene.createEntity", arguments: { shape: "sphere", color: 0x00ff00 } });
await page.waitFor(`${state}.status.startsWith("watching") && ${state}.entities === 1 && ${state}.objects === 1`, "the page to reconnect to the new world");
check(true, "the page reconnects when the server restarts and shows the new world");
const bakes = await page.evaluate(`${state}.bakes`);
check(bakes === 1, `the page baked its environment once, for the world's look before its first frame, and not again for the same sky after reconnecting (${bakes} bake steps)`);

await browser.close();
builder2.ws.close();
restarted.server.kill("SIGTERM");
console.log(JSON.stringify({ ok: true, checks: checks.length, images: { page: join(images, "page.png"), native: join(images, "native.png"), moved: join(images, "moved.png") } }));
process.exit(0);
