// limina: waits
// The spectator page in real headless Chromium (WebGL2 through SwiftShader,
// no display) — its picture compared with the native render.capture of the
// same camera by SSIM —, joining from it, and the spectator fan-out over
// NATS: see js/test/node/web_page.mjs, web_join.mjs and web_relay.mjs, which js/test/node/web.mjs runs in
// one browser (each driver in a browser context of its own).
import { readPng } from "limina";
import { assert, assertEquals, test } from "limina/testing";
import { startedRun, summary } from "./support/drivers.ts";
import { ssim } from "./support/images.ts";

const drivers = startedRun("node", "js/test/node/web.mjs");

/** Driver `name`'s summary, checked as a driver's own run is (support/drivers.ts). */
async function drive(name: string): Promise<Record<string, unknown>> {
  const r = await drivers;
  assertEquals(r.code, 0, `js/test/node/web.mjs:\n${r.stdout}\n${r.stderr}`);
  return summary(`js/test/node/${name}.mjs`, JSON.parse(r.stdout.trim().split("\n").at(-1)!)[name]);
}

/** The least SSIM the page's picture may score against the native render.capture of the same camera (docs/web.md). */
const SSIM_THRESHOLD = 0.98;

test("limina --mcp-ws serves the spectator page; Chromium draws the world, follows it live, cannot write to it, and reconnects when the server restarts", async () => {
  const out = await drive("web_page");
  assert((out.checks as number) >= 32, JSON.stringify(out));
  // The page's picture (three's WebGL2 backend on SwiftShader) against the native one (WebGPU on
  // lavapipe) of the same camera, size and tier; and, as a wrong picture, the page after the red box moved.
  const images = out.images as { page: string; native: string; moved: string };
  const native = readPng(images.native);
  const score = ssim(readPng(images.page), native);
  const wrong = ssim(readPng(images.moved), native);
  console.log(`  SSIM page vs render.capture: ${score.toFixed(4)}; after the box moved: ${wrong.toFixed(4)}`);
  assert(score >= SSIM_THRESHOLD, `SSIM ${score.toFixed(4)} < ${SSIM_THRESHOLD} (the two pictures: ${images.page}, ${images.native})`);
  assert(wrong < SSIM_THRESHOLD, `a picture with the box moved still scores ${wrong.toFixed(4)}: the threshold would not see a wrong world`);
  await Limina.run({ cmd: "rm", args: ["-r", images.page.replace(/\/page\.png$/, "")] });
});

test("with the server's token typed into the page, a person takes an avatar — a humanoid the page draws skinned and posed from the streamed animation — walks it (WASD: character.move) and speaks through the skills agents use; a wrong token is refused", async () => {
  const out = await drive("web_join");
  assert((out.checks as number) >= 15, JSON.stringify(out));
});

test("--spectator-sink publishes the state stream to NATS; limina relay serves the page and fans it out, spectators only", async () => {
  const out = await drive("web_relay");
  assert((out.checks as number) >= 14, JSON.stringify(out));
});
