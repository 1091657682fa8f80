// The humanoid that ships with the engine, generated in code: a 22-bone
// skeleton with Mixamo-style bone names (so clips retarget by name), and a
// low-poly skinned body — capsules, boxes and spheres along the bones,
// merged into one vertex-coloured geometry whose weights blend smoothly
// across every joint. Proportions and colours are parameters. Free of
// native ops: the browser page bundles it as it is.

import * as THREE from "three";

/** How a humanoid looks. */
export interface Appearance {
  /** Standing height, metres (default 1.75). */
  height?: number;
  /** Shoulder and hip width, as a factor of the default (default 1). */
  build?: number;
  /** Head size factor (default 1). */
  head?: number;
  skin?: number;
  hair?: number;
  shirt?: number;
  pants?: number;
  shoes?: number;
}

export const DEFAULT_APPEARANCE: Required<Appearance> = {
  height: 1.75,
  build: 1,
  head: 1,
  skin: 0xe0b48f,
  hair: 0x3b2a1e,
  shirt: 0x3f7fbf,
  pants: 0x30343c,
  shoes: 0x1c1c1f,
};

/** The skeleton, parent first. Joint positions are for a 1.75 m humanoid, feet at y = 0, facing +z. */
export const BONES: readonly { name: string; parent: string | null; at: [number, number, number] }[] = [
  { name: "Hips", parent: null, at: [0, 1.0, 0] },
  { name: "Spine", parent: "Hips", at: [0, 1.1, 0] },
  { name: "Chest", parent: "Spine", at: [0, 1.27, 0] },
  { name: "Neck", parent: "Chest", at: [0, 1.47, 0] },
  { name: "Head", parent: "Neck", at: [0, 1.56, 0.01] },
  { name: "Jaw", parent: "Head", at: [0, 1.58, 0.05] },
  { name: "LeftShoulder", parent: "Chest", at: [0.05, 1.43, 0] },
  { name: "LeftArm", parent: "LeftShoulder", at: [0.19, 1.43, 0] },
  { name: "LeftForeArm", parent: "LeftArm", at: [0.21, 1.15, 0] },
  { name: "LeftHand", parent: "LeftForeArm", at: [0.22, 0.89, 0.01] },
  { name: "RightShoulder", parent: "Chest", at: [-0.05, 1.43, 0] },
  { name: "RightArm", parent: "RightShoulder", at: [-0.19, 1.43, 0] },
  { name: "RightForeArm", parent: "RightArm", at: [-0.21, 1.15, 0] },
  { name: "RightHand", parent: "RightForeArm", at: [-0.22, 0.89, 0.01] },
  { name: "LeftUpLeg", parent: "Hips", at: [0.1, 0.97, 0] },
  { name: "LeftLeg", parent: "LeftUpLeg", at: [0.1, 0.53, 0] },
  { name: "LeftFoot", parent: "LeftLeg", at: [0.1, 0.09, 0] },
  { name: "LeftToeBase", parent: "LeftFoot", at: [0.1, 0.03, 0.13] },
  { name: "RightUpLeg", parent: "Hips", at: [-0.1, 0.97, 0] },
  { name: "RightLeg", parent: "RightUpLeg", at: [-0.1, 0.53, 0] },
  { name: "RightFoot", parent: "RightLeg", at: [-0.1, 0.09, 0] },
  { name: "RightToeBase", parent: "RightFoot", at: [-0.1, 0.03, 0.13] },
];

/** The reference height the joint table is written for. */
export const REFERENCE_HEIGHT = 1.75;
/** Thigh and shin lengths of the reference humanoid (hip 0.97 → knee 0.53 → ankle 0.09). */
export const THIGH = 0.44;
export const SHIN = 0.44;

export interface Humanoid {
  /** Put this in the scene: its origin is between the feet, facing +z. */
  root: THREE.Group;
  mesh: THREE.SkinnedMesh;
  skeleton: THREE.Skeleton;
  bones: Map<string, THREE.Bone>;
  /** Metres per reference metre (height / 1.75). */
  scale: number;
}

interface Part {
  geometry: THREE.BufferGeometry;
  color: number;
  /** The bone the part follows, the segment it spans (bind-pose, world), and the bones it blends into at each end. */
  bone: string;
  from: THREE.Vector3;
  to: THREE.Vector3;
  parent?: string;
  child?: string;
  /** A part spanning two bones, straight from its bone's joint to this bone's end: weights go linearly from one to the other. */
  span?: string;
}

const BLEND = 0.22;

/** Skin weights for a vertex at parameter t along its part's segment: parent near the start, child near the end. */
function weightsAt(t: number, part: Part, index: Map<string, number>): [number[], number[]] {
  const tt = Math.min(1, Math.max(0, t));
  if (part.span) return [[index.get(part.bone)!, index.get(part.span)!, 0, 0], [1 - tt, tt, 0, 0]];
  const wp = part.parent ? Math.max(0, 0.5 - (0.5 * tt) / BLEND) : 0;
  const wc = part.child ? Math.max(0, (0.5 * (tt - (1 - BLEND))) / BLEND) : 0;
  const ids = [index.get(part.bone)!, part.parent ? index.get(part.parent)! : 0, part.child ? index.get(part.child)! : 0, 0];
  return [ids, [1 - wp - wc, wp, wc, 0]];
}

/**
 * How finely a humanoid is tessellated: "full" for one character on its own, "low" (about 40%
 * of the triangles: fewer segments round capsules and spheres) for crowds of hundreds, "coarse"
 * (about a quarter of "low": limbs as three-sided tubes, no eyes, jaw, hands or toes) for a
 * crowd's far members, and "far" (a silhouette of 44 triangles: a prism of a torso, one tube per
 * arm and per leg, an eight-sided head) for its farthest.
 */
export type HumanoidDetail = "full" | "low" | "coarse" | "far";

/** A capsule (or box, sphere) from `a` to `b` of radius `r`, its axis along a–b. */
function limb(a: THREE.Vector3, b: THREE.Vector3, r: number, shape: "capsule" | "box" | "sphere", depth: number, detail: HumanoidDetail): THREE.BufferGeometry {
  const length = a.distanceTo(b);
  let g: THREE.BufferGeometry;
  if (shape === "capsule" && (detail === "coarse" || detail === "far")) g = new THREE.CylinderGeometry(r, r, length + r, 3, 1, true);
  else if (shape === "box" && detail === "far") g = new THREE.CylinderGeometry(r, r, length, 3, 1);
  else if (shape === "capsule") g = new THREE.CapsuleGeometry(r, Math.max(0.001, length - 2 * r * 0.6), detail === "low" ? 1 : 3, detail === "low" ? 6 : 8);
  else if (shape === "box") g = new THREE.BoxGeometry(r * 2, length, depth * 2);
  else if (detail === "coarse") g = new THREE.SphereGeometry(r, 4, 3);
  else if (detail === "far") g = new THREE.SphereGeometry(r, 4, 2);
  else g = detail === "low" ? new THREE.SphereGeometry(r, 6, 4) : new THREE.SphereGeometry(r, 10, 7);
  const mid = a.clone().add(b).multiplyScalar(0.5);
  const dir = b.clone().sub(a).normalize();
  const q = new THREE.Quaternion().setFromUnitVectors(new THREE.Vector3(0, 1, 0), dir.lengthSq() > 0 ? dir : new THREE.Vector3(0, 1, 0));
  g.applyMatrix4(new THREE.Matrix4().compose(mid, q, new THREE.Vector3(1, 1, 1)));
  return g.index ? g.toNonIndexed() : g;
}

/**
 * A new humanoid with the given appearance, in its bind pose, tessellated at `detail`
 * (every detail has the same bones and skin weights, so the same clips pose it).
 */
export function createHumanoid(appearance: Appearance = {}, detail: HumanoidDetail = "full"): Humanoid {
  const look = { ...DEFAULT_APPEARANCE, ...appearance };
  const s = look.height / REFERENCE_HEIGHT;
  const wide = look.build;
  const at = new Map(BONES.map((b) => [b.name, new THREE.Vector3(b.at[0] * wide, b.at[1], b.at[2]).multiplyScalar(s)]));
  // The legs keep their spacing scaled by build; the arms hang from wider shoulders.
  const bones = new Map<string, THREE.Bone>();
  const list: THREE.Bone[] = [];
  for (const b of BONES) {
    const bone = new THREE.Bone();
    bone.name = b.name;
    const p = at.get(b.name)!;
    const parent = b.parent ? at.get(b.parent)! : new THREE.Vector3();
    bone.position.copy(p.clone().sub(parent));
    if (b.parent) bones.get(b.parent)!.add(bone);
    bones.set(b.name, bone);
    list.push(bone);
  }
  const P = (name: string) => at.get(name)!;
  const v = (x: number, y: number, z: number) => new THREE.Vector3(x * wide, y, z).multiplyScalar(s);
  const h = look.head;
  const parts: Part[] = [];
  const add = (bone: string, from: THREE.Vector3, to: THREE.Vector3, r: number, color: number, shape: "capsule" | "box" | "sphere", blend: { parent?: string; child?: string; span?: string } = {}, depth?: number) =>
    parts.push({ geometry: limb(from, to, r * s, shape, (depth ?? r) * s, detail), color, bone, from, to, ...blend });
  if (detail === "far") {
    // The silhouette: the torso one prism bending at the spine; each limb one straight tube from
    // its root joint to where its lower bone puts its end (hip to ankle, shoulder to wrist).
    add("Spine", v(0, 0.9, 0), v(0, 1.5, 0), 0.19 * wide, look.shirt, "box", { parent: "Hips", child: "Chest" });
    add("Head", v(0, 1.53, 0.01), v(0, 1.75, 0.01), 0.12 * h, look.skin, "sphere");
    for (const side of ["Left", "Right"] as const) {
      add(`${side}Arm`, P(`${side}Arm`), P(`${side}Hand`), 0.06, look.shirt, "capsule", { span: `${side}ForeArm` });
      add(`${side}UpLeg`, P(`${side}UpLeg`), P(`${side}Foot`), 0.08, look.pants, "capsule", { span: `${side}Leg` });
    }
  } else {
    // Torso: pelvis in the trousers' colour, belly and chest in the shirt's.
    add("Hips", v(0, 0.9, 0), P("Spine"), 0.15 * wide, look.pants, "box", { child: "Spine" }, 0.1);
    add("Spine", P("Spine"), P("Chest"), 0.15 * wide, look.shirt, "box", { parent: "Hips", child: "Chest" }, 0.1);
    add("Chest", P("Chest"), v(0, 1.45, 0), 0.18 * wide, look.shirt, "box", { parent: "Spine", child: "Neck" }, 0.11);
    add("Neck", P("Neck"), P("Head"), 0.05, look.skin, "capsule", { parent: "Chest", child: "Head" });
    // Head, hair cap, eyes and a jaw (which the talk clip moves).
    add("Head", v(0, 1.6, 0.01), v(0, 1.72, 0.01), 0.11 * h, look.skin, "sphere");
    add("Head", v(0, 1.65, -0.01), v(0, 1.76, -0.01), 0.112 * h, look.hair, "sphere");
    // Too small to see from afar: a coarse humanoid goes without them (and without hands and toes).
    const fine = detail !== "coarse";
    if (fine) {
      add("Head", v(0.04, 1.66, 0.1 * h), v(0.04, 1.66, 0.1 * h), 0.018 * h, 0x15151a, "sphere");
      add("Head", v(-0.04, 1.66, 0.1 * h), v(-0.04, 1.66, 0.1 * h), 0.018 * h, 0x15151a, "sphere");
      add("Jaw", v(0, 1.575, 0.05), v(0, 1.59, 0.07), 0.055 * h, look.skin, "sphere");
    }
    for (const side of ["Left", "Right"] as const) {
      const x = side === "Left" ? 1 : -1;
      add(`${side}Shoulder`, P(`${side}Shoulder`), P(`${side}Arm`), 0.06, look.shirt, "capsule", { parent: "Chest", child: `${side}Arm` });
      add(`${side}Arm`, P(`${side}Arm`), P(`${side}ForeArm`), 0.055, look.shirt, "capsule", { parent: `${side}Shoulder`, child: `${side}ForeArm` });
      add(`${side}ForeArm`, P(`${side}ForeArm`), P(`${side}Hand`), 0.045, look.skin, "capsule", { parent: `${side}Arm`, child: `${side}Hand` });
      if (fine) add(`${side}Hand`, P(`${side}Hand`), v(0.225 * x, 0.79, 0.015), 0.04, look.skin, "box", {}, 0.02);
      add(`${side}UpLeg`, P(`${side}UpLeg`), P(`${side}Leg`), 0.08, look.pants, "capsule", { parent: "Hips", child: `${side}Leg` });
      add(`${side}Leg`, P(`${side}Leg`), P(`${side}Foot`), 0.06, look.pants, "capsule", { parent: `${side}UpLeg`, child: `${side}Foot` });
      add(`${side}Foot`, v(0.1 * x, 0.05, -0.04), v(0.1 * x, 0.045, 0.1), 0.05, look.shoes, "box", { parent: `${side}Leg` }, 0.045);
      if (fine) add(`${side}ToeBase`, P(`${side}ToeBase`), v(0.1 * x, 0.035, 0.2), 0.045, look.shoes, "box", { parent: `${side}Foot` }, 0.03);
    }
  }
  const index = new Map(list.map((b, i) => [b.name, i]));
  const geometry = mergeParts(parts, index);
  const material = new THREE.MeshStandardMaterial({ vertexColors: true, roughness: 0.75, metalness: 0 });
  const mesh = new THREE.SkinnedMesh(geometry, material);
  mesh.name = "humanoid";
  mesh.castShadow = true;
  const root = new THREE.Group();
  root.add(list[0]);
  root.add(mesh);
  root.updateMatrixWorld(true);
  const skeleton = new THREE.Skeleton(list);
  mesh.bind(skeleton);
  return { root, mesh, skeleton, bones, scale: s };
}

/** One geometry from the parts: positions, normals, colours, skin indices and weights. */
function mergeParts(parts: Part[], index: Map<string, number>): THREE.BufferGeometry {
  let count = 0;
  for (const p of parts) count += p.geometry.getAttribute("position").count;
  const position = new Float32Array(count * 3);
  const normal = new Float32Array(count * 3);
  const color = new Float32Array(count * 3);
  const skinIndex = new Uint16Array(count * 4);
  const skinWeight = new Float32Array(count * 4);
  const c = new THREE.Color();
  const axis = new THREE.Vector3();
  const rel = new THREE.Vector3();
  let o = 0;
  for (const p of parts) {
    const pos = p.geometry.getAttribute("position");
    const nor = p.geometry.getAttribute("normal");
    c.setHex(p.color);
    axis.copy(p.to).sub(p.from);
    const len2 = Math.max(1e-9, axis.lengthSq());
    for (let i = 0; i < pos.count; i++, o++) {
      position.set([pos.getX(i), pos.getY(i), pos.getZ(i)], o * 3);
      normal.set([nor.getX(i), nor.getY(i), nor.getZ(i)], o * 3);
      color.set([c.r, c.g, c.b], o * 3);
      rel.set(pos.getX(i), pos.getY(i), pos.getZ(i)).sub(p.from);
      const [ids, ws] = weightsAt(rel.dot(axis) / len2, p, index);
      skinIndex.set(ids, o * 4);
      skinWeight.set(ws, o * 4);
    }
    p.geometry.dispose();
  }
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.BufferAttribute(position, 3));
  g.setAttribute("normal", new THREE.BufferAttribute(normal, 3));
  g.setAttribute("color", new THREE.BufferAttribute(color, 3));
  g.setAttribute("skinIndex", new THREE.Uint16BufferAttribute(skinIndex, 4));
  g.setAttribute("skinWeight", new THREE.BufferAttribute(skinWeight, 4));
  g.computeBoundingSphere();
  return g;
}

/** The head-top height of a humanoid of this appearance (for bubbles and cameras). */
export function headTop(appearance: Appearance = {}): number {
  return ((appearance.height ?? DEFAULT_APPEARANCE.height) / REFERENCE_HEIGHT) * 1.77;
}
