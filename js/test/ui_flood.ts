// Thousands of UI bubbles from one client: it may hold 1/8 of the world's
// UI places (512 of 4096), past which its bubbles are refused precisely,
// while another client's are still made; the world keeps stepping, memory
// stays bounded, and removing bubbles gives the places back.
import { MAX_CONTAINERS, waitSteps, WorldSession } from "limina";
import { assert, assertEquals, test } from "limina/testing";

const as = (sessionId: string) => ({ agentId: `agt_${sessionId}`, sessionId, permissions: ["ui.write", "scene.read"], profile: "builder.readWrite" });
const rssMiB = async () => Number(/VmRSS:\s+(\d+)/.exec((await Limina.run({ cmd: "sh", args: ["-c", "cat /proc/$PPID/status"] })).stdout)![1]) / 1024;

test("a flood of 3,000 speech bubbles from one session: 512 are made, the rest refused; another session's still are; memory stays bounded", async () => {
  const s = new WorldSession();
  const before = await rssMiB();
  const tick0 = s.tick;
  const outcomes: string[] = [];
  const handles: string[] = [];
  for (let i = 0; i < 3000; i++) {
    const r = await s.registry.invoke("ui.speechBubble", { anchor: { type: "world", position: [i % 50, 2, Math.floor(i / 50)] }, text: `flood ${i}: ${"words ".repeat(20)}` }, as("mcp-1"));
    outcomes.push(r.ok ? "ok" : r.error.code);
    if (r.ok) handles.push((r.value as { handle: string }).handle);
    if (i % 500 === 0) await waitSteps(1);
  }
  assertEquals(MAX_CONTAINERS / 8, 512);
  assertEquals(outcomes.filter((o) => o === "ok").length, 512);
  assertEquals(outcomes.filter((o) => o === "capacity_exceeded").length, 2488);
  const refused = await s.registry.invoke("ui.speechBubble", { anchor: { type: "world", position: [0, 2, 0] }, text: "one more" }, as("mcp-1"));
  assert(!refused.ok && refused.error.message.includes("its most (1/8 of the world's 4096)"), JSON.stringify(refused));
  const other = await s.registry.invoke("ui.speechBubble", { anchor: { type: "world", position: [0, 2, 0] }, text: "still heard" }, as("mcp-2"));
  assert(other.ok, `another session's bubble is made: ${JSON.stringify(other)}`);
  await waitSteps(3);
  assert(s.tick > tick0, "the world kept stepping");
  const grown = (await rssMiB()) - before;
  assert(grown < 512, `512 bubbles grew the process by ${grown.toFixed(0)} MiB`);
  // Removing gives the places back.
  for (const handle of handles.slice(0, 10)) assert((await s.registry.invoke("ui.remove", { handle }, as("mcp-1"))).ok);
  const again = await s.registry.invoke("ui.speechBubble", { anchor: { type: "world", position: [0, 2, 0] }, text: "room again" }, as("mcp-1"));
  assert(again.ok, JSON.stringify(again));
  s.dispose();
});
