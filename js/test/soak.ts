// limina: waits
// The soak in CI size: a minute of every hostile client at once against one
// world while well-behaved WebSocket and HTTP clients measure (js/bench/soak.mjs).
// No reply of theirs is lost, the world keeps its steps per second, memory
// levels off, and every attack got its refusal. Its minute is the clock's,
// not CPU (a little over half a core: the server ~23 s of its minute, the
// Node clients ~10 s), and its bounds hold beside busy processes
// (docs/PERF.md: beside 2–5 of them), so it waits beside the other suites
// instead of after them.
import { assert, assertEquals, test } from "limina/testing";

test("a minute of every hostile client at once: 0 lost replies, the world stepping, bounded RSS, every attack refused", async () => {
  const r = await Limina.run({ cmd: "node", args: ["js/bench/soak.mjs", Limina.execPath, "60"] });
  assertEquals(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const f = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  console.log(`  ${r.stdout.trim().split("\n").at(-1)}`);
  assert(f.serverAlive, "the server lived");
  assert(f.readsSent > 20_000, `the well-behaved kept reading (${f.readsSent})`);
  assertEquals(f.lostReplies, 0, "no well-behaved reply was lost");
  // Steps follow the wall clock while the server gets a core's share (the host catches up five steps a
  // frame): ≥ 55 then (docs/RELIABILITY.md). A machine that starves the process itself slows it; a stall
  // of the server's own would stop it, so the bound here is wide.
  assert(f.stepsPerSec >= 20, `${f.stepsPerSec} steps/s (the server had ${f.serverCpuPercent}% of a core, machine load ${f.machineLoad})`);
  const rss: number[] = f.rssMiB;
  assert(rss.at(-1)! - rss[1] < 150, `memory levels off: ${rss.join(" → ")} MiB`);
  const a = f.attacks as Record<string, number>;
  assert(!a.identityGranted && a.identityRefused > 0, `reserved and confusable ids refused: ${JSON.stringify(a)}`);
  assertEquals(a["packageLoad:ok"], 8, `a session loads at most 8 packages: ${JSON.stringify(a)}`);
  assertEquals(a["packageLoad:session_package_cap"], 32);
  assert(f.packageOverBudgetRecorded, "the busy packages met the world's per-tick budget");
  assert(a.bubbleMade <= 512 && a["bubble:capacity_exceeded"] > 0, `bubbles past the session's share refused: ${JSON.stringify(a)}`);
  // The last may still be on its way when the run ends.
  assert(f.oversizeMessages > 0 && f.oversizeClosedWith1009 >= f.oversizeMessages - 1, `oversize messages closed with 1009: ${f.oversizeClosedWith1009}/${f.oversizeMessages}`);
  assert((a.garbage400 ?? 0) > 0 && (a.wsSilentClosed ?? 0) > 0 && (a.httpStalledClosed ?? 0) > 0, JSON.stringify(a));
});
