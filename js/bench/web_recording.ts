// The static player's recording of a crowd: a numbers_party-like world — 200
// humanoid characters on a navmesh, each sent to a new point every few
// seconds, jostling as they cross — built through skill calls so its world
// log replays, runs 10 s; its world log is exported and `limina export-web`
// records it (whole states at keyframes, the state stream's changes between).
// Prints the recording's size, per tick, and the export's wall time.
// Run: limina --deterministic js/bench/web_recording.ts   (final line: JSON figures)
import { FIXED_DT, resolveProfile, traceDir, WorldSession } from "limina";

const CHARACTERS = 200;
const SECONDS = 10;
const builder = { agentId: "build", sessionId: "build", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };

const session = new WorldSession({ simulate: false, checkpointEvery: 60 });
const call = async <T>(tool: string, input: unknown): Promise<T> => {
  const r = await session.registry.invoke(tool, input, builder);
  if (!r.ok) throw new Error(`${tool}: ${r.error.code}: ${r.error.message}`);
  return r.value as T;
};
await call("scene.createEntity", { shape: "box", size: [80, 1, 80], position: [0, -0.5, 0], static: true });
await call("nav.build", {});
const ids: string[] = [];
for (let i = 0; i < CHARACTERS; i++) {
  ids.push((await call<{ entityId: string }>("character.spawn", { position: [(i % 15) * 2 - 14, 0, Math.floor(i / 15) * 2 - 14], appearance: { shirt: (i * 0x3c6ef3) & 0xffffff } })).entityId);
}
let seed = 0x5eed;
const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 0x100000000);
for (let t = 0; t < SECONDS * 60; t++) {
  // Every 3 s each character gets a new target somewhere on the plaza (staggered).
  for (let i = t % 180; i < CHARACTERS; i += 180) {
    await call("nav.moveTo", { entityId: ids[i], target: [random() * 60 - 30, 0, random() * 60 - 30] });
  }
  session.step(FIXED_DT);
}
const { name } = await call<{ name: string }>("trace.export", { name: `web-recording-${Date.now()}` });
const trace = `${traceDir()}/${name}`;
const out = `/tmp/limina-web-recording-${Date.now()}`;
const began = performance.now();
const made = await Limina.run({ cmd: Limina.execPath, args: ["export-web", trace, "--out", out] });
const exportMs = performance.now() - began;
if (made.code !== 0) throw new Error(`export-web failed: ${made.stderr}`);
const size = async (f: string) => Number((await Limina.run({ cmd: "stat", args: ["-c%s", f] })).stdout.trim());
const recordingBytes = await size(`${out}/recording.jsonl`);
const ticks = SECONDS * 60;
await Limina.run({ cmd: "rm", args: ["-rf", out, trace] });
console.log(`${CHARACTERS} characters, ${SECONDS} s: recording ${(recordingBytes / 1048576).toFixed(2)} MiB (${(recordingBytes / ticks / 1024).toFixed(1)} KiB a tick), export ${(exportMs / 1000).toFixed(1)} s`);
console.log(JSON.stringify({ bench: "web_recording", characters: CHARACTERS, seconds: SECONDS, recordingBytes, kibPerTick: +(recordingBytes / ticks / 1024).toFixed(2), exportMs: Math.round(exportMs) }));
