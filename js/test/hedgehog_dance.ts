// The hedgehog_dance demo, run as users run it: offscreen with its mix
// captured (LIMINA_AUDIO=wav:…, --deterministic, so each fixed step mixes
// exactly one step of frames; no voice, so the capture is the music alone)
// the frame shows the hedgehog on its lit floor and its HUD panel's text, the capture has a kick
// every beat at the track's BPM, and the hedgehog lands on each reported
// downbeat exactly when its kick sounds; windowed under Xvfb, in real time
// with espeak-ng, it shows the same scene and sings at its mouth.
import { assert, assertEquals, test } from "limina/testing";
import { BPM, LOOP_BARS, LOOP_SECONDS } from "../../examples/hedgehog_dance_core.ts";
import { cleanUp, countPixels, runDemo, scratch, textStrokes } from "./support/demos.ts";

const FRAMES = 300; // five seconds of virtual time: two and a half bars
const wav = scratch("hedgehog.wav");
const offscreen = await runDemo("hedgehog_dance", { frames: FRAMES, size: "640x360", deterministic: true, env: { LIMINA_AUDIO: `wav:${wav}`, LIMINA_TTS: "none" } });

/** The hedgehog's skin and spines: tans and browns (red over green over blue), a hue the floor's palette and the night sky lack. */
const tan = (r: number, g: number, b: number) => r > g && g > b && r - b > 20;
/** A lit tile: one strongly saturated channel pair. */
const tile = (r: number, g: number, b: number) => Math.max(r, g, b) > 90 && Math.max(r, g, b) - Math.min(r, g, b) > 70 && !tan(r, g, b);

/** |sample| after a 150 Hz low-pass (where the kick lives), at 2 kHz, from sox. */
async function lowBand(path: string): Promise<Float64Array> {
  const r = await Limina.run({ cmd: "sox", args: [path, "-t", "dat", "-", "channels", "1", "lowpass", "150", "rate", "2000"] });
  assertEquals(r.code, 0, r.stderr);
  return Float64Array.from(r.stdout.split("\n").filter((l) => l && !l.startsWith(";")), (l) => Math.abs(Number(l.trim().split(/\s+/)[1])));
}
const RATE = 2000;

test("the hedgehog and its disco floor are in the offscreen frame", () => {
  const { frame } = offscreen;
  const all = frame.width * frame.height;
  const hedgehog = countPixels(frame, tan);
  const middle = countPixels(frame, tan, { x0: 180, y0: 90, x1: 460, y1: 330 });
  assert(hedgehog > all * 0.012, `${hedgehog} hedgehog pixels of ${all}`);
  assert(middle > hedgehog * 0.8, `the hedgehog dances mid-frame: ${middle} of its ${hedgehog} pixels`);
  const tiles = countPixels(frame, tile);
  assert(tiles > all * 0.03, `${tiles} lit-tile pixels of ${all}`);
});

test("the HUD panel's text is in the frame", () => {
  // Dark-to-light runs along the rows of the top-left corner: the panel's text makes hundreds; the night sky there, none.
  const { frame } = offscreen;
  const runs = textStrokes(frame, { x0: 0, y0: 0, x1: 280, y1: 110 });
  assert(runs > 200, `${runs} dark-to-light runs in the HUD corner`);
});

test("the synthesised track plays through the mixer: a kick on every beat at the BPM", async () => {
  const low = await lowBand(wav);
  assert(Math.abs(low.length / RATE - FRAMES / 60) < 0.01, `the capture lasts the run: ${low.length / RATE} s`);
  const peak = (from: number, secs: number) => {
    let m = 0;
    for (let i = Math.max(0, Math.round(from * RATE)); i < Math.min(low.length, Math.round((from + secs) * RATE)); i++) m = Math.max(m, low[i]);
    return m;
  };
  // Onsets: where the low band first climbs past 0.3 after a quiet stretch.
  const onsets: number[] = [];
  for (let i = 0; i < low.length; i++) {
    if (low[i] > 0.3 && (onsets.length === 0 || i / RATE - onsets[onsets.length - 1] > 0.2) && peak(i / RATE - 0.04, 0.035) < 0.15) onsets.push(i / RATE);
  }
  const beat = 60 / BPM;
  assertEquals(onsets.length, Math.floor((FRAMES / 60 - onsets[0]) / beat - 1e-9) + 1, `one kick per beat: ${onsets.map((t) => t.toFixed(3))}`);
  assert(onsets[0] < 1 / 60 + 0.005, `the music starts on the demo's first step: ${onsets[0]} s`);
  for (let k = 1; k < onsets.length; k++) {
    assert(Math.abs(onsets[k] - onsets[k - 1] - beat) < 0.003, `beats ${k - 1}→${k}: ${(onsets[k] - onsets[k - 1]).toFixed(4)} s, not ${beat}`);
  }
});

test("the hedgehog lands on each downbeat the demo reports, when its kick sounds", async () => {
  const bars = [...offscreen.stdout.matchAll(/^bar (\d+) at step (\d+) \(([\d.]+) s into the track\): the hedgehog lands on the downbeat \(y=(-?[\d.]+)\)/gm)];
  assertEquals(bars.map((m) => Number(m[1])), [1, 2, 3], offscreen.stdout);
  const first = Number(bars[0][2]);
  const low = await lowBand(wav);
  for (const m of bars) {
    const step = Number(m[2]);
    assertEquals(Number(m[4]), 0, `the hedgehog is on the floor at the downbeat of bar ${m[1]}`);
    // The kick is loudest within its first 60 ms, and the moment before it is quiet.
    const at = (step - first) / 60;
    const window = (from: number, to: number) => Math.max(...low.subarray(Math.round(from * RATE), Math.round(to * RATE)));
    assert(window(at, at + 0.06) > 0.3 && (at === 0 || window(at - 0.04, at - 0.005) < 0.15), `a kick at ${at} s (bar ${m[1]})`);
  }
  assert(offscreen.stdout.includes(`${BPM} BPM, a ${LOOP_BARS}-bar loop of ${LOOP_SECONDS} s`), offscreen.stdout);
});

test("without a voice the hedgehog says so once and dances on", () => {
  const said = offscreen.stdout.split("\n").filter((l) => l.includes("without singing"));
  assertEquals(said, ["the hedgehog dances on without singing: unavailable: no TTS voice: LIMINA_TTS=none"], offscreen.stdout);
  assert(!offscreen.stdout.includes(" sings "), offscreen.stdout);
});

test("windowed under Xvfb, the window shows the hedgehog on its floor, and it sings at its mouth (espeak-ng)", async () => {
  // Deterministic: frame 60 shows the same world however long a loaded machine takes to load it.
  const run = await runDemo("hedgehog_dance", { frames: 60, size: "640x360", window: true, deterministic: true, env: { LIMINA_AUDIO: "null" } });
  assert(/\(640×360, frame 60, .*, window\)/.test(run.stderr), run.stderr);
  const all = run.frame.width * run.frame.height;
  const hedgehog = countPixels(run.frame, tan);
  assert(hedgehog > all * 0.012, `${hedgehog} hedgehog pixels of ${all}`);
  assert(countPixels(run.frame, tile) > all * 0.03, "lit tiles");
  // The first bar's line, through audio.speak, placed at the mouth: the front of the head, above the floor.
  const sung = /^the hedgehog sings "([^"]+)" at its mouth \((-?[\d.]+), (-?[\d.]+), (-?[\d.]+)\)$/m.exec(run.stdout);
  assert(sung, run.stdout);
  assertEquals(sung[1], "Hedgehog, hedgehog, dancing all night");
  const [x, y, z] = sung.slice(2).map(Number);
  assert(Math.hypot(x, z) > 0.5 && Math.hypot(x, z) < 1 && y > 0.2 && y < 1, `the mouth at (${x}, ${y}, ${z})`);
});

test("cleanup", cleanUp);
