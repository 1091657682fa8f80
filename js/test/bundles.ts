// The committed third-party bundles load in V8 with no DOM and no Node,
// through their public specifiers ("three", "bitecs", "zod").
import { assert, assertEquals, assertThrows, test } from "limina/testing";
import * as THREE from "three";
import { addComponent, addEntity, createWorld, hasComponent, query, removeEntity } from "bitecs";
import { z } from "zod";

test("bundle versions are the pinned ones", async () => {
  // The pins live beside the bundles (js/build/VERSIONS.json), outside what a module may import.
  const pinned = await Limina.run({ cmd: "cat", args: ["js/build/VERSIONS.json"] });
  assertEquals(pinned.code, 0, pinned.stderr);
  assertEquals(JSON.parse(pinned.stdout), { three: "0.187.0", bitecs: "0.4.0", zod: "4.6.7" });
  assertEquals(THREE.REVISION, "187");
});

test("three.js builds a scene graph headless", () => {
  const scene = new THREE.Scene();
  const mesh = new THREE.Mesh(
    new THREE.BoxGeometry(2, 2, 2),
    new THREE.MeshStandardMaterial({ color: 0xff0000, roughness: 0.5 }),
  );
  mesh.position.set(1, 2, 3);
  scene.add(mesh);
  scene.updateMatrixWorld(true);
  const box = new THREE.Box3().setFromObject(mesh);
  assertEquals(box.min.toArray(), [0, 1, 2]);
  assertEquals(box.max.toArray(), [2, 3, 4]);
  assertEquals(typeof THREE.WebGPURenderer, "function");
  assertEquals(typeof THREE.GLTFLoader, "function");
});

test("bitECS world with SoA components", () => {
  const world = createWorld();
  const Position = { x: new Float32Array(16), y: new Float32Array(16) };
  const e = addEntity(world);
  addComponent(world, e, Position);
  Position.x[e] = 5;
  assert(hasComponent(world, e, Position));
  assertEquals(Array.from(query(world, [Position])), [e]);
  removeEntity(world, e);
  assertEquals(query(world, [Position]).length, 0);
});

test("zod 4 validates and reports", () => {
  const Vec3 = z.tuple([z.number(), z.number(), z.number()]);
  const Input = z.object({ position: Vec3, name: z.string().min(1).default("entity") });
  assertEquals(Input.parse({ position: [1, 2, 3] }), { position: [1, 2, 3], name: "entity" });
  const e = assertThrows(() => Input.parse({ position: [1, "x", 3] }));
  assert(e.message.includes("position"), e.message);
  assertEquals(typeof z.toJSONSchema, "function");
});

test("the Three.js specifiers share one module instance", async () => {
  const webgpu = await import("three/webgpu");
  assert(webgpu.Mesh === THREE.Mesh && webgpu.WebGPURenderer === THREE.WebGPURenderer, "three/webgpu is the same bundle as three");
  const { GLTFLoader } = await import("three/addons/loaders/GLTFLoader.js");
  assert(GLTFLoader === THREE.GLTFLoader, "the addon re-exports the bundle's GLTFLoader");
  const { GLTFExporter } = await import("three/addons/exporters/GLTFExporter.js");
  assertEquals(typeof GLTFExporter, "function");
  const tsl = await import("three/tsl");
  assert(Object.keys(tsl).length > 100 && typeof tsl.uniform === "function", "three/tsl exposes TSL's nodes");
});
