// A user's rigged glTF model, written byte by byte (the runtime has no Blob,
// so three's exporter cannot run here): the humanoid's 22 bone names and
// rest positions, one skinned body weighted along its spine, and two clips
// of its own — "Armature|Dance" (the spine sways) and "Idle" (the chest
// breathes). What a user's rig brings: its own clips by name, and the
// built-in ones bound to its bones by their names.
import { HUMANOID_BONES as BONES } from "limina";

const FLOAT = 5126;
const USHORT = 5123;

/** The model as a .glb file's bytes. */
export function riggedGlb(): Uint8Array {
  const chunks: Uint8Array[] = [];
  let length = 0;
  const bufferViews: Record<string, unknown>[] = [];
  const accessors: Record<string, unknown>[] = [];
  /** Appends `data` as one buffer view and one accessor; returns the accessor's index. */
  const add = (data: Float32Array | Uint16Array, type: string, count: number, extra: Record<string, unknown> = {}) => {
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    bufferViews.push({ buffer: 0, byteOffset: length, byteLength: bytes.length });
    chunks.push(bytes);
    length += bytes.length;
    const pad = (4 - (length % 4)) % 4;
    if (pad) {
      chunks.push(new Uint8Array(pad));
      length += pad;
    }
    accessors.push({ bufferView: bufferViews.length - 1, componentType: data instanceof Float32Array ? FLOAT : USHORT, count, type, ...extra });
    return accessors.length - 1;
  };

  const index = new Map(BONES.map((b, i) => [b.name, i]));
  const nodes: Record<string, unknown>[] = BONES.map((b) => {
    const parent = b.parent === null ? [0, 0, 0] : BONES[index.get(b.parent)!].at;
    const children = BONES.flatMap((c, i) => (c.parent === b.name ? [i] : []));
    return { name: b.name, translation: b.at.map((v, k) => v - parent[k]), ...(children.length ? { children } : {}) };
  });

  // The body: a 0.36 × 1.5 × 0.24 m column in five rings, weighted from the hips up the spine to the chest.
  const rings = [0.15, 0.5, 0.9, 1.25, 1.6];
  const corners = [[-0.18, -0.12], [0.18, -0.12], [0.18, 0.12], [-0.18, 0.12]];
  const positions = new Float32Array(rings.length * 4 * 3);
  const joints = new Uint16Array(rings.length * 4 * 4);
  const weights = new Float32Array(rings.length * 4 * 4);
  const [hips, spine, chest] = ["Hips", "Spine", "Chest"].map((n) => index.get(n)!);
  rings.forEach((y, r) => {
    const up = Math.min(1, Math.max(0, (y - 0.9) / 0.7));
    corners.forEach(([x, z], c) => {
      const v = r * 4 + c;
      positions.set([x, y, z], v * 3);
      joints.set(y < 0.9 ? [hips, spine, 0, 0] : [spine, chest, 0, 0], v * 4);
      weights.set(y < 0.9 ? [1 - y / 0.9, y / 0.9, 0, 0] : [1 - up, up, 0, 0], v * 4);
    });
  });
  const triangles: number[] = [];
  for (let r = 0; r + 1 < rings.length; r++) {
    for (let c = 0; c < 4; c++) {
      const [a, b, d, e] = [r * 4 + c, r * 4 + ((c + 1) % 4), (r + 1) * 4 + c, (r + 1) * 4 + ((c + 1) % 4)];
      triangles.push(a, b, e, a, e, d);
    }
  }
  const top = (rings.length - 1) * 4;
  triangles.push(0, 2, 1, 0, 3, 2, top, top + 1, top + 2, top, top + 2, top + 3);

  const position = add(positions, "VEC3", positions.length / 3, { min: [-0.18, 0.15, -0.12], max: [0.18, 1.6, 0.12] });
  const joint = add(joints, "VEC4", joints.length / 4);
  const weight = add(weights, "VEC4", weights.length / 4);
  const indices = add(new Uint16Array(triangles), "SCALAR", triangles.length);
  // Inverse bind matrices: each bone's rest pose is a pure translation to its world position.
  const ibm = new Float32Array(BONES.length * 16);
  BONES.forEach((b, i) => ibm.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -b.at[0], -b.at[1], -b.at[2], 1], i * 16));
  const inverseBind = add(ibm, "MAT4", BONES.length);

  const turn = (axis: number, angle: number) => {
    const q = [0, 0, 0, Math.cos(angle / 2)];
    q[axis] = Math.sin(angle / 2);
    return q;
  };
  const clip = (name: string, bone: string, axis: number, angle: number, seconds: number) => {
    const times = add(new Float32Array([0, seconds / 2, seconds]), "SCALAR", 3, { min: [0], max: [seconds] });
    const rotations = add(new Float32Array([...turn(axis, 0), ...turn(axis, angle), ...turn(axis, 0)]), "VEC4", 3);
    return { name, channels: [{ sampler: 0, target: { node: index.get(bone)!, path: "rotation" } }], samplers: [{ input: times, output: rotations, interpolation: "LINEAR" }] };
  };
  const animations = [clip("Armature|Dance", "Spine", 2, 0.6, 1.2), clip("Idle", "Chest", 0, 0.08, 3)];

  nodes.push({ name: "Body", mesh: 0, skin: 0 });
  nodes.push({ name: "Armature", children: [index.get("Hips")!, nodes.length - 1] });
  const gltf = {
    asset: { version: "2.0", generator: "limina test rig" },
    scene: 0,
    scenes: [{ nodes: [nodes.length - 1] }],
    nodes,
    meshes: [{ name: "Body", primitives: [{ attributes: { POSITION: position, JOINTS_0: joint, WEIGHTS_0: weight }, indices, material: 0 }] }],
    materials: [{ name: "Suit", pbrMetallicRoughness: { baseColorFactor: [0.2, 0.45, 0.9, 1], metallicFactor: 0, roughnessFactor: 0.7 } }],
    skins: [{ joints: BONES.map((_, i) => i), inverseBindMatrices: inverseBind, skeleton: index.get("Hips")! }],
    animations,
    accessors,
    bufferViews,
    buffers: [{ byteLength: length }],
  };

  let json = new TextEncoder().encode(JSON.stringify(gltf));
  if (json.length % 4) json = new TextEncoder().encode(JSON.stringify(gltf) + " ".repeat(4 - (json.length % 4)));
  const total = 12 + 8 + json.length + 8 + length;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x46546c67, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, json.length, true);
  view.setUint32(16, 0x4e4f534a, true);
  out.set(json, 20);
  let at = 20 + json.length;
  view.setUint32(at, length, true);
  view.setUint32(at + 4, 0x004e4942, true);
  at += 8;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
