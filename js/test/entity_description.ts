// Entities describe themselves (docs/entities.md): scene.describe and
// inspector.snapshot give each entity's look — shape and dimensions,
// colour, PBR parameters, named material, visibility — with its tags,
// transform, body and joints, in a form that makes the same entity again;
// snapshots keep it; the WebSocket state stream carries it to clients that
// built nothing (js/test/node/ws_looks.mjs).
import { createWorldSession, restoreBytes, snapshotBytes } from "limina";
import { assertEquals, assertNotEquals, test } from "limina/testing";
import { drive } from "./support/drivers.ts";
import { value } from "./support/results.ts";
import { builder, builderWorld } from "./support/toolbox.ts";

interface Description {
  entity: string;
  look: Record<string, unknown> & { shape: string };
  tags: string[];
  transform: { position: number[]; rotation: number[]; scale: number[] };
  body: Record<string, unknown> | null;
  joints: unknown[];
}

test("scene.describe: the look is what another client redraws from, and what makes the same entity again", async () => {
  const w = builderWorld();
  const { entity } = await w.call<{ entity: string }>("scene.createEntity", {
    shape: "capsule", radius: 0.3, height: 1.8, color: 0x3366cc, roughness: 0.2, metalness: 0.7, position: [1, 2, 3], rotationEuler: [0, Math.PI / 2, 0], dynamic: true, ccd: true, tags: ["npc"],
  });
  const d = await w.call<Description>("scene.describe", { entity });
  assertEquals(d.look, { shape: "capsule", radius: 0.3, height: 1.8, color: 0x3366cc, roughness: 0.2, metalness: 0.7, material: null, visible: true });
  assertEquals(d.tags, ["npc"]);
  assertEquals(d.transform.position, [1, 2, 3]);
  assertEquals([d.body!.type, d.body!.ccd, d.body!.sensor], ["dynamic", true, false]);
  // The look (but the material, which material.apply names) and transform, handed back to scene.createEntity, make an entity that looks the same.
  const { material: _material, ...look } = d.look;
  const { entity: copy } = await w.call<{ entity: string }>("scene.createEntity", { ...look, position: d.transform.position, rotation: d.transform.rotation, tags: d.tags });
  const c = await w.call<Description>("scene.describe", { entity: copy });
  assertEquals([c.look, c.tags, c.transform], [d.look, d.tags, d.transform]);
  // Changes show: colour, PBR, visibility, the name of an applied material.
  await w.call("three.setMaterial", { entity, color: 0xff0000, roughness: 0.9 });
  await w.call("scene.setVisible", { entity, visible: false });
  const changed = await w.call<Description>("scene.describe", { entity });
  assertEquals([changed.look.color, changed.look.roughness, changed.look.visible, changed.look.material], [0xff0000, 0.9, false, null]);
  // A library material (material.apply) is named, its tint the colour.
  await w.call("material.apply", { entityId: entity, material: "wood", tint: 0xddccbb });
  const dressed = await w.call<Description>("scene.describe", { entity });
  assertEquals([dressed.look.material, dressed.look.color, dressed.look.visible], ["wood", 0xddccbb, false]);
});

test("inspector.snapshot gives every entity's look; a model's is its asset; an entity the module made by hand has none", async () => {
  const w = builderWorld();
  await w.call("scene.createEntity", { shape: "torus", radius: 1, tube: 0.25, color: 0x00aa00 });
  await w.call("scene.createEntity", { shape: "plane", size: [8, 0, 4], color: 0x777777, static: true });
  await w.call("three.loadGLTF", { assetId: "crate", position: [3, 0, 0] });
  w.s.world.spawn({ position: [9, 9, 9] });
  const snap = await w.call<{ entities: { entity: string; look: unknown; physics: Record<string, unknown> }[] }>("inspector.snapshot", {});
  assertEquals(snap.entities.map((e) => e.look), [
    { shape: "torus", radius: 1, tube: 0.25, color: 0x00aa00, roughness: 0.5, metalness: 0, material: null, visible: true },
    { shape: "plane", size: [8, 0, 4], color: 0x777777, roughness: 0.5, metalness: 0, material: null, visible: true },
    { shape: "mesh", asset: "crate", color: null, material: null, visible: true },
    null,
  ]);
  assertEquals(snap.entities[1].physics, { bodyId: 1, type: "static", sensor: false });
});

test("looks are world state: a snapshot restores them and the digest covers them", async () => {
  const w = builderWorld();
  const { entity } = await w.call<{ entity: string }>("scene.createEntity", { shape: "cone", radius: 0.5, height: 1, color: 0x123456, tags: ["marker"] });
  await w.call("scene.setVisible", { entity, visible: false });
  const restored = createWorldSession({ simulate: false });
  await restoreBytes(restored, snapshotBytes(w.s));
  assertEquals(restored.digest(), w.s.digest());
  const describe = async (s: typeof restored) => value(await s.registry.invoke("scene.describe", { entity }, builder));
  assertEquals(await describe(restored), await describe(w.s));
  const before = w.s.digest();
  await w.call("three.setMaterial", { entity, color: 0x654321 });
  assertNotEquals(w.s.digest(), before, "a colour change changes the digest");
});

test("the WebSocket state stream carries looks and tags, and resends them when they change", async () => {
  const out = await drive("node", "js/test/node/ws_looks.mjs");
  assertEquals(out.checks, 15);
});
