// Audio scenarios for js/test/audio.ts, run in a child process with
// LIMINA_AUDIO=wav:<file> (and --deterministic, so each fixed step mixes
// exactly 800 frames): each plays sounds through the audio.* skills on a
// timeline of fixed steps, prints what the skills answered as one JSON
// line, and exits. The parent analyses the capture.
import { createWorldSession, SAMPLE_RATE, stepsRun, waitSteps } from "limina";

const session = createWorldSession();
const caller = { agentId: "audio-test", sessionId: "sess_audio", permissions: ["audio.play"] };
const results: unknown[] = [];

async function call(skill: string, input: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await session.registry.invoke(skill, input, caller);
  if (!r.ok) throw new Error(`${skill}: ${r.error.code}: ${r.error.message}`);
  results.push(r.value);
  return r.value as Record<string, unknown>;
}

/** The camera (so the listener) at the origin, looking down -Z (or +Z when `back`). */
function faceForward(back = false): void {
  session.view.set({ position: [0, 0, 0], target: [0, 0, back ? 1 : -1] });
}

const SCENARIOS: Record<string, () => Promise<void>> = {
  // 0–1 s: a 440 Hz blip.
  async blip() {
    await call("audio.play", { freq: 440, secs: 1 });
    await waitSteps(90);
  },
  // 440 Hz on sfx and 660 Hz on ambience; at 0.5 s the sfx bus goes to 0.
  async buses() {
    await call("audio.play", { freq: 440, secs: 2, bus: "sfx" });
    await call("audio.play", { freq: 660, secs: 2, bus: "ambience" });
    await waitSteps(30);
    await call("audio.setBusVolume", { bus: "sfx", volume: 0 });
    await waitSteps(60);
  },
  // Each 0.5 s blip starts a 0.75 s segment: right of the listener, left of
  // it, then right again with the camera turned round (so now on its left).
  async pan() {
    faceForward();
    await call("audio.playAt", { freq: 500, secs: 0.5, position: [4, 0, 0] });
    await waitSteps(45);
    await call("audio.playAt", { freq: 500, secs: 0.5, position: [-4, 0, 0] });
    await waitSteps(45);
    faceForward(true);
    await waitSteps(1);
    await call("audio.playAt", { freq: 500, secs: 0.5, position: [4, 0, 0] });
    await waitSteps(45);
  },
  // 0.75 s segments: ahead at 2 m, at 4 m, at 10 m beyond a 5 m cutoff, at 10 m within a 20 m one.
  async distance() {
    faceForward();
    await call("audio.playAt", { freq: 500, secs: 0.5, position: [0, 0, -2] });
    await waitSteps(45);
    await call("audio.playAt", { freq: 500, secs: 0.5, position: [0, 0, -4] });
    await waitSteps(45);
    await call("audio.playAt", { freq: 500, secs: 0.5, position: [0, 0, -10], maxDistance: 5 });
    await waitSteps(45);
    await call("audio.playAt", { freq: 500, secs: 0.5, position: [0, 0, -10], maxDistance: 20 });
    await waitSteps(45);
  },
  // A 2 s tone stopped at 0.5 s; stopping it again, or a made-up handle, answers ok: false.
  async stop() {
    const { handle } = await call("audio.play", { freq: 440, secs: 2 });
    await waitSteps(30);
    await call("audio.stop", { handle });
    await call("audio.stop", { handle });
    await call("audio.setVolume", { handle: "snd_zzz", volume: 0.5 });
    await waitSteps(60);
  },
  // Real time (synthesis takes real time): a line of speech at 1 m ahead,
  // played to its end (a bus muted first when asked).
  async speak() {
    faceForward();
    if (Limina.args[1]) await call("audio.setBusVolume", { bus: Limina.args[1], volume: 0 });
    const { handle } = await call("audio.speak", { text: "Hello from the voice bus.", position: [0, 0, -1] });
    const start = performance.now();
    while (session.audio.playing(parseInt(String(handle).slice(4), 36))) {
      if (performance.now() - start > 30_000) throw new Error("the line was not spoken within 30 s");
      await waitSteps(1);
    }
    await waitSteps(6);
  },
  // Real time: a line whose synthesiser waits for the file named by the
  // second argument, created once 30 steps have run after asking for it.
  async held() {
    const { handle } = await call("audio.speak", { text: "Held.", position: [0, 0, -1] });
    const id = parseInt(String(handle).slice(4), 36);
    const before = stepsRun();
    await waitSteps(30);
    results.push({ steps: stepsRun() - before, playing: session.audio.playing(id) });
    await Limina.run({ cmd: "touch", args: [Limina.args[1]] });
    const start = performance.now();
    while (session.audio.playing(id)) {
      if (performance.now() - start > 30_000) throw new Error("the line was not spoken within 30 s");
      await waitSteps(1);
    }
  },
  // An ambience bed for 0.5 s, then stopped.
  async ambient() {
    const { handle } = await call("audio.ambient", {});
    await waitSteps(30);
    await call("audio.stop", { handle });
    await waitSteps(30);
  },
  // 1 s of 1 kHz synthesised here and handed over as PCM (the buffer is detached, not copied).
  async pcm() {
    const samples = new Float32Array(SAMPLE_RATE);
    for (let i = 0; i < samples.length; i++) samples[i] = 0.4 * Math.sin((2 * Math.PI * 1000 * i) / SAMPLE_RATE);
    session.audio.playPcm(samples);
    results.push({ detached: samples.length === 0 && samples.buffer.byteLength === 0 });
    await waitSteps(75);
  },
  // No voice: each audio.speak fails saying why (the reason is logged once).
  async unvoiced() {
    for (let i = 0; i < 2; i++) {
      const r = await session.registry.invoke("audio.speak", { text: "hello", position: [0, 0, 0] }, caller);
      results.push(r.ok ? r.value : r.error);
    }
  },
  // Real time: a tone that outlasts the process, which is ended from outside (SIGTERM).
  async hold() {
    await call("audio.play", { freq: 440, secs: 10 });
    await new Promise(() => {});
  },
};

const scenario = SCENARIOS[Limina.args[0]];
if (!scenario) throw new Error(`no scenario ${Limina.args[0]}: one of ${Object.keys(SCENARIOS).join(", ")}`);
await scenario();
console.log(JSON.stringify(results));
Limina.exit(0);
