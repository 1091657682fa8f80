// Runs the conformance suite's CLI (`server --scenario`) for each scenario in this one Node (the
// suite's Node 22): a process each spent most of its CPU starting and loading the suite's
// dependencies. The CLI ends a run with process.exit(code); here that ends the scenario's run
// instead, and the CLI's bundle is evaluated again for the next (a fresh module URL), its
// dependencies already loaded. Prints one JSON line: each scenario's exit code.
// Usage: <node 22> conformance_scenarios.mjs <cli> <server url> <output dir> <scenario>...
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [cli, url, out, ...scenarios] = process.argv.slice(2);
const exit = process.exit;
const codes = {};
for (const scenario of scenarios) {
  codes[scenario] = await new Promise((ended) => {
    process.exit = ended;
    process.argv = [process.argv[0], cli, "server", "--url", url, "--scenario", scenario, "--output-dir", join(out, scenario)];
    import(`${pathToFileURL(cli).href}?${scenario}`).catch((e) => {
      console.error(e);
      ended(1);
    });
  });
}
console.log(JSON.stringify(codes));
// The runs may leave connections open (an SSE stream): they end with the process.
exit(0);
