// Matrix samples: scene.*, ecs.*, three.*, camera.* (the base fixture's ent_1 is dynamic, ent_2 static and tagged "fixture").
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  samples: {
    "scene.createEntity": { input: { shape: "sphere", position: [0, 2, 0], dynamic: true } },
    "scene.destroyEntity": { input: { entity: "ent_1" } },
    "scene.queryEntities": { input: { near: [0, 0, 0], radius: 10 } },
    "ecs.updateComponent": { input: { entity: "ent_1", component: "position", value: [1, 2, 3] } },
    "ecs.addComponent": { input: { entity: "ent_1", component: "target" } },
    "ecs.removeComponent": { input: { entity: "ent_2", component: "fixture" } },
    "three.setTransform": { input: { entity: "ent_1", rotationEuler: [0, 1, 0] } },
    "three.setMaterial": { input: { entity: "ent_1", color: 0xff0000 } },
    "three.setLighting": { input: { ambientIntensity: 2 } },
    "three.loadGLTF": { input: { assetId: "crate" } },
    "camera.set": { input: { position: [0, 3, 6], target: [0, 1, 0], fov: 45 } },
    "camera.get": { input: {} },
  },
};
