// limina-audio through the audio.* skills: contracts and handles in this
// process; and what the mixer really produced, captured by child processes
// (LIMINA_AUDIO=wav:<file>, scenarios in support/audio_scene.ts, all but
// speech and SIGTERM --deterministic) and measured here with sox: a blip's
// frequency and duration, buses, panning, 1/d² attenuation, maxDistance,
// stop, PCM from JS, speech on the voice bus (espeak-ng; Piper's command
// line through a stand-in), a WAV that survives SIGTERM, and a standard MCP
// client's sound landing in the capture. The loop keeps stepping while a
// line is synthesised (by a stand-in that finishes only when told).
import { createWorldSession } from "limina";
import { assert, assertEquals, test } from "limina/testing";
import { sh } from "./support/shell.ts";

const RATE = 48_000;
const dir = (await Limina.run({ cmd: "mktemp", args: ["-d", "/tmp/limina-audio-XXXXXX"] })).stdout.trim();
let captures = 0;

interface Capture {
  wav: string;
  results: Record<string, unknown>[];
  stderr: string;
}

/** Runs a scenario of support/audio_scene.ts with its mix captured. */
async function capture(scenario: string, options: { realTime?: boolean; env?: Record<string, string>; args?: string[] } = {}): Promise<Capture> {
  const wav = `${dir}/${scenario}-${++captures}.wav`;
  const args = [...(options.realTime ? [] : ["--deterministic"]), "js/test/support/audio_scene.ts", scenario, ...(options.args ?? [])];
  const r = await Limina.run({ cmd: Limina.execPath, args, env: { LIMINA_AUDIO: `wav:${wav}`, ...options.env } });
  assertEquals(r.code, 0, `scenario ${scenario}: ${r.stderr}`);
  const last = r.stdout.trim().split("\n").pop()!;
  return { wav, results: JSON.parse(last), stderr: r.stderr };
}

interface Stereo {
  l: Float64Array;
  r: Float64Array;
}

/** `secs` seconds of a capture from `start`, decoded by sox. */
async function read(wav: string, start: number, secs: number): Promise<Stereo> {
  const r = await Limina.run({ cmd: "sox", args: [wav, "-t", "dat", "-", "trim", String(start), String(secs)] });
  assertEquals(r.code, 0, r.stderr);
  const rows = r.stdout.split("\n").filter((line) => line && !line.startsWith(";"));
  const l = new Float64Array(rows.length);
  const right = new Float64Array(rows.length);
  rows.forEach((row, i) => {
    const [, a, b] = row.trim().split(/\s+/);
    l[i] = Number(a);
    right[i] = Number(b);
  });
  assertEquals(rows.length, Math.round(secs * RATE), `${wav} holds ${start + secs} s`);
  return { l, r: right };
}

/** Amplitude of the `freq` component (Goertzel). */
function tone(x: Float64Array, freq: number): number {
  const w = (2 * Math.PI * freq) / RATE;
  const c = 2 * Math.cos(w);
  let s1 = 0, s2 = 0;
  for (const v of x) [s1, s2] = [v + c * s1 - s2, s1];
  return (2 * Math.sqrt(Math.max(0, s1 * s1 + s2 * s2 - c * s1 * s2))) / x.length;
}

function rms(x: Float64Array): number {
  let sum = 0;
  for (const v of x) sum += v * v;
  return Math.sqrt(sum / x.length);
}

const dB = (a: number, b: number) => 20 * Math.log10(a / b);

/** [first, last] second where 10 ms windows of the left channel are above `floor` RMS. */
function audibleSpan(x: Float64Array, floor = 0.01): [number, number] {
  const win = RATE / 100;
  let first = -1, last = -1;
  for (let i = 0; i + win <= x.length; i += win) {
    if (rms(x.subarray(i, i + win)) > floor) {
      if (first < 0) first = i;
      last = i + win;
    }
  }
  return [first / RATE, last / RATE];
}

async function fileSize(path: string): Promise<number> {
  const r = await Limina.run({ cmd: "stat", args: ["-c", "%s", path] });
  return Number(r.stdout.trim());
}

/** The RIFF and data sizes a WAV header states. */
async function headerSizes(path: string): Promise<[number, number]> {
  const at = async (offset: number) => Number((await Limina.run({ cmd: "od", args: ["-A", "n", "-t", "u4", "-j", String(offset), "-N", "4", path] })).stdout.trim());
  return [await at(4), await at(40)];
}

// --- In this process: contracts, handles, errors ---

const session = createWorldSession({ simulate: false });
const builder = { agentId: "a", sessionId: "s", permissions: ["audio.play"] };
const call = (skill: string, input: unknown, who: { agentId: string; sessionId: string; permissions: string[]; profile?: string } = builder) => session.registry.invoke(skill, input, who);

test("the seven audio skills are listed (LIMINA_AUDIO=null is a real sink, so always)", () => {
  const names = session.mcp().listTools().map((t) => t.name).filter((n) => n.startsWith("audio."));
  assertEquals(names, ["audio.play", "audio.ambient", "audio.playAt", "audio.speak", "audio.stop", "audio.setVolume", "audio.setBusVolume"]);
});

test("handles are opaque strings; unknown, stopped and other worlds' handles answer ok: false", async () => {
  const played = await call("audio.play", { freq: 440, secs: 2 });
  assert(played.ok, JSON.stringify(played));
  const { handle } = played.value as { handle: string };
  assert(typeof handle === "string" && handle.length > 0);
  const other = createWorldSession({ simulate: false });
  for (const h of ["", "snd_", "snd_0", "snd_zzzzzz", "ent_1", "snd_-1", handle + "0"]) {
    for (const [skill, input] of [["audio.stop", { handle: h }], ["audio.setVolume", { handle: h, volume: 0.5 }]] as const) {
      const r = await call(skill, input);
      assertEquals(r.ok ? r.value : r.error, { ok: false }, `${skill} ${h}`);
    }
  }
  const foreign = await other.registry.invoke("audio.stop", { handle }, builder);
  assertEquals(foreign.ok ? foreign.value : null, { ok: false }, "another world cannot stop it");
  assertEquals((await call("audio.setVolume", { handle, volume: 0.25 })).ok ? { ok: true } : null, { ok: true });
  const stopped = await call("audio.stop", { handle });
  assertEquals(stopped.ok ? stopped.value : null, { ok: true });
  const again = await call("audio.stop", { handle });
  assertEquals(again.ok ? again.value : null, { ok: false }, "a stopped sound is no longer live");
  other.dispose();
});

test("bad input is invalid_input with no effect; a profile without audio.play is forbidden", async () => {
  const bad: [string, Record<string, unknown>][] = [
    ["audio.play", { freq: 0, secs: 1 }],
    ["audio.play", { freq: 440, secs: 10.5 }],
    ["audio.play", { freq: 440, secs: 1, bus: "loud" }],
    ["audio.play", { freq: 440, secs: 1, volume: 1.5 }],
    ["audio.play", { freq: 30_000, secs: 1 }],
    ["audio.playAt", { freq: 440, secs: 1, position: [0, 0, 2e5] }],
    ["audio.playAt", { freq: 440, secs: 1, position: [0, 0, 0], maxDistance: -1 }],
    ["audio.speak", { text: "", position: [0, 0, 0] }],
    ["audio.speak", { text: "x".repeat(501), position: [0, 0, 0] }],
    ["audio.setBusVolume", { bus: "sfx" }],
    ["audio.setVolume", { handle: "snd_1", volume: -0.1 }],
    ["audio.ambient", { bus: "music" }],
  ];
  for (const [skill, input] of bad) {
    const r = await call(skill, input);
    assertEquals(r.ok ? "ok" : r.error.code, "invalid_input", `${skill} ${JSON.stringify(input)}`);
  }
  const stranger = { agentId: "x", sessionId: "x", permissions: [], profile: "no.such.profile" };
  const denied = await call("audio.play", { freq: 440, secs: 1 }, stranger);
  assertEquals(denied.ok ? "ok" : denied.error.code, "forbidden");
});

test("playPcm refuses bad samples, before detaching a buffer it cannot use", () => {
  const odd = new Float32Array(3);
  const code = (f: () => unknown) => {
    try {
      f();
      return "ok";
    } catch (e) {
      return (e as LiminaError).code;
    }
  };
  assertEquals(code(() => session.audio.playPcm(odd, { channels: 2 })), "invalid_input");
  assertEquals(odd.length, 3, "still usable");
  assertEquals(code(() => session.audio.playPcm(new Float32Array(0))), "invalid_input");
  assertEquals(code(() => session.audio.playPcm(new Float32Array([0, NaN]))), "invalid_input");
  assertEquals(code(() => session.audio.playPcm(new Float32Array([0, 0.5]), { volume: 2 })), "invalid_input");
});

test("a line being synthesised is playing; disposing its world stops it", async () => {
  const speaking = createWorldSession({ simulate: false });
  const r = await speaking.registry.invoke("audio.speak", { text: "The quick brown fox jumps over the lazy dog.", position: [0, 0, -2] }, builder);
  assert(r.ok, `audio.speak: ${JSON.stringify(r)}`);
  const id = parseInt((r.value as { handle: string }).handle.slice(4), 36);
  assert(speaking.audio.playing(id), "the line is being synthesised");
  speaking.dispose();
  assert(!speaking.audio.playing(id), "disposing the world stops its sounds");
});

// --- Captured mixes ---

test("a 440 Hz blip has its energy at 440 Hz for its 1 s, and the capture is reproducible", async () => {
  const { wav, results } = await capture("blip");
  assert(typeof results[0].handle === "string");
  const mid = await read(wav, 0.2, 0.5);
  const at440 = tone(mid.l, 440);
  assert(Math.abs(at440 - 0.5) < 0.01, `440 Hz at ${at440} (a full-volume tone peaks at 0.5)`);
  for (const f of [220, 430, 450, 660, 880, 1000]) assert(dB(at440, tone(mid.l, f) + 1e-9) > 40, `${f} Hz is ${dB(at440, tone(mid.l, f))} dB down`);
  assert(Math.abs(rms(mid.l) - at440 / Math.SQRT2) < 0.005, "all of the energy is the tone");
  const all = await read(wav, 0, 1.4);
  const [first, last] = audibleSpan(all.l);
  assertEquals(first, 0);
  assert(Math.abs(last - 1) <= 0.01, `audible until ${last} s`);
  const again = await capture("blip");
  const sums = await Limina.run({ cmd: "sha256sum", args: [wav, again.wav] });
  const [a, b] = sums.stdout.trim().split("\n").map((l) => l.split(/\s+/)[0]);
  assertEquals(a, b, "two deterministic runs capture identical bytes");
});

test("a bus at volume 0 silences its sounds and only those", async () => {
  const { wav } = await capture("buses");
  const before = await read(wav, 0.1, 0.35);
  const after = await read(wav, 0.6, 0.8);
  assert(tone(before.l, 440) > 0.45 && tone(before.l, 660) > 0.45, "both play at first");
  assert(tone(after.l, 440) < 1e-4, `sfx (440 Hz) silenced: ${tone(after.l, 440)}`);
  assert(Math.abs(dB(tone(after.l, 660), tone(before.l, 660))) < 0.1, "ambience (660 Hz) untouched");
});

test("a source to the listener's right is louder on the right; the listener follows the camera", async () => {
  const { wav } = await capture("pan");
  const right = await read(wav, 0.1, 0.3);
  const left = await read(wav, 0.85, 0.3);
  const turned = await read(wav, 1.6 + 1 / 60, 0.3);
  assert(dB(rms(right.r), rms(right.l) + 1e-9) > 30, `right: L ${rms(right.l)} R ${rms(right.r)}`);
  assert(dB(rms(left.l), rms(left.r) + 1e-9) > 30, `left: L ${rms(left.l)} R ${rms(left.r)}`);
  assert(dB(rms(turned.l), rms(turned.r) + 1e-9) > 30, `camera turned round: L ${rms(turned.l)} R ${rms(turned.r)}`);
});

test("doubling the distance lowers the level by 6 dB; beyond maxDistance is silent", async () => {
  const { wav } = await capture("distance");
  const level = async (segment: number) => {
    const s = await read(wav, segment * 0.75 + 0.1, 0.3);
    return Math.hypot(rms(s.l), rms(s.r));
  };
  const [at2, at4, cut, within] = [await level(0), await level(1), await level(2), await level(3)];
  const drop = dB(at2, at4);
  assert(Math.abs(drop - 6.02) < 0.3, `2 m → 4 m: ${drop.toFixed(2)} dB`);
  assertEquals(cut, 0, "10 m with maxDistance 5 is silent");
  assert(Math.abs(dB(at2, within) - 20 * Math.log10(5)) < 0.3, `10 m within maxDistance 20 is heard at 1/d: ${within}`);
});

test("stop ends a sound; stopping it again answers ok: false", async () => {
  const { wav, results } = await capture("stop");
  assertEquals(results.slice(1), [{ ok: true }, { ok: false }, { ok: false }]);
  const all = await read(wav, 0, 1.4);
  const [first, last] = audibleSpan(all.l);
  assertEquals(first, 0);
  assert(last >= 0.49 && last <= 0.53, `stopped at 0.5 s, audible until ${last} s`);
});

test("an ambience bed plays until stopped", async () => {
  const { wav } = await capture("ambient");
  const on = await read(wav, 0.05, 0.4);
  const off = await read(wav, 0.6, 0.3);
  assert(rms(on.l) > 0.05 && rms(on.r) > 0.05, `bed RMS ${rms(on.l)} ${rms(on.r)}`);
  assert(Math.abs(rms(on.l) - rms(on.r)) / rms(on.l) < 0.3, "it is stereo, both sides alike");
  assertEquals(rms(off.l) + rms(off.r), 0, "silent once stopped");
});

test("PCM synthesised in JS is handed over without a copy and plays", async () => {
  const { wav, results } = await capture("pcm");
  assertEquals(results, [{ detached: true }]);
  const s = await read(wav, 0.2, 0.5);
  assert(Math.abs(tone(s.l, 1000) - 0.4) < 0.005, `1 kHz at ${tone(s.l, 1000)}`);
  const [, last] = audibleSpan((await read(wav, 0, 1.2)).l);
  assert(Math.abs(last - 1) <= 0.01, `plays its 1 s: ${last}`);
});

test("speech (espeak-ng) lands on the voice bus", async () => {
  // The three captures run at once (each waits in real time for its line).
  const [voiced, sfxMuted, voiceMuted] = await Promise.all([[], ["sfx"], ["voice"]].map((args) => capture("speak", { realTime: true, env: { LIMINA_TTS: "espeak" }, args })));
  const loudest = async (wav: string) => {
    const secs = (await fileSize(wav) - 44) / 4 / RATE;
    const all = await read(wav, 0, Math.floor(secs * 100) / 100);
    let peak = 0;
    for (let i = 0; i + 2400 <= all.l.length; i += 2400) peak = Math.max(peak, rms(all.l.subarray(i, i + 2400)));
    return peak;
  };
  const [v, s, m] = [await loudest(voiced.wav), await loudest(sfxMuted.wav), await loudest(voiceMuted.wav)];
  assert(v > 0.02, `speech is heard: peak 50 ms RMS ${v}`);
  assert(s > 0.02, `muting sfx leaves it: ${s}`);
  assertEquals(m, 0, "muting the voice bus silences it");
});

test("LIMINA_TTS=piper:<model> runs piper with that model, the line on its stdin", async () => {
  // A stand-in piper on PATH: it records what it was given and "speaks" a 300 Hz tone at 22.05 kHz.
  const bin = `${dir}/bin`;
  const script = `#!/bin/sh\n[ "$1" = --model ] && [ "$3" = --output_file ] || exit 2\necho "$2" > ${dir}/piper-model.txt\ncat > ${dir}/piper-text.txt\nexec sox -n -r 22050 -c 1 -b 16 "$4" synth 0.5 sine 300\n`;
  await sh(`mkdir -p ${bin} && cat > ${bin}/piper && chmod +x ${bin}/piper`, { stdin: script });
  const { wav } = await capture("speak", { realTime: true, env: { LIMINA_TTS: "piper:voices/test.onnx", PATH: `${bin}:/usr/bin:/bin` } });
  assertEquals((await Limina.run({ cmd: "cat", args: [`${dir}/piper-model.txt`] })).stdout, "voices/test.onnx\n");
  assertEquals((await Limina.run({ cmd: "cat", args: [`${dir}/piper-text.txt`] })).stdout, "Hello from the voice bus.");
  const all = await read(wav, 0, Math.floor(((await fileSize(wav)) - 44) / 4 / RATE * 100) / 100);
  const [first, last] = audibleSpan(all.l);
  assert(Math.abs(last - first - 0.5) <= 0.02, `the 0.5 s line plays: ${first}–${last} s`);
  const mid = all.l.subarray(Math.round((first + 0.1) * RATE), Math.round((first + 0.4) * RATE));
  assert(tone(mid, 300) > 0.2, `at 300 Hz, resampled to 48 kHz: ${tone(mid, 300)}`);
});

test("the loop keeps stepping while a line is synthesised: 30 steps run while the synthesiser still works", async () => {
  // A stand-in piper that finishes only once the scenario has run 30 steps after asking for the line and says so
  // (a file). A loop that waited for synthesis could not run them: the stand-in would give up after 30 s instead.
  const bin = `${dir}/held-bin`;
  const go = `${dir}/held-go`;
  const script = `#!/bin/sh\ncat > /dev/null\ni=0\nwhile [ ! -e ${go} ]; do i=$((i + 1)); [ $i -gt 600 ] && { echo gave up >> ${dir}/held-state; exit 3; }; sleep 0.05; done\necho released >> ${dir}/held-state\nexec sox -n -r 22050 -c 1 -b 16 "$4" synth 0.3 sine 300\n`;
  await sh(`mkdir -p ${bin} && cat > ${bin}/piper && chmod +x ${bin}/piper`, { stdin: script });
  const { results } = await capture("held", { realTime: true, env: { LIMINA_TTS: "piper:voices/held.onnx", PATH: `${bin}:/usr/bin:/bin` }, args: [go] });
  assertEquals(results.slice(1), [{ steps: 30, playing: true }]);
  assertEquals((await Limina.run({ cmd: "cat", args: [`${dir}/held-state`] })).stdout, "released\n", "released by the scenario, not given up");
});

test("without a voice audio.speak fails saying so, logged once", async () => {
  const { results, stderr } = await capture("unvoiced", { env: { LIMINA_TTS: "piper:/no/such/model.onnx", PATH: "/nonexistent" } });
  const why = "no TTS voice: LIMINA_TTS=piper:/no/such/model.onnx but piper is not on PATH (pip install piper-tts)";
  assertEquals(results, [{ code: "unavailable", message: why }, { code: "unavailable", message: why }]);
  assertEquals(stderr.split("\n").filter((l) => l.includes("no TTS voice")).length, 1, stderr);
});

test("a capture ended by SIGTERM is a valid WAV of what was mixed", async () => {
  const wav = `${dir}/sigterm.wav`;
  // SIGTERM once 0.6 s have been captured (however long a busy machine took to start), timed from the start.
  const enough = 44 + Math.round(0.6 * RATE) * 4;
  const script = [
    `start=$(date +%s%N)`,
    `LIMINA_AUDIO=wav:${wav} '${Limina.execPath}' js/test/support/audio_scene.ts hold & pid=$!`,
    `while [ "$(stat -c %s ${wav} 2>/dev/null || echo 0)" -lt ${enough} ]; do sleep 0.02; done`,
    `kill -TERM $pid; wait $pid; code=$?`,
    `echo "$code $(( ($(date +%s%N) - start) / 1000000 ))"`,
  ].join("\n");
  const r = await Limina.run({ cmd: "bash", args: ["-c", script] });
  const [code, wallMs] = r.stdout.trim().split(" ").map(Number);
  assertEquals(code, 143, `ended by the signal: ${r.stderr}`);
  const size = await fileSize(wav);
  assertEquals(await headerSizes(wav), [size - 8, size - 44]);
  const secs = (size - 44) / 4 / RATE;
  // In real time: never more than the wall time the process ran.
  assert(secs >= 0.6 && secs <= wallMs / 1000, `${secs} s captured in real time (${wallMs} ms of wall time)`);
  const s = await read(wav, 0.1, Math.floor((secs - 0.2) * 100) / 100);
  assert(Math.abs(tone(s.l, 440) - 0.5) < 0.01, "the tone, whole");
});

test("a standard MCP client (official SDK): audio.play {freq: 440, secs: 1} lands in the capture", async () => {
  const wav = `${dir}/sdk.wav`;
  const r = await Limina.run({ cmd: "node", args: ["js/test/node/sdk_audio.mjs", Limina.execPath, wav] });
  assertEquals(r.code, 0, r.stdout + r.stderr);
  const size = await fileSize(wav);
  assertEquals(await headerSizes(wav), [size - 8, size - 44]);
  const all = await read(wav, 0, Math.floor(((size - 44) / 4 / RATE) * 100) / 100);
  const [first, last] = audibleSpan(all.l);
  assert(Math.abs(last - first - 1) <= 0.02, `audible for ${last - first} s`);
  const mid = all.l.subarray(Math.round((first + 0.2) * RATE), Math.round((first + 0.8) * RATE));
  assert(Math.abs(tone(mid, 440) - 0.5) < 0.01, `440 Hz at ${tone(mid, 440)}`);
  assert(Math.abs(rms(mid) - tone(mid, 440) / Math.SQRT2) < 0.005, "all of its energy at 440 Hz");
});

test("cleanup", async () => {
  session.dispose();
  await Limina.run({ cmd: "rm", args: ["-rf", dir] });
});
