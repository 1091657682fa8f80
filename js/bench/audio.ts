// Audio benchmark (real time, LIMINA_AUDIO=null unless set): the mixer's
// cost per block with 64 simultaneous positional voices, measured on the
// audio thread; and the fixed step's time (p99) and the gap between steps
// (p99) while a world of 200 physics bodies runs, with and without a long
// line of speech being synthesised (espeak-ng) at the same time.
// Usage: LIMINA_AUDIO=null limina js/bench/audio.ts    Final line: JSON.
import { audioInfo, createWorldSession, mixerBlocks, onFixedStep } from "limina";

const VOICES = 64;
// The step is timed from a hook registered before the session's systems to
// one registered after them.
let begin = 0;
let record: ((start: number, took: number) => void) | null = null;
onFixedStep(() => void (begin = performance.now()));
const session = createWorldSession();
onFixedStep(() => record?.(begin, performance.now() - begin));
const { audio, entities } = session;
const body = { size: 0.5, color: 0x8899aa, static: false, friction: 0.5, restitution: 0.2 };
entities.create({ ...body, shape: "box", size: 40, position: [0, -20, 0], dynamic: false, static: true });
for (let i = 0; i < 200; i++) entities.create({ ...body, shape: "sphere", position: [(i % 20) - 10, 1 + Math.floor(i / 20), (i % 7) * 0.1], dynamic: true });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

// 64 positional voices around the listener, each 10 s long.
const handles: number[] = [];
for (let i = 0; i < VOICES; i++) {
  const a = (2 * Math.PI * i) / VOICES;
  handles.push(audio.playAt({ freq: 200 + 10 * i, secs: 10, volume: 0.2, position: [5 * Math.cos(a), 0, 5 * Math.sin(a)], maxDistance: 100 }));
}
await sleep(3000);
const blocks = mixerBlocks().filter((b) => b.voices === VOICES);
for (const h of handles) audio.stop(h);
const perBlock = blocks.map((b) => b.micros);
const per10ms = blocks.map((b) => (b.micros * 480) / b.frames);

/** Step work time and step-to-step gaps over `ms` of real time. */
async function ticks(ms: number): Promise<{ stepP50Ms: number; stepP99Ms: number; gapP99Ms: number; steps: number }> {
  const work: number[] = [];
  const starts: number[] = [];
  record = (start, took) => {
    starts.push(start);
    work.push(took);
  };
  await sleep(ms);
  record = null;
  const gaps = starts.slice(1).map((t, i) => t - starts[i]);
  return { stepP50Ms: round(pct(work, 0.5)), stepP99Ms: round(pct(work, 0.99)), gapP99Ms: round(pct(gaps, 0.99)), steps: work.length };
}

const quiet = await ticks(3000);
const line = "Somewhere beyond the ridge the wind picked up, carrying the smell of rain over the empty fields. ".repeat(6).slice(0, 500);
let speaking: Awaited<ReturnType<typeof ticks>> | null = null;
let speechError: string | null = null;
try {
  // Twelve long lines keep the synthesiser busy for most of the window (each takes espeak-ng some 0.2 s here).
  const speeches = Array.from({ length: 12 }, (_, i) => audio.speak(line, [i - 6, 0, -2]));
  speaking = await ticks(3000);
  for (const h of speeches) audio.stop(h);
} catch (e) {
  speechError = String(e);
}

const figures = {
  bench: "audio",
  backend: audioInfo().backend,
  voice: audioInfo().voice,
  voices: VOICES,
  mixerBlocks: blocks.length,
  mixerBlockFrames: blocks.length ? pct(blocks.map((b) => b.frames), 0.5) : null,
  mixerBlockP50Us: round(pct(perBlock, 0.5), 1),
  mixerBlockP99Us: round(pct(perBlock, 0.99), 1),
  mixerPer10msP50Us: round(pct(per10ms, 0.5), 1),
  mixerPer10msP99Us: round(pct(per10ms, 0.99), 1),
  tickQuiet: quiet,
  tickWithTts: speaking,
  speechError,
};
console.log(
  `mixer, ${VOICES} positional voices: p50 ${figures.mixerBlockP50Us} µs, p99 ${figures.mixerBlockP99Us} µs per ${figures.mixerBlockFrames}-frame block (${figures.mixerPer10msP50Us} µs per 10 ms of audio)`,
);
console.log(`fixed step (200 bodies): quiet p99 ${quiet.stepP99Ms} ms, gap p99 ${quiet.gapP99Ms} ms; synthesising speech p99 ${speaking?.stepP99Ms} ms, gap p99 ${speaking?.gapP99Ms} ms`);
console.log(JSON.stringify(figures));
Limina.exit(0);
