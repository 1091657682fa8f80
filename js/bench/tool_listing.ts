// The standard MCP tools/list in bytes: what a client (and the model behind
// it) must read to know the tools. The full listing at each schema detail
// (`full`: the skills' own schemas and descriptions, as before compaction;
// `exact`: compact but exact; `compact`: the default, exact when small, an
// outline past 300 bytes), and the core listing a small context window asks
// for. Bytes are the JSON of the listed tools, all pages together. Also the
// time the first core and full listings take (each skill's input converted
// from Zod to JSON Schema once) and a listing after that.
// Run: limina js/bench/tool_listing.ts   (final line: JSON figures)
import { createWorldSession, ToolListing } from "limina";
import { round } from "limina/bench";

const session = createWorldSession({ simulate: false });
const listing = new ToolListing(session.registry, { pageSize: 0, listing: "full" });
const bytes = (v: unknown) => JSON.stringify(v).length;
// The first listings convert each skill's Zod input to JSON Schema (then kept until the skills change).
let t0 = performance.now();
const core = listing.page({ _meta: { "io.limina/listing": "core" } }).tools;
const coreFirstMs = performance.now() - t0;
t0 = performance.now();
const compact = listing.tools("compact");
const firstMs = performance.now() - t0;
t0 = performance.now();
listing.tools("compact");
const againMs = performance.now() - t0;
const exact = listing.tools("exact");
const full = listing.tools("full");
const largest = compact.map((t) => [t.name, bytes(t)] as const).sort((a, b) => b[1] - a[1])[0];
const figures = {
  bench: "tool_listing",
  tools: compact.length,
  compactBytes: bytes(compact),
  compactBytesPerTool: round(bytes(compact) / compact.length, 0),
  outlined: compact.filter((t, i) => bytes(t.inputSchema) !== bytes(exact[i].inputSchema)).length,
  exactBytesPerTool: round(bytes(exact) / exact.length, 0),
  fullBytes: bytes(full),
  fullBytesPerTool: round(bytes(full) / full.length, 0),
  coreTools: core.length,
  coreBytes: bytes({ tools: core }),
  largest: { tool: largest[0], bytes: largest[1] },
  coreFirstMs: round(coreFirstMs, 1),
  firstListingMs: round(firstMs, 1),
  againMs: round(againMs, 2),
};
console.log(`${figures.tools} tools: ${figures.compactBytesPerTool} bytes a tool compact (${figures.outlined} outlined), ${figures.exactBytesPerTool} exact, ${figures.fullBytesPerTool} full; core listing ${figures.coreTools} tools in ${figures.coreBytes} bytes`);
console.log(JSON.stringify(figures));
session.dispose();
