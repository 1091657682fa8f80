// Running a built-in demo as users do (`limina demo NAME …`), offscreen or
// in a window on a private Xvfb display, and reading its last frame back:
// what the showcase demo suites share.
import { type DecodedImage, readPng } from "limina";
import { assertEquals } from "limina/testing";

export interface DemoRun {
  stdout: string;
  stderr: string;
  /** The last frame, as written by --screenshot. */
  frame: DecodedImage;
}

const dir = (await Limina.run({ cmd: "mktemp", args: ["-d", "/tmp/limina-demos-XXXXXX"] })).stdout.trim();
let runs = 0;

/** A scratch path for this suite's files. */
export function scratch(name: string): string {
  return `${dir}/${name}`;
}

interface DemoOptions {
  frames: number;
  size?: string;
  window?: boolean | "fullscreen";
  screen?: string;
  deterministic?: boolean;
  env?: Record<string, string>;
  args?: string[];
}

/**
 * Runs `limina demo NAME` for `frames` frames at `size` and reads back its
 * last frame; `window` runs it windowed (`"fullscreen"`: borderless
 * fullscreen) under xvfb-run on a `screen`-sized display. Fails unless it exits 0.
 */
export async function runDemo(name: string, options: DemoOptions): Promise<DemoRun> {
  const png = scratch(`${name}-${++runs}.png`);
  const r = await launch(name, options, ["--screenshot", png]);
  return { stdout: r.stdout, stderr: r.stderr, frame: readPng(png) };
}

/**
 * Runs `limina demo NAME` offscreen for `frames` frames with no screenshot, so
 * it draws no frame: for what it prints. Fails unless it exits 0.
 */
export function demoOutput(name: string, options: Omit<DemoOptions, "size" | "window" | "screen">): Promise<{ stdout: string; stderr: string }> {
  return launch(name, options, []);
}

async function launch(name: string, options: DemoOptions, output: string[]): Promise<{ stdout: string; stderr: string }> {
  const args = ["demo", name, "--frames", String(options.frames), ...output, "--size", options.size ?? "320x240"];
  if (options.deterministic) args.push("--deterministic");
  if (options.args) args.push(...options.args);
  if (options.window) args.push(options.window === "fullscreen" ? "--fullscreen" : "--window");
  const r = options.window
    ? await Limina.run({ cmd: "xvfb-run", args: ["-a", "-s", `-screen 0 ${options.screen ?? "1024x768"}x24`, Limina.execPath, ...args], env: options.env })
    : await Limina.run({ cmd: Limina.execPath, args, env: options.env });
  assertEquals(r.code, 0, `limina ${args.join(" ")}:\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** How many of the frame's pixels (within `region`, default all) satisfy `is`. */
export function countPixels(
  frame: DecodedImage,
  is: (r: number, g: number, b: number) => boolean,
  region: { x0: number; y0: number; x1: number; y1: number } = { x0: 0, y0: 0, x1: frame.width, y1: frame.height },
): number {
  let n = 0;
  for (let y = region.y0; y < region.y1; y++) {
    for (let x = region.x0; x < region.x1; x++) {
      const o = (y * frame.width + x) * 4;
      if (is(frame.data[o], frame.data[o + 1], frame.data[o + 2])) n++;
    }
  }
  return n;
}

/**
 * Runs along the rows of `region` from dark (below 70) to light (above 150):
 * text on a panel makes many, a plain panel at most two a row.
 */
export function textStrokes(frame: DecodedImage, region: { x0: number; y0: number; x1: number; y1: number }): number {
  let strokes = 0;
  for (let y = region.y0; y < region.y1; y++) {
    let dark = false;
    for (let x = region.x0; x < region.x1; x++) {
      const o = (y * frame.width + x) * 4;
      const v = Math.max(frame.data[o], frame.data[o + 1], frame.data[o + 2]);
      if (v < 70) dark = true;
      else if (v > 150 && dark) {
        strokes++;
        dark = false;
      }
    }
  }
  return strokes;
}

/** Removes this suite's scratch files. */
export async function cleanUp(): Promise<void> {
  await Limina.run({ cmd: "rm", args: ["-rf", dir] });
}
