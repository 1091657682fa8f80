// A crowd of humanoids in one draw: the built-in humanoid's clips are baked
// once into a table of skinning matrices (per clip, per sample, per bone,
// sampled at BAKE_RATE), and every member is an instance of one geometry
// whose vertex shader skins from a palette texture — one row per member,
// its 22 bones' matrices with the member's root transform folded in. Each
// frame the palette is filled from per-member typed arrays (root: position,
// yaw, scale; layers: up to two clips, each a time and a weight, blended
// with the baked samples interpolated) — no objects per member. Three levels
// of detail, the same rig and clips: a member near the eye is drawn from the
// "low" humanoid (684 triangles), a farther one from the "coarse" (158), the
// farthest from the "far" silhouette (44), chosen per member each update by
// distance with hysteresis; each level is one instanced draw (and one per
// shadow pass), its members' rows contiguous in the palette. Colours (skin, hair, shirt, trousers) and height are per
// member; build is the reference one.
// Presentation only: what a member does is decided elsewhere (its
// character's Animator, or any driver that fills the arrays). Free of
// native ops: the browser page bundles it as it is.

import * as THREE from "three";
import { type Node, tsl } from "../render/tsl.ts";
import type { Animator } from "./animator.ts";
import { humanoidClips } from "./clips.ts";
import { type Appearance, BONES, createHumanoid, DEFAULT_APPEARANCE, type HumanoidDetail, REFERENCE_HEIGHT } from "./humanoid.ts";

const { Fn, attribute, instanceIndex, int, ivec2, textureLoad, uniform, vec3, vec4, positionGeometry, normalGeometry, normalLocal, vertexColor } = tsl;

/**
 * Samples per second of clip time the bake takes (a walk cycle is about 220 samples): dense
 * enough that blending neighbouring samples' matrices stays within a millimetre or so of the
 * mixer's interpolated pose, even for the run's fast swing.
 */
export const BAKE_RATE = 240;
/** Floats per member in `CrowdDraw.root`: x, y, z, yaw, scale. */
export const ROOT_FLOATS = 5;
/** Floats per member in `CrowdDraw.layers`: two (clip index, time, weight) triples; a clip index < 0 is unused. */
export const LAYER_FLOATS = 6;
/** The clips a crowd bakes unless told otherwise: the locomotion gaits and the looping emotes. */
export const CROWD_CLIPS = ["idle", "walk", "run", "talk", "wave"] as const;
/** The crowd's levels of detail, nearest first: level k of `CrowdDraw.levels` is drawn from this humanoid. */
export const CROWD_DETAILS: readonly HumanoidDetail[] = ["low", "coarse", "far"];
/**
 * Metres from the eye beyond which a member is drawn at the next level, unless told otherwise, in
 * a frame 360 pixels high with the view camera's 55° field of view (other views scale them by
 * `lodScale`, so a level keeps its size in pixels): coarse beyond 12 m, where the reference
 * humanoid is about 50 pixels tall and the coarse one's missing hands and face and rounder head
 * are a pixel or two (200 members all coarse: SSIM 0.97 against all low at 640×360); the far
 * silhouette beyond 25 m, about 24 pixels tall.
 */
export const LOD_DISTANCES: readonly number[] = [12, 25];
/** The view LOD_DISTANCES are for: pixels high, vertical field of view in degrees. */
const LOD_VIEW = { height: 360, fov: 55 };

/**
 * `update`'s scale for a view `height` pixels high with a vertical field of view of `fov` degrees:
 * how much farther than in LOD_VIEW a member is as many pixels tall (2 at 720 lines and 55°).
 */
export function lodScale(height: number, fov: number): number {
  const focal = (h: number, f: number) => h / Math.tan(THREE.MathUtils.degToRad(f) / 2);
  return focal(height, fov) / focal(LOD_VIEW.height, LOD_VIEW.fov);
}

/** Hysteresis: a member goes a level farther beyond (1 + LOD_BAND) × that level's distance and back under (1 − LOD_BAND) ×, so it does not flicker at the line. */
export const LOD_BAND = 0.1;

const BONE_COUNT = BONES.length;

/** The humanoid's clips baked: `matrices` holds 16 floats (column-major skinning matrix, bind space to model space) per bone per sample. */
export interface BakedClips {
  names: string[];
  /** Per clip: its first sample's index, its sample count and its duration (s). */
  start: Int32Array;
  samples: Int32Array;
  duration: Float32Array;
  matrices: Float32Array;
}

/** Bakes `names` (clips of the reference humanoid) at BAKE_RATE; the same input always gives the same table. */
export function bakeClips(names: readonly string[] = CROWD_CLIPS): BakedClips {
  const humanoid = createHumanoid();
  const all = humanoidClips(REFERENCE_HEIGHT);
  const clips = names.map((n) => {
    const c = all.find((clip) => clip.name === n);
    if (!c) throw new Error(`no humanoid clip ${n}`);
    return c;
  });
  const start = new Int32Array(clips.length);
  const samples = new Int32Array(clips.length);
  const duration = new Float32Array(clips.length);
  let total = 0;
  clips.forEach((c, k) => {
    start[k] = total;
    // The last sample is the clip's end (for a loop, its start again), so interpolation never wraps.
    samples[k] = Math.ceil(c.duration * BAKE_RATE) + 1;
    duration[k] = c.duration;
    total += samples[k];
  });
  const matrices = new Float32Array(total * BONE_COUNT * 16);
  const mixer = new THREE.AnimationMixer(humanoid.root);
  const m = new THREE.Matrix4();
  clips.forEach((clip, k) => {
    const action = mixer.clipAction(clip);
    action.play();
    for (let j = 0; j < samples[k]; j++) {
      // Sample j sits at j / (samples - 1) of the clip, so the last one is its end exactly.
      const t = (j / (samples[k] - 1)) * clip.duration;
      action.setLoop(THREE.LoopOnce, 1);
      action.paused = false;
      action.time = t;
      mixer.update(0);
      humanoid.root.updateMatrixWorld(true);
      humanoid.skeleton.bones.forEach((bone, b) => {
        m.multiplyMatrices(bone.matrixWorld, humanoid.skeleton.boneInverses[b]);
        matrices.set(m.elements, ((start[k] + j) * BONE_COUNT + b) * 16);
      });
    }
    action.stop();
  });
  return { names: [...names], start, samples, duration, matrices };
}

let baked: BakedClips | null = null;
/** CROWD_CLIPS baked, once per process: every crowd shares the table. */
function defaultBake(): BakedClips {
  return (baked ??= bakeClips());
}

/** Adds `w` × clip `k`'s skinning matrices at `time` (looping) into `out` (BONE_COUNT × 16 floats), interpolating between samples. */
export function accumulatePose(baked: BakedClips, k: number, time: number, w: number, out: Float32Array): void {
  const d = baked.duration[k];
  const t = d > 0 ? ((time % d) + d) % d : 0;
  const f = (t / d) * (baked.samples[k] - 1);
  const j = Math.min(baked.samples[k] - 2, Math.floor(f));
  const a = f - j;
  const m = baked.matrices;
  const o0 = (baked.start[k] + j) * BONE_COUNT * 16;
  const o1 = o0 + BONE_COUNT * 16;
  const w0 = w * (1 - a);
  const w1 = w * a;
  for (let e = 0; e < BONE_COUNT * 16; e++) out[e] += w0 * m[o0 + e] + w1 * m[o1 + e];
}

/** The colours a member is painted in; the rest of the humanoid keeps its own (eyes, shoes). */
const PAINTS = ["skin", "hair", "shirt", "pants"] as const;
/** Marker colours the reference humanoid is built in, so each vertex's paint can be told (none is a colour the humanoid uses). */
const MARKERS = [0xff0000, 0x00ff00, 0x0000ff, 0xffff00];

/**
 * The reference humanoid's geometry for instancing, indexed (the parts' triangles share their
 * vertices, so each is skinned once per instance, not once per triangle), each vertex with its
 * two bones (the humanoid's weights blend a part into its parent or its child, never both),
 * the first's weight, its fixed colour and which paint it takes instead (-1: none).
 */
function crowdGeometry(n: number, detail: HumanoidDetail): THREE.InstancedBufferGeometry {
  const h = createHumanoid({ skin: MARKERS[0], hair: MARKERS[1], shirt: MARKERS[2], pants: MARKERS[3] }, detail);
  const src = h.mesh.geometry;
  const markers = MARKERS.map((hex) => new THREE.Color().setHex(hex));
  const sources = ["position", "normal", "color", "skinIndex", "skinWeight"].map((name) => src.getAttribute(name));
  const [position, normal, color, skinIndex, skinWeight] = sources;
  const unique = new Map<string, number>();
  const index = new Uint32Array(position.count);
  const out = { position: [] as number[], normal: [] as number[], color: [] as number[], bones: [] as number[], skin: [] as number[] };
  for (let v = 0; v < position.count; v++) {
    let key = "";
    for (const a of sources) for (let c = 0; c < a.itemSize; c++) key += `${a.getComponent(v, c)},`;
    let k = unique.get(key);
    if (k === undefined) {
      k = unique.size;
      unique.set(key, k);
      out.position.push(position.getX(v), position.getY(v), position.getZ(v));
      out.normal.push(normal.getX(v), normal.getY(v), normal.getZ(v));
      const [first, second] = [0, 1, 2, 3].sort((x, y) => skinWeight.getComponent(v, y) - skinWeight.getComponent(v, x));
      const w0 = skinWeight.getComponent(v, first);
      const w1 = skinWeight.getComponent(v, second);
      out.bones.push(skinIndex.getComponent(v, first), skinIndex.getComponent(v, second));
      const paint = markers.findIndex((c) => c.r === color.getX(v) && c.g === color.getY(v) && c.b === color.getZ(v));
      out.skin.push(w0 / (w0 + w1), paint);
      out.color.push(...(paint >= 0 ? [0, 0, 0] : [color.getX(v), color.getY(v), color.getZ(v)]));
    }
    index[v] = k;
  }
  const g = new THREE.InstancedBufferGeometry();
  g.setAttribute("position", new THREE.Float32BufferAttribute(out.position, 3));
  g.setAttribute("normal", new THREE.Float32BufferAttribute(out.normal, 3));
  g.setAttribute("color", new THREE.Float32BufferAttribute(out.color, 3));
  g.setAttribute("bones", new THREE.Uint16BufferAttribute(out.bones, 2));
  g.setAttribute("skin", new THREE.Float32BufferAttribute(out.skin, 2));
  g.setIndex(new THREE.BufferAttribute(index, 1));
  g.instanceCount = n;
  src.dispose();
  (h.mesh.material as THREE.Material).dispose();
  return g;
}

/** Texels per palette row: 3 (the rows of its affine matrix) per bone, then the member's paints (rgb). */
const ROW_TEXELS = BONE_COUNT * 3 + PAINTS.length;

/**
 * Skinned in the vertex shader from the palette texture: row = `first` + the instance, three texels per
 * bone (fetched for the vertex's two bones), then its paints (one fetched, if the vertex takes one).
 * Few fetches a vertex matter most on a software rasteriser, where each is a gather.
 */
function crowdMaterial(palette: THREE.DataTexture, first: Node): THREE.MeshLambertNodeMaterial {
  const material = new THREE.MeshLambertNodeMaterial();
  const row = int(instanceIndex).add(int(first));
  const read = (texel: Node): Node => textureLoad(palette, ivec2(texel, row));
  const bones = attribute("bones", "uvec2");
  const skin = attribute("skin", "vec2");
  const rows = (): Node[] => {
    const a = int(bones.x).mul(3);
    const b = int(bones.y).mul(3);
    return [0, 1, 2].map((r) => read(a.add(r)).mul(skin.x).add(read(b.add(r)).mul(skin.x.oneMinus())).toVar());
  };
  material.positionNode = Fn(() => {
    const [r0, r1, r2] = rows();
    const p = vec4(positionGeometry, 1);
    const n = normalGeometry;
    normalLocal.assign(vec3(r0.xyz.dot(n), r1.xyz.dot(n), r2.xyz.dot(n)).normalize());
    return vec3(r0.dot(p), r1.dot(p), r2.dot(p));
  })();
  // Computed per vertex (the instance's row is a vertex-stage input) and interpolated.
  const paint = skin.y;
  const painted = read(int(BONE_COUNT * 3).add(int(paint.max(0)))).xyz.mul(paint.greaterThanEqual(0).select(1, 0));
  material.colorNode = vertexColor().add(painted).toVarying("crowdColor");
  return material;
}

/**
 * `n` humanoids drawn at once. Fill `root` and `layers` (or call `follow`),
 * then `update(eye)` before rendering; `object` goes in the scene.
 */
export class CrowdDraw {
  /** The crowd in the scene: one mesh per level of detail. */
  readonly object = new THREE.Group();
  /** Per level (CROWD_DETAILS, nearest first): its instanced mesh, hidden while no member is at that level. */
  readonly levels: THREE.Mesh[];
  /** Per member: x, y, z (feet), yaw about +y (facing +z at 0), scale (height / 1.75). */
  readonly root: Float32Array;
  /** Per member: (clip, time, weight) × 2, clip an index into `baked.names` (< 0: none). */
  readonly layers: Float32Array;
  /** Per member: the level it is drawn at (an index into `levels`), as the last `update` chose. */
  readonly level: Uint8Array;
  /** Per level but the last: metres from the eye beyond which a member is drawn at the next (with LOD_BAND's hysteresis). */
  lodDistances: number[] = [...LOD_DISTANCES];
  /** The palette: a row of ROW_TEXELS RGBA float texels per member, level by level, each level's members in order. */
  private readonly palette: THREE.DataTexture;
  private readonly data: Float32Array;
  /** Per member: its paints' texels (rgba), copied into its row by `update`. */
  private readonly paints: Float32Array;
  /** Per level: the palette row of its first instance. */
  private readonly firsts: Node[];
  private readonly pose = new Float32Array(BONE_COUNT * 16);
  private readonly clipIndex: Map<string, number>;

  constructor(readonly n: number, readonly baked: BakedClips = defaultBake()) {
    this.root = new Float32Array(n * ROOT_FLOATS);
    this.layers = new Float32Array(n * LAYER_FLOATS);
    this.level = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      this.root[i * ROOT_FLOATS + 4] = 1;
      this.layers.set([0, 0, 1, -1, 0, 0], i * LAYER_FLOATS);
    }
    this.clipIndex = new Map(baked.names.map((name, k) => [name, k]));
    this.data = new Float32Array(ROW_TEXELS * Math.max(1, n) * 4);
    this.paints = new Float32Array(n * PAINTS.length * 4);
    this.palette = new THREE.DataTexture(this.data, ROW_TEXELS, Math.max(1, n), THREE.RGBAFormat, THREE.FloatType);
    this.firsts = CROWD_DETAILS.map(() => uniform(0));
    this.levels = CROWD_DETAILS.map((detail, l) => {
      const mesh = new THREE.Mesh(crowdGeometry(n, detail), crowdMaterial(this.palette, this.firsts[l]));
      mesh.name = `crowd:${detail}`;
      // Instances go anywhere: one bounding sphere for the geometry would cull them wrongly.
      mesh.frustumCulled = false;
      mesh.castShadow = true;
      mesh.visible = l === 0 && n > 0;
      return mesh;
    });
    this.object.name = "crowd";
    this.object.add(...this.levels);
    for (let i = 0; i < n; i++) this.paint(i, {});
  }

  /** Member `i`'s colours (and height, into its root scale). */
  paint(i: number, appearance: Appearance): void {
    const look = { ...DEFAULT_APPEARANCE, ...appearance };
    const c = new THREE.Color();
    PAINTS.forEach((p, k) => {
      c.setHex(look[p]);
      this.paints.set([c.r, c.g, c.b, 1], (i * PAINTS.length + k) * 4);
    });
    this.root[i * ROOT_FLOATS + 4] = look.height / REFERENCE_HEIGHT;
  }

  /** The index of a baked clip, or -1. */
  clip(name: string): number {
    return this.clipIndex.get(name) ?? -1;
  }

  /** Fills member `i`'s root from the SoA transform at `eid` (yaw of a rotation about y) and its layers from `animator`. */
  follow(i: number, position: { x: Float32Array; y: Float32Array; z: Float32Array }, rotation: { y: Float32Array; w: Float32Array }, eid: number, animator: Animator): void {
    const r = i * ROOT_FLOATS;
    this.root[r] = position.x[eid];
    this.root[r + 1] = position.y[eid];
    this.root[r + 2] = position.z[eid];
    this.root[r + 3] = 2 * Math.atan2(rotation.y[eid], rotation.w[eid]);
    animator.heaviest(this.layers, i * LAYER_FLOATS, this.clipIndex);
  }

  /** Member `i`'s skinning matrices (model space, without its root), BONE_COUNT × 16 floats, as the palette gets them. */
  poseOf(i: number, out: Float32Array = this.pose): Float32Array {
    out.fill(0);
    const o = i * LAYER_FLOATS;
    let total = 0;
    for (let l = 0; l < 2; l++) if (this.layers[o + 3 * l] >= 0) total += this.layers[o + 3 * l + 2];
    for (let l = 0; l < 2; l++) {
      const k = this.layers[o + 3 * l];
      const w = this.layers[o + 3 * l + 2];
      if (k >= 0 && w > 0 && total > 0) accumulatePose(this.baked, k, this.layers[o + 3 * l + 1], w / total, out);
    }
    if (total <= 0) accumulatePose(this.baked, 0, 0, 1, out);
    return out;
  }

  /**
   * Chooses each member's level by its feet's distance from `eye`, against `lodDistances` times
   * `scale` (`lodScale` of the view; without an eye, levels stay as they are: all full at first), then writes every member's palette row, level by level: root ×
   * blended pose, as the rows of each bone's affine matrix, then its paints.
   */
  update(eye?: { x: number; y: number; z: number }, scale = 1): void {
    const { root, level } = this;
    if (eye) {
      const last = Math.min(this.lodDistances.length, this.levels.length - 1);
      const out = this.lodDistances.map((d) => (d * scale * (1 + LOD_BAND)) ** 2);
      const back = this.lodDistances.map((d) => (d * scale * (1 - LOD_BAND)) ** 2);
      for (let i = 0; i < this.n; i++) {
        const r = i * ROOT_FLOATS;
        const d2 = (root[r] - eye.x) ** 2 + (root[r + 1] - eye.y) ** 2 + (root[r + 2] - eye.z) ** 2;
        let l = level[i];
        while (l < last && d2 > out[l]) l++;
        while (l > 0 && d2 < back[l - 1]) l--;
        level[i] = l;
      }
    }
    let slot = 0;
    this.levels.forEach((mesh, l) => {
      const first = slot;
      for (let i = 0; i < this.n; i++) if (level[i] === l) this.writeRow(i, slot++);
      this.firsts[l].value = first;
      (mesh.geometry as THREE.InstancedBufferGeometry).instanceCount = slot - first;
      mesh.visible = slot > first;
    });
    this.palette.needsUpdate = true;
  }

  /** Member `i`'s row at `slot`: its blended pose under its root, then its paints. */
  private writeRow(i: number, slot: number): void {
    const data = this.data;
    const pose = this.poseOf(i, this.pose);
    const r = i * ROOT_FLOATS;
    const x = this.root[r];
    const y = this.root[r + 1];
    const z = this.root[r + 2];
    const s = this.root[r + 4];
    const c = Math.cos(this.root[r + 3]) * s;
    const sn = Math.sin(this.root[r + 3]) * s;
    const row = slot * ROW_TEXELS * 4;
    for (let b = 0; b < BONE_COUNT; b++) {
      const p = b * 16;
      const o = row + b * 12;
      // Root (yaw about y, uniform scale, then the feet's position) times the bone's column-major matrix, by rows.
      for (let col = 0; col < 4; col++) {
        const mx = pose[p + col * 4];
        const my = pose[p + col * 4 + 1];
        const mz = pose[p + col * 4 + 2];
        data[o + col] = c * mx + sn * mz;
        data[o + 4 + col] = s * my;
        data[o + 8 + col] = -sn * mx + c * mz;
      }
      data[o + 3] += x;
      data[o + 7] += y;
      data[o + 11] += z;
    }
    data.set(this.paints.subarray(i * PAINTS.length * 4, (i + 1) * PAINTS.length * 4), row + BONE_COUNT * 12);
  }

  dispose(): void {
    this.object.removeFromParent();
    for (const mesh of this.levels) {
      mesh.geometry.dispose();
      (mesh.material as THREE.Material).dispose();
    }
    this.palette.dispose();
  }
}
