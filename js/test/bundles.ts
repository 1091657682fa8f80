// The committed third-party bundles load in V8 with no DOM and no Node.
import { assert, assertEquals, assertThrows, test } from "../src/testing.ts";
import * as THREE from "../build/three.bundle.mjs";
import { addComponent, addEntity, createWorld, hasComponent, query, removeEntity } from "../build/bitecs.bundle.mjs";
import { z } from "../build/zod.bundle.mjs";
import versions from "../build/VERSIONS.json" with { type: "json" };

test("bundle versions are the pinned ones", () => {
  assertEquals(versions, { three: "0.187.0", bitecs: "0.4.0", zod: "4.6.7" });
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
