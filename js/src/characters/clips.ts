// The humanoid's authored clips: idle, walk, run, jump, fall, wave, talk,
// sit. Walk and run are generated from gaits: each foot follows a planted
// stance (moving back under the body at exactly the gait's speed) and an
// arcing swing, and the legs reach those feet by analytic two-bone IK at
// every sample — so at the playback rate that matches the ground speed the
// stance foot stays put in the world. The other clips are keyed poses.
// Bone rotations are in the parent's frame; every bone's rest frame is the
// world's (y up, facing +z), which is what the angles below mean.

import * as THREE from "three";
import { BONES, REFERENCE_HEIGHT, SHIN, THIGH } from "./humanoid.ts";

/** A cyclic gait. Lengths are for the 1.75 m reference humanoid. */
export interface Gait {
  /** Distance the body travels per cycle (two steps), m. */
  stride: number;
  /** Fraction of the cycle each foot is planted. */
  stance: number;
  /** The ground speed the clip is authored for, m/s (so a cycle lasts stride / speed). */
  speed: number;
  /** How far the hips sink below standing, m. */
  drop: number;
  /** Hip bob, m: positive rises at mid-stance (walking), negative sinks (running). */
  bob: number;
  /** Swing foot lift, m. */
  lift: number;
  armSwing: number;
  elbow: number;
  /** Forward lean of the spine, radians. */
  lean: number;
}

export const WALK: Gait = { stride: 1.3, stance: 0.6, speed: 1.4, drop: 0.07, bob: 0.02, lift: 0.09, armSwing: 0.35, elbow: 0.3, lean: 0.05 };
export const RUN: Gait = { stride: 2.4, stance: 0.42, speed: 4.2, drop: 0.12, bob: -0.035, lift: 0.2, armSwing: 0.75, elbow: 1.4, lean: 0.2 };

/** The clip names every humanoid has. */
export const CLIP_NAMES = ["idle", "walk", "run", "jump", "fall", "wave", "talk", "sit"] as const;
export type ClipName = (typeof CLIP_NAMES)[number];

type Pose = Map<string, [number, number, number]>;

const SAMPLES = 32;
const HIP_OFFSET = 0.03;
const ANKLE = 0.09;

const euler = new THREE.Euler();
const quat = new THREE.Quaternion();

function hermite(p0: number, p1: number, m0: number, m1: number, t: number): number {
  const t2 = t * t;
  const t3 = t2 * t;
  return (2 * t3 - 3 * t2 + 1) * p0 + (t3 - 2 * t2 + t) * m0 + (-2 * t3 + 3 * t2) * p1 + (t3 - t2) * m1;
}

/** The foot's (z, lift, pitch) relative to under the hip at phase p (0 = heel strike, foot forward). */
function foot(g: Gait, p: number): [number, number, number] {
  const half = (g.stride * g.stance) / 2;
  if (p < g.stance) return [half - g.stride * p, 0, 0];
  const q = (p - g.stance) / (1 - g.stance);
  // Leaving and arriving with the stance's backward speed: no jolt at either end.
  const m = -g.stride * (1 - g.stance);
  return [hermite(-half, half, m, m, q), g.lift * Math.sin(Math.PI * q), 0.35 * Math.sin(Math.PI * q)];
}

/** Hip and knee angles (about x) that put the ankle at (dz, dy) from the hip joint. */
function legIk(dz: number, dy: number, l1: number, l2: number): [number, number] {
  const d = Math.min(Math.hypot(dz, dy), (l1 + l2) * 0.9999);
  const phi = Math.atan2(dz, -dy);
  const alpha = Math.acos(Math.min(1, Math.max(-1, (l1 * l1 + d * d - l2 * l2) / (2 * l1 * d))));
  const beta = Math.acos(Math.min(1, Math.max(-1, (l1 * l1 + l2 * l2 - d * d) / (2 * l1 * l2))));
  return [-(phi + alpha), Math.PI - beta];
}

/** Pose and hips position of a gait at phase p, for a humanoid scaled by s. */
function gaitPose(g: Gait, p: number, s: number): { pose: Pose; hips: [number, number, number] } {
  const l1 = THIGH * s;
  const l2 = SHIN * s;
  const reach = (l1 + l2) * 0.995;
  const feet = [foot(g, p), foot(g, (p + 0.5) % 1)].map(([z, y, pitch]) => [z * s, y * s, pitch] as const);
  // Hips: sunk, bobbing twice a cycle, and never higher than both planted feet can reach.
  let hipsY = (1.0 - g.drop) * s + g.bob * s * Math.cos(4 * Math.PI * (p - g.stance / 2));
  for (const [z, y] of feet) {
    const limit = ANKLE * s + y + Math.sqrt(Math.max(0, reach * reach - z * z)) + HIP_OFFSET * s;
    hipsY = Math.min(hipsY, limit);
  }
  const pose: Pose = new Map();
  (["Left", "Right"] as const).forEach((side, k) => {
    const [z, y, pitch] = feet[k];
    const dy = ANKLE * s + y - (hipsY - HIP_OFFSET * s);
    const [hip, knee] = legIk(z, dy, l1, l2);
    pose.set(`${side}UpLeg`, [hip, 0, 0]);
    pose.set(`${side}Leg`, [knee, 0, 0]);
    pose.set(`${side}Foot`, [-(hip + knee) + pitch, 0, 0]);
  });
  const swing = Math.cos(2 * Math.PI * p);
  pose.set("LeftArm", [g.armSwing * swing, 0, 0.08]);
  pose.set("RightArm", [-g.armSwing * swing, 0, -0.08]);
  pose.set("LeftForeArm", [-g.elbow - 0.15 * g.elbow * swing, 0, 0]);
  pose.set("RightForeArm", [-g.elbow + 0.15 * g.elbow * swing, 0, 0]);
  pose.set("Spine", [g.lean * 0.6, 0.06 * swing, 0]);
  pose.set("Chest", [g.lean * 0.4, 0.08 * swing, 0]);
  pose.set("Head", [-g.lean * 0.8, -0.1 * swing, 0]);
  return { pose, hips: [0, hipsY, 0] };
}

/** Keyframe tracks from poses sampled at `times`: a quaternion track per bone any pose turns, and the hips' position. */
function tracks(times: number[], poses: Pose[], hips: [number, number, number][]): THREE.KeyframeTrack[] {
  const out: THREE.KeyframeTrack[] = [];
  for (const { name } of BONES) {
    if (!poses.some((p) => p.has(name))) continue;
    const values: number[] = [];
    for (const pose of poses) {
      const [x, y, z] = pose.get(name) ?? [0, 0, 0];
      quat.setFromEuler(euler.set(x, y, z, "XYZ"));
      values.push(quat.x, quat.y, quat.z, quat.w);
    }
    out.push(new THREE.QuaternionKeyframeTrack(`${name}.quaternion`, times, values));
  }
  out.push(new THREE.VectorKeyframeTrack("Hips.position", times, hips.flat()));
  return out;
}

/** A looping gait clip for a humanoid scaled by s: one cycle, lasting stride / speed. */
export function gaitClip(name: string, g: Gait, s: number): THREE.AnimationClip {
  const period = g.stride / g.speed;
  const times: number[] = [];
  const poses: Pose[] = [];
  const hips: [number, number, number][] = [];
  for (let k = 0; k <= SAMPLES; k++) {
    const p = (k % SAMPLES) / SAMPLES;
    const { pose, hips: h } = gaitPose(g, p, s);
    times.push((k / SAMPLES) * period);
    poses.push(pose);
    hips.push(h);
  }
  return new THREE.AnimationClip(name, period, tracks(times, poses, hips));
}

/** A clip of key poses at times (seconds); the hips' height given per key, in reference metres. */
function keyed(name: string, s: number, keys: { t: number; hipsY: number; pose: Record<string, [number, number, number]> }[]): THREE.AnimationClip {
  const times = keys.map((k) => k.t);
  const poses = keys.map((k) => new Map(Object.entries(k.pose)));
  const hips = keys.map((k) => [0, k.hipsY * s, 0] as [number, number, number]);
  return new THREE.AnimationClip(name, times[times.length - 1], tracks(times, poses, hips));
}

/** Legs bent so the feet stay on the ground with the hips at height h (reference metres). */
function crouch(h: number): Record<string, [number, number, number]> {
  const [hip, knee] = legIk(0.02, ANKLE - (h - HIP_OFFSET), THIGH, SHIN);
  const legs = { UpLeg: [hip, 0, 0], Leg: [knee, 0, 0], Foot: [-(hip + knee), 0, 0] } as const;
  const out: Record<string, [number, number, number]> = {};
  for (const side of ["Left", "Right"]) for (const [b, v] of Object.entries(legs)) out[`${side}${b}`] = [...v] as [number, number, number];
  return out;
}

/** Every built-in clip, for a humanoid `height` metres tall. */
export function humanoidClips(height = REFERENCE_HEIGHT): THREE.AnimationClip[] {
  const s = height / REFERENCE_HEIGHT;
  const arms = (l: number, r: number, bend = 0.15): Record<string, [number, number, number]> => ({
    LeftArm: [l, 0, 0.1],
    RightArm: [r, 0, -0.1],
    LeftForeArm: [-bend, 0, 0],
    RightForeArm: [-bend, 0, 0],
  });
  const idle = keyed("idle", s, [
    { t: 0, hipsY: 1.0, pose: { ...arms(0.02, -0.02), Chest: [0, 0, 0], Head: [0, 0, 0] } },
    { t: 1.5, hipsY: 0.995, pose: { ...arms(-0.03, 0.03, 0.2), Chest: [-0.03, 0.02, 0], Head: [0.03, 0.12, 0] } },
    { t: 3, hipsY: 1.0, pose: { ...arms(0.02, -0.02), Chest: [0, 0, 0], Head: [0, 0, 0] } },
  ]);
  const jump = keyed("jump", s, [
    { t: 0, hipsY: 0.85, pose: { ...crouch(0.85), ...arms(0.6, 0.6, 0.4), Spine: [0.3, 0, 0] } },
    { t: 0.15, hipsY: 1.0, pose: { ...crouch(1.0), ...arms(-2.2, -2.2, 0.2), Spine: [-0.05, 0, 0] } },
    { t: 0.5, hipsY: 0.95, pose: { ...crouch(0.92), LeftUpLeg: [-0.9, 0, 0], LeftLeg: [1.2, 0, 0], ...arms(-1.4, -1.4, 0.5), Spine: [0.1, 0, 0] } },
  ]);
  const fallPose = (a: number): Record<string, [number, number, number]> => ({
    LeftArm: [-0.4 * a, 0, 1.2],
    RightArm: [0.4 * a, 0, -1.2],
    LeftForeArm: [-0.5, 0, 0],
    RightForeArm: [-0.5, 0, 0],
    LeftUpLeg: [-0.4 + 0.3 * a, 0, 0.05],
    RightUpLeg: [-0.4 - 0.3 * a, 0, -0.05],
    LeftLeg: [0.6, 0, 0],
    RightLeg: [0.6, 0, 0],
    Spine: [0.1, 0, 0],
  });
  const fall = keyed("fall", s, [
    { t: 0, hipsY: 1.0, pose: fallPose(1) },
    { t: 0.4, hipsY: 1.0, pose: fallPose(-1) },
    { t: 0.8, hipsY: 1.0, pose: fallPose(1) },
  ]);
  const wavePose = (a: number): Record<string, [number, number, number]> => ({
    ...arms(0.02, 0, 0.1),
    RightArm: [0, 0, -2.5],
    RightForeArm: [0, 0, 0.45 * a],
    RightHand: [0, 0, 0.2 * a],
    Head: [0, -0.15, 0],
  });
  const wave = keyed("wave", s, [
    { t: 0, hipsY: 1.0, pose: wavePose(1) },
    { t: 0.3, hipsY: 1.0, pose: wavePose(-1) },
    { t: 0.6, hipsY: 1.0, pose: wavePose(1) },
    { t: 0.9, hipsY: 1.0, pose: wavePose(-1) },
    { t: 1.2, hipsY: 1.0, pose: wavePose(1) },
  ]);
  const talkPose = (jaw: number, nod: number, hand: number): Record<string, [number, number, number]> => ({
    Jaw: [jaw, 0, 0],
    Head: [nod, 0.05 * hand, 0],
    LeftArm: [-0.35 - 0.15 * hand, 0, 0.12],
    RightArm: [-0.25 + 0.15 * hand, 0, -0.12],
    LeftForeArm: [-1.0 - 0.25 * hand, 0, 0],
    RightForeArm: [-0.9 + 0.25 * hand, 0, 0],
    Chest: [0, 0.05 * hand, 0],
  });
  const talk = keyed("talk", s, [
    { t: 0, hipsY: 1.0, pose: talkPose(0, 0, 1) },
    { t: 0.2, hipsY: 1.0, pose: talkPose(0.3, 0.06, 0.5) },
    { t: 0.4, hipsY: 1.0, pose: talkPose(0.05, -0.03, 0) },
    { t: 0.65, hipsY: 1.0, pose: talkPose(0.25, 0.04, -0.5) },
    { t: 0.9, hipsY: 1.0, pose: talkPose(0, 0, -1) },
    { t: 1.15, hipsY: 1.0, pose: talkPose(0.3, 0.05, -0.3) },
    { t: 1.4, hipsY: 1.0, pose: talkPose(0.08, -0.02, 0.4) },
    { t: 1.6, hipsY: 1.0, pose: talkPose(0, 0, 1) },
  ]);
  const sitPose = (breath: number): Record<string, [number, number, number]> => ({
    LeftUpLeg: [-Math.PI / 2, 0, 0.06],
    RightUpLeg: [-Math.PI / 2, 0, -0.06],
    LeftLeg: [Math.PI / 2, 0, 0],
    RightLeg: [Math.PI / 2, 0, 0],
    LeftArm: [-0.55, 0, 0.1],
    RightArm: [-0.55, 0, -0.1],
    LeftForeArm: [-0.7, 0, 0],
    RightForeArm: [-0.7, 0, 0],
    Spine: [0.05 + breath, 0, 0],
    Head: [-0.05, 0, 0],
  });
  const sitH = ANKLE + SHIN + HIP_OFFSET;
  const sit = keyed("sit", s, [
    { t: 0, hipsY: sitH, pose: sitPose(0) },
    { t: 1.5, hipsY: sitH, pose: sitPose(0.02) },
    { t: 3, hipsY: sitH, pose: sitPose(0) },
  ]);
  return [idle, gaitClip("walk", WALK, s), gaitClip("run", RUN, s), jump, fall, wave, talk, sit];
}
