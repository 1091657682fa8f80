// Offscreen rendering on the WebGPU adapter this machine has (lavapipe's
// "llvmpipe" on the CPU here): real pixels, asserted.
import { assert, assertEquals, assertThrows, test } from "limina/testing";
import * as THREE from "three";
import { createOffscreenRenderer, decodePng, loadGltf, readPng, renderConfig, writePng } from "limina";
import { partlyCoveredPixels } from "./support/edges.ts";

const W = 200;
const H = 150;
const out = await createOffscreenRenderer(W, H, { antialias: false });

function pixelAt(px: Uint8Array, x: number, y: number): number[] {
  const o = (Math.round(y) * W + Math.round(x)) * 4;
  return Array.from(px.subarray(o, o + 4));
}

function project(camera: THREE.Camera, p: [number, number, number]): [number, number] {
  const v = new THREE.Vector3(...p).project(camera);
  return [((v.x + 1) / 2) * (W - 1), ((1 - v.y) / 2) * (H - 1)];
}

const luminance = (c: number[]) => 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];

test("a real WebGPU adapter renders the scene", () => {
  assert(out.adapter.length > 0, "adapter named");
  console.log(`  adapter: ${out.adapter}`);
});

test("an object's colour where it stands, the background elsewhere", async () => {
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x203040);
  const camera = new THREE.PerspectiveCamera(50, W / H, 0.1, 100);
  camera.position.set(0, 0, 5);
  camera.lookAt(0, 0, 0);
  const box = new THREE.Mesh(new THREE.BoxGeometry(1.2, 1.2, 1.2), new THREE.MeshBasicMaterial({ color: 0xff2000 }));
  box.position.set(-1, 0, 0);
  scene.add(box);
  out.renderer.render(scene, camera);
  const px = await out.readPixels();
  assertEquals(px.length, W * H * 4);
  const [bx, by] = project(camera, [-1, 0, 0]);
  const at = pixelAt(px, bx, by);
  assert(at[0] > 200 && at[1] < 80 && at[2] < 40, `the red box at (${bx.toFixed(0)}, ${by.toFixed(0)}): ${at}`);
  const [ex, ey] = project(camera, [1.5, 0, 0]);
  assertEquals(pixelAt(px, ex, ey), [0x20, 0x30, 0x40, 255], "the background, exactly");
});

test("without antialiasing, edges are hard: no partly covered pixels", async () => {
  assertEquals(out.renderer.samples, 0);
  assertEquals(await partlyCoveredPixels(out.renderer, out.readPixels), 0);
});

test("a shadowed region of the floor is darker than its lit region", async () => {
  out.renderer.shadowMap.enabled = true;
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x000000);
  const camera = new THREE.PerspectiveCamera(50, W / H, 0.1, 100);
  camera.position.set(0, 8, 0.01);
  camera.lookAt(0, 0, 0);
  const floor = new THREE.Mesh(new THREE.PlaneGeometry(20, 20), new THREE.MeshStandardMaterial({ color: 0xcccccc, roughness: 1 }));
  floor.rotation.x = -Math.PI / 2;
  floor.receiveShadow = true;
  scene.add(floor);
  const caster = new THREE.Mesh(new THREE.BoxGeometry(1, 1, 1), new THREE.MeshStandardMaterial({ color: 0x3366ff }));
  caster.position.set(0, 1, 0);
  caster.castShadow = true;
  scene.add(caster);
  scene.add(new THREE.AmbientLight(0xffffff, 0.3));
  const sun = new THREE.DirectionalLight(0xffffff, 3);
  sun.position.set(5, 10, 0);
  sun.castShadow = true;
  sun.shadow.mapSize.set(1024, 1024);
  const cam = sun.shadow.camera as THREE.OrthographicCamera;
  cam.left = cam.bottom = -5;
  cam.right = cam.top = 5;
  scene.add(sun, sun.target);
  out.renderer.render(scene, camera);
  const px = await out.readPixels();
  // Light from +x: the box's shadow falls on the floor toward -x.
  const shadow = pixelAt(px, ...project(camera, [-0.95, 0, 0]));
  const lit = pixelAt(px, ...project(camera, [2.5, 0, 0]));
  const litOtherSide = pixelAt(px, ...project(camera, [-2.5, 0, 1.5]));
  assert(luminance(shadow) < 0.6 * luminance(lit), `shadow ${shadow} vs lit ${lit}`);
  assert(luminance(shadow) < 0.6 * luminance(litOtherSide), `shadow ${shadow} vs lit ${litOtherSide}`);
  const top = pixelAt(px, ...project(camera, [0, 1.5, 0]));
  assert(top[2] > top[0], `the caster is blue from above: ${top}`);
});

test("a textured glTF from assets/ shows its texture: both checker colours on its face", async () => {
  const { object, resource } = await loadGltf("checker_cube");
  assertEquals([resource.meshCount, resource.textureCount], [1, 1]);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x000000);
  scene.add(new THREE.AmbientLight(0xffffff, 3));
  object.position.set(0, -0.5, 0);
  scene.add(object);
  const camera = new THREE.PerspectiveCamera(40, W / H, 0.1, 100);
  camera.position.set(0, 0, 3);
  camera.lookAt(0, 0, 0);
  out.renderer.render(scene, camera);
  const px = await out.readPixels();
  let orange = 0;
  let teal = 0;
  for (let i = 0; i < 8; i++) {
    for (let j = 0; j < 8; j++) {
      // The centres of the 8×8 squares on the front face (z = 0.5).
      const [x, y] = project(camera, [-0.5 + (i + 0.5) / 8, -0.5 + (j + 0.5) / 8, 0.5]);
      const [r, g, b] = pixelAt(px, x, y);
      if (r > 1.5 * g && g > b) orange++;
      else if (g > 2 * r && b > 2 * r) teal++;
    }
  }
  assertEquals([orange, teal], [32, 32], "an 8×8 checkerboard, square by square");
});

test("limina --screenshot writes the last frame of a demo as PNG, with no window", async () => {
  const path = `/tmp/limina-shot-${Date.now()}.png`;
  const r = await Limina.run({ cmd: Limina.execPath, args: ["demo", "billiards", "--deterministic", "--frames", "30", "--screenshot", path, "--size", "320x180"] });
  assertEquals(r.code, 0, r.stderr);
  assert(r.stderr.includes(`wrote ${path} (320×180, frame 30`), r.stderr);
  const ihdr = await Limina.run({ cmd: "python3", args: ["-c", `import struct,sys; d=open(sys.argv[1],'rb').read(33); assert d[:8]==b'\\x89PNG\\r\\n\\x1a\\n'; print(*struct.unpack('>II', d[16:24]))`, path] });
  assertEquals(ihdr.stdout.trim(), "320 180", ihdr.stderr);
  const png = readPng(path);
  assertEquals([png.width, png.height, png.data.length], [320, 180, 320 * 180 * 4]);
  const colours = new Set<number>();
  for (let i = 0; i < png.data.length; i += 4 * 97) colours.add((png.data[i] << 16) | (png.data[i + 1] << 8) | png.data[i + 2]);
  assert(colours.size > 10, `a drawn frame, not a blank one (${colours.size} colours sampled)`);
});

test("PNG ops: write, read back and decode RGBA8 exactly; the render config is the command line's", async () => {
  const w = 5;
  const h = 3;
  const rgba = new Uint8Array(w * h * 4).map((_, i) => (i * 37) & 255);
  const path = `/tmp/limina-png-${Date.now()}.png`;
  writePng(path, w, h, rgba);
  const back = readPng(path);
  assertEquals([back.width, back.height], [w, h]);
  assertEquals(Array.from(back.data), Array.from(rgba), "lossless round trip");
  const hex = await Limina.run({ cmd: "od", args: ["-An", "-v", "-tx1", path] });
  const bytes = Uint8Array.from(hex.stdout.trim().split(/\s+/), (b) => parseInt(b, 16));
  const decoded = decodePng(bytes);
  assertEquals([decoded.width, decoded.height, Array.from(decoded.data)], [w, h, Array.from(rgba)]);
  assertThrows(() => decodePng(Uint8Array.of(1, 2, 3)), { name: "LiminaError", code: "invalid_input" });
  assertEquals(renderConfig(), { screenshot: null, width: 1280, height: 720, maxFrames: null, quality: null }, "no --size, --frames, --screenshot or --quality given");
});

test("with no WebGPU adapter, createEngine says so", async () => {
  const r = await Limina.run({ cmd: "env", args: ["DENO_WEBGPU_BACKEND=dx12", Limina.execPath, "tests/fixtures/engine_no_adapter.ts"] });
  assertEquals(r.code, 1);
  assert(r.stderr.includes("engine: no WebGPU adapter"), r.stderr);
});
