// The spectator page in real headless Chromium (WebGL2 through SwiftShader,
// no display), joining from it, and the spectator fan-out over NATS: see
// js/test/node/web_page.mjs, web_join.mjs and web_relay.mjs.
import { assert, test } from "limina/testing";
import { drive } from "./support/drivers.ts";

test("limina --mcp-ws serves the spectator page; Chromium draws the world, follows it live, cannot write to it, and reconnects when the server restarts", async () => {
  const out = await drive("node", "js/test/node/web_page.mjs");
  assert((out.checks as number) >= 30, JSON.stringify(out));
});

test("with the server's token typed into the page, a person takes an avatar, walks it (WASD) and speaks through the skills agents use; a wrong token is refused", async () => {
  const out = await drive("node", "js/test/node/web_join.mjs");
  assert((out.checks as number) >= 11, JSON.stringify(out));
});

test("--spectator-sink publishes the state stream to NATS; limina relay serves the page and fans it out, spectators only", async () => {
  const out = await drive("node", "js/test/node/web_relay.mjs");
  assert((out.checks as number) >= 13, JSON.stringify(out));
});
