// The spectator page's drivers for js/test/web.ts (web_page, web_join, web_relay), one after another in one
// headless Chromium, each in a browser context of its own (LIMINA_CHROMIUM_ENDPOINT: see launchChromium):
// a browser's start is over a second of CPU, and its GPU process keeps the shaders it compiled for the next page.
// Usage: node js/test/node/web.mjs <path-to-limina>; the last stdout line is {driver: {code, stdout, stderr}}.
import { spawn } from "node:child_process";
import { launchChromium } from "./browser.mjs";

const browser = await launchChromium();
const runs = {};
for (const name of ["web_page", "web_join", "web_relay"]) {
  const driver = spawn(process.execPath, [new URL(`${name}.mjs`, import.meta.url).pathname, ...process.argv.slice(2)], {
    env: { ...process.env, LIMINA_CHROMIUM_ENDPOINT: browser.endpoint },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  driver.stdout.on("data", (d) => (stdout += d));
  driver.stderr.on("data", (d) => (stderr += d));
  runs[name] = await new Promise((resolve) => driver.on("close", (code) => resolve({ code, stdout, stderr })));
}
await browser.close();
console.log(JSON.stringify(runs));
process.exit(0);
