// limina: --deterministic
// A frame read back from the GPU is work in flight, as a PNG encode or an
// asset read is: under the virtual clock no step runs between the copy and
// the pixels (deno_webgpu's mapAsync sleeps between polls on the loop's
// thread, and a clock stepping meanwhile spun a core and ran the world ahead
// of the frame it was reading); the steps go on once the pixels are read.
import { createEngine, waitSteps } from "limina";
import { assertEquals, test } from "limina/testing";

test("no step runs while a frame is read back; the clock goes on after it", async () => {
  const engine = await createEngine({ width: 64, height: 48, simulate: false });
  engine.renderFrame();
  await waitSteps(2);
  for (let i = 0; i < 3; i++) {
    const before = Limina.loop.stats().steps;
    const pixels = await engine.output.readPixels();
    assertEquals(Limina.loop.stats().steps, before, "no step ran during the readback");
    assertEquals(pixels.length, 64 * 48 * 4);
  }
  const before = Limina.loop.stats().steps;
  await waitSteps(3);
  assertEquals(Limina.loop.stats().steps, before + 3);
});
