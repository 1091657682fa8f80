// The native window on a private Xvfb display: what the X server shows in
// the window is the frame Three.js drew; Escape and a window-manager close
// end the program with exit code 0; the drawing buffer follows a resize;
// --fullscreen covers the screen; --screenshot reads the window's frame.
// tests/window/x11_driver.py plays the user; the assertions are here.
import { readPng } from "limina";
import { assert, assertEquals, test } from "limina/testing";

const RED = [255, 32, 0]; // the fixture's box, no tone mapping
const BLUE = [32, 64, 160]; // its background
const dir = `/tmp/limina-window-${Date.now()}`;
const run = await Limina.run({ cmd: "mkdir", args: ["-p", dir] }).then(() =>
  Limina.run({ cmd: ".venv/bin/python", args: ["tests/window/x11_driver.py", Limina.execPath, "tests/fixtures/window_scene.ts", dir] })
);
if (run.code !== 0) throw new Error(`x11_driver.py failed (${run.code}):\n${run.stderr}`);
// deno-lint-ignore no-explicit-any
const reports: Record<string, any> = Object.fromEntries(run.stdout.trim().split("\n").map((l) => JSON.parse(l)).map((r) => [r.scenario, r]));

const near = (got: number[], want: number[], what: string) =>
  assert(got.every((v, i) => Math.abs(v - want[i]) <= 2), `${what}: got ${got}, want ${want}`);

for (const name of ["escape", "close"]) {
  test(`the window shows the drawn frame, and ${name === "escape" ? "Escape" : "a close request"} exits with 0`, () => {
    const r = reports[name];
    assertEquals(r.ready, "ready 320x240 windowed=true", r.stderr);
    assert(r.window_found, "a window titled after the module");
    assertEquals(r.size, [320, 240]);
    near(r.pixels.center, RED, "the box in the middle of the window");
    near(r.pixels.corner, BLUE, "the background in the corner");
    assertEquals(r.exit_code, 0, r.stderr);
    assert(r.exit_seconds < 5, `exited ${r.exit_seconds} s after the request`);
    assertEquals(r.stderr, "", "nothing on stderr");
  });
}

test("a resized window gets a drawing buffer of its new size", () => {
  const r = reports.resize;
  assertEquals(r.after.resized, "size 480x200", r.stderr);
  assertEquals(r.after.size, [480, 200]);
  near(r.after.pixels.center, RED, "the box, re-centred in the wider window");
  near(r.after.pixels.corner, BLUE, "the background");
  assertEquals(r.exit_code, 0, r.stderr);
});

test("keys, clicks and the wheel reach the module's fixed steps", () => {
  const r = reports.input;
  assertEquals(r.after.lines.slice(0, 4), ["pressed KeyW", "released KeyW", "button down 1 at 100,60", "button up 1 at 100,60"], r.stderr);
  // Scrolling up is positive. A notch made through XTEST is a real button 4
  // press and release, which winit reports as a line each (a mouse's wheel
  // arrives as axis motion and reads as one).
  const wheel = Number(r.after.lines[4]?.split(" ")[1]);
  assert(wheel === 1 || wheel === 2, `one notch up: ${r.after.lines[4]}`);
  assertEquals(r.exit_code, 0, r.stderr);
});

test("--fullscreen covers the screen", () => {
  const r = reports.fullscreen;
  assertEquals(r.ready, "ready 800x600 windowed=true", r.stderr);
  assertEquals(r.size, [800, 600]);
  near(r.pixels.center, RED, "the box");
  assertEquals(r.exit_code, 0, r.stderr);
});

test("--window --frames N --screenshot writes the window's last frame", () => {
  const r = reports.screenshot;
  assertEquals(r.exit_code, 0, r.stderr);
  assert(r.stderr.includes("(320×240, frame 30, ") && r.stderr.includes(", window)"), r.stderr);
  const png = readPng(r.path);
  assertEquals([png.width, png.height], [320, 240]);
  const at = (x: number, y: number) => Array.from(png.data.subarray((y * png.width + x) * 4, (y * png.width + x) * 4 + 3)) as number[];
  near(at(160, 120), RED, "the box");
  near(at(10, 10), BLUE, "the background");
});

test("without a display, --window is a clear error and runs nothing", () => {
  const r = reports.no_display;
  assertEquals(r.exit_code, 1);
  assertEquals(r.stderr.trim(), "error: cannot open a window: no X11 display (DISPLAY is not set); run on a desktop session or under xvfb-run");
});
