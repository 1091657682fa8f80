// limina: --deterministic
// The virtual clock stands still while nothing is registered to step or
// draw: a run whose worlds are gone and which waits on something else (a
// child process, a timer) runs no frames meanwhile, instead of spinning a
// core stepping nothing; the next system it registers steps again.
import { createWorldSession, onFixedStep, onFrame, waitSteps } from "limina";
import { assertEquals, test } from "limina/testing";

const child = () => Limina.run({ cmd: "sleep", args: ["0.2"] });

test("with no systems left, awaiting a child process or a timer runs no frames", async () => {
  await waitSteps(3);
  const before = Limina.loop.stats();
  const exited = await child();
  assertEquals(exited.code, 0);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const after = Limina.loop.stats();
  assertEquals([after.frames, after.steps], [before.frames, before.steps], "no frame ran while nothing was registered");
});

test("a system registered after an idle wait steps again, and its removal idles the loop again", async () => {
  await child();
  const from = Limina.loop.stats().steps;
  const seen: number[] = [];
  const off = onFixedStep((_dt, step) => seen.push(step));
  await waitSteps(4);
  off();
  assertEquals(Limina.loop.stats().steps, from + 4);
  assertEquals(seen.length, 4);
  const frames = Limina.loop.stats().frames;
  await child();
  assertEquals(Limina.loop.stats().frames, frames);
});

test("a frame system alone keeps frames running; removing it idles the loop", async () => {
  const from = Limina.loop.stats();
  await new Promise<void>((resolve) => {
    let drawn = 0;
    const off = onFrame(() => {
      if (++drawn === 3) {
        off();
        resolve();
      }
    });
  });
  const drawn = Limina.loop.stats();
  assertEquals(drawn.frames, from.frames + 3);
  await child();
  assertEquals(Limina.loop.stats().frames, drawn.frames);
});

test("a live world session keeps the clock going; once disposed, it stands still", async () => {
  const session = createWorldSession();
  const tick = session.tick;
  await waitSteps(5);
  assertEquals(session.tick, tick + 5);
  session.dispose();
  const frames = Limina.loop.stats().frames;
  await child();
  assertEquals(Limina.loop.stats().frames, frames, "a disposed session leaves nothing stepping");
});
