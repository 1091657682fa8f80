// The binary state stream over the WebSocket world server, driven by real
// WebSocket clients (node/ws_binary.mjs): the same world as a JSON client
// within the documented quantisation, change masks, creation, restyling and
// destruction, a delta in its place among the replies, areas of interest,
// an unknown encoding refused, and a paused reader that holds up no one and
// catches up in one delta.
import { assertEquals, test } from "limina/testing";

test("binary state deltas beside JSON ones, paced per client", async () => {
  const r = await Limina.run({ cmd: "node", args: ["js/test/node/ws_binary.mjs", Limina.execPath] });
  assertEquals(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assertEquals(out.checks, 40);
});
