// Matrix samples: the builder's toolbox — entity descriptions, tags and visibility, prefabs,
// sensors, velocities, body types, joints and motors, the kill plane. The fixture adds a hidden
// sensor (named "sensor"), a hinge between the base fixture's ent_2 and ent_1 (jnt_1) and a
// prefab named "fixture".
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  async prepare(w) {
    const { entity } = await w.must<{ entity: string }>("scene.createEntity", { shape: "cylinder", radius: 1, height: 2, position: [3, 0, 0], sensor: true, visible: false });
    w.name("sensor", entity);
    await w.must("physics.createJoint", { type: "revolute", entityA: "ent_2", entityB: "ent_1", anchor: [0, 0.5, 0], axis: [1, 0, 0] });
    await w.must("scene.definePrefab", { name: "fixture", entities: [{ shape: "torus", dynamic: true }, { shape: "plane", size: [3, 0, 3], static: true, position: [0, -1, 0] }] });
  },
  samples: {
    "scene.describe": { input: { entity: "ent_1" } },
    "scene.setTags": { input: { entity: "ent_1", tags: ["door"] } },
    "scene.setVisible": { input: { entity: "ent_1", visible: false } },
    "scene.definePrefab": { input: { name: "hut", entities: [{ shape: "box", size: [2, 1, 2], static: true }, { shape: "cone", radius: 1.5, height: 1, position: [0, 1, 0] }] } },
    "scene.instantiate": { input: { prefab: "fixture", position: [4, 0, 0], scale: 2 } },
    "scene.listPrefabs": { input: {} },
    "physics.sensorContents": { input: (w) => ({ entity: w.ref("sensor") }) },
    "physics.setVelocity": { input: { entity: "ent_1", linear: [1, 0, 0], angular: [0, 1, 0] } },
    "physics.setBodyType": { input: { entity: "ent_1", type: "kinematic" } },
    "physics.createJoint": { input: { type: "rope", entityA: "ent_1", entityB: "ent_2", length: 3 } },
    "physics.removeJoint": { input: { joint: "jnt_1" } },
    "physics.setMotor": { input: { joint: "jnt_1", targetVelocity: 2, maxForce: 10 } },
    "physics.getJoint": { input: { joint: "jnt_1" } },
    "physics.setKillPlane": { input: { y: -50, action: "respawn" } },
  },
};
