// The hedgehog dance's parts, shared by the demo and its test: the dance
// track synthesised in JS (kick, claps, hats, bass and chords at a fixed
// BPM: one seamless loop of whole fixed steps), the procedural hedgehog,
// its disco floor, and the dance as a pose per beat.
// Not a demo by itself: hedgehog_dance.ts runs it.
import * as THREE from "three";

export const BPM = 120;
export const BEATS_PER_BAR = 4;
export const LOOP_BARS = 4;
export const STEPS_PER_SECOND = 60;
/** Fixed steps per beat: the loop's clock is the fixed step, so a beat must be whole steps. */
export const STEPS_PER_BEAT = (STEPS_PER_SECOND * 60) / BPM;
if (!Number.isInteger(STEPS_PER_BEAT)) throw new Error(`${BPM} BPM is not a whole number of fixed steps per beat`);
export const STEPS_PER_BAR = STEPS_PER_BEAT * BEATS_PER_BAR;
export const LOOP_STEPS = STEPS_PER_BAR * LOOP_BARS;
export const LOOP_SECONDS = LOOP_STEPS / STEPS_PER_SECOND;
/** The lines the hedgehog sings, one every other bar. */
export const LYRICS = [
  "Hedgehog, hedgehog, dancing all night",
  "Spikes up high and paws in the light",
  "Round and round on the disco floor",
  "One more spin, and then one more",
];

// A minor, one chord a bar: Am, F, C, G (bass-octave triads, Hz).
const CHORDS = [[110, 130.81, 164.81], [87.31, 110, 130.81], [130.81, 164.81, 196], [98, 123.47, 146.83]];

/**
 * One loop of the track as interleaved stereo f32 at `rate`: a kick on every
 * beat, claps on 2 and 4, hats on the off-beats, an eighth-note bass on each
 * bar's root and a soft chord pad, soft-clipped. Deterministic. Each drum
 * and bass note is synthesised once and mixed in at every hit.
 */
export function synthTrack(rate: number): Float32Array {
  const frames = Math.round(LOOP_SECONDS * rate);
  const left = new Float32Array(frames);
  const right = new Float32Array(frames);
  const beat = (60 / BPM) * rate;
  let seed = 0x2f6b1d3;
  const noise = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 0x80000000 - 1;
  };
  const sound = (secs: number, sample: (t: number) => number) => Float32Array.from({ length: Math.round(secs * rate) }, (_, i) => sample(i / rate));
  /** Mixes `s` in at frame `at`, panned (-1 left … 1 right). */
  const mix = (s: Float32Array, at: number, pan = 0) => {
    const [gl, gr] = [Math.min(1, 1 - pan), Math.min(1, 1 + pan)];
    const n = Math.min(s.length, frames - at);
    for (let i = 0; i < n; i++) {
      left[at + i] += gl * s[i];
      right[at + i] += gr * s[i];
    }
  };
  /** High-passed noise: a first difference of white noise. */
  const hiss = (secs: number, gain: number, decay: number) => {
    let prev = 0;
    return sound(secs, (t) => {
      const n = noise();
      const v = gain * (n - prev) * Math.exp(-t * decay);
      prev = n;
      return v;
    });
  };
  // Kick: a sine swept down from 155 Hz to 45 Hz (the phase is the sweep's integral).
  const kick = sound(0.3, (t) => 0.95 * Math.sin(2 * Math.PI * (45 * t + (110 / 30) * (1 - Math.exp(-t * 30)))) * Math.exp(-t * 8));
  const clap = hiss(0.18, 0.35, 22);
  const hat = hiss(0.05, 0.18, 70);
  const beats = LOOP_BARS * BEATS_PER_BAR;
  for (let b = 0; b < beats; b++) {
    const at = Math.round(b * beat);
    mix(kick, at);
    if (b % 2 === 1) mix(clap, at, 0.1);
    mix(hat, Math.round(at + beat / 2), b % 2 ? 0.5 : -0.5);
  }
  const plucks = new Map<number, Float32Array>();
  const pluck = (f: number) => {
    let s = plucks.get(f);
    if (!s) {
      s = sound(0.22, (t) => 0.28 * Math.min(1, t * 400) * Math.exp(-t * 9) * (Math.sin(2 * Math.PI * f * t) + 0.35 * Math.sin(4 * Math.PI * f * t)));
      plucks.set(f, s);
    }
    return s;
  };
  for (let bar = 0; bar < LOOP_BARS; bar++) {
    const chord = CHORDS[bar % CHORDS.length];
    const barAt = Math.round(bar * BEATS_PER_BAR * beat);
    // Bass: eighth-note plucks of the root, every fourth an octave up.
    for (let e = 0; e < BEATS_PER_BAR * 2; e++) mix(pluck(chord[0] * (e % 4 === 3 ? 2 : 1)), barAt + Math.round((e * beat) / 2));
    // Pad: the triad two octaves up, slow in and out, spread across the
    // stereo field; each tone a rotating phasor (no sin per sample).
    const len = Math.round(BEATS_PER_BAR * beat);
    const edge = 0.15 * rate;
    for (let n = 0; n < chord.length; n++) {
      const w = (2 * Math.PI * chord[n] * 4) / rate;
      const cw = Math.cos(w);
      const sw = Math.sin(w);
      const gl = Math.min(1, 2 - n) * 0.05;
      const gr = Math.min(1, n) * 0.05;
      let c = 1;
      let s = 0;
      for (let i = 0; i < len; i++) {
        const env = Math.min(1, i / edge, (len - i) / edge);
        left[barAt + i] += gl * env * s;
        right[barAt + i] += gr * env * s;
        const next = c * cw - s * sw;
        s = s * cw + c * sw;
        c = next;
      }
    }
  }
  // Soft clip: tanh's Padé approximant, exact enough below |x| = 3.
  const clip = (x: number) => {
    const v = Math.max(-3, Math.min(3, x));
    return (v * (27 + v * v)) / (27 + 9 * v * v);
  };
  const out = new Float32Array(frames * 2);
  for (let i = 0; i < frames; i++) {
    out[2 * i] = clip(left[i]);
    out[2 * i + 1] = clip(right[i]);
  }
  return out;
}

/** The dance at a moment, `beat` beats into the track. */
export interface Pose {
  /** Hop height (m): zero on every beat, highest between. */
  y: number;
  /** Lean from side to side (radians), swapping sides each beat. */
  roll: number;
  /** Turn (radians): a wiggle, and a whole spin in the last bar of each loop. */
  yaw: number;
  /** Squash on landing, 0..1. */
  squash: number;
  /** Raised paws (radians), alternating each beat. */
  leftPaw: number;
  rightPaw: number;
}

const HOP = 0.3;

export function poseAt(beat: number): Pose {
  const frac = beat - Math.floor(beat);
  const whole = Math.floor(beat);
  const barInLoop = Math.floor(beat / BEATS_PER_BAR) % LOOP_BARS;
  const inBar = (beat % BEATS_PER_BAR) / BEATS_PER_BAR;
  const spin = barInLoop === LOOP_BARS - 1 ? 2 * Math.PI * (inBar * inBar * (3 - 2 * inBar)) : 0;
  const up = Math.sin(Math.PI * frac);
  const raised = 0.5 + 1.6 * up;
  return {
    y: HOP * up,
    roll: 0.18 * Math.sin(Math.PI * beat),
    yaw: spin + 0.35 * Math.sin((Math.PI * beat) / 2),
    squash: 0.16 * Math.exp(-frac * 10),
    leftPaw: whole % 2 === 0 ? raised : 0.5,
    rightPaw: whole % 2 === 1 ? raised : 0.5,
  };
}

export interface Hedgehog {
  /** The whole animal, standing on y = 0 and facing +z. */
  root: THREE.Group;
  /** Where its voice comes from, in its own frame. */
  mouth: THREE.Object3D;
  /** Applies the paws and feet of a pose (the body's transform is the entity's). */
  pose(p: Pose, beat: number): void;
}

const standard = (color: number, roughness = 0.7) => new THREE.MeshStandardMaterial({ color, roughness, metalness: 0 });

/** A procedural hedgehog: an egg-shaped body under ~360 instanced spines, a snout, eyes, ears, paws and feet. */
export function buildHedgehog(): Hedgehog {
  const root = new THREE.Group();
  const body = new THREE.Group();
  body.position.y = 0.5;
  root.add(body);
  const skin = standard(0xc79a6b, 0.8);
  const R = new THREE.Vector3(0.45, 0.4, 0.55);
  const belly = new THREE.Mesh(new THREE.SphereGeometry(1, 32, 20), skin);
  belly.scale.copy(R);
  body.add(belly);

  // Spines on a Fibonacci lattice over the back and top, swept backwards.
  const points: THREE.Vector3[] = [];
  const N = 700;
  for (let i = 0; i < N; i++) {
    const y = 1 - (2 * (i + 0.5)) / N;
    const r = Math.sqrt(1 - y * y);
    const a = i * Math.PI * (3 - Math.sqrt(5));
    const p = new THREE.Vector3(Math.cos(a) * r, y, Math.sin(a) * r);
    if (p.y > -0.3 && (p.z < 0.25 || p.y > 0.6)) points.push(p);
  }
  const spine = new THREE.ConeGeometry(0.035, 0.3, 5);
  const spines = new THREE.InstancedMesh(spine, standard(0xffffff, 0.6), points.length);
  const m = new THREE.Matrix4();
  const q = new THREE.Quaternion();
  const upY = new THREE.Vector3(0, 1, 0);
  const dark = new THREE.Color(0x3a2616);
  const light = new THREE.Color(0x8a6a48);
  points.forEach((p, i) => {
    const dir = p.clone().add(new THREE.Vector3(0, 0.15, -0.75)).normalize();
    q.setFromUnitVectors(upY, dir);
    const at = new THREE.Vector3(p.x * R.x, p.y * R.y, p.z * R.z).addScaledVector(dir, 0.1);
    spines.setMatrixAt(i, m.compose(at, q, new THREE.Vector3(1, 1, 1)));
    spines.setColorAt(i, i % 3 === 0 ? light : dark);
  });
  spines.castShadow = true;
  body.add(spines);

  const snout = new THREE.Mesh(new THREE.ConeGeometry(0.2, 0.42, 20), skin);
  snout.rotation.x = Math.PI / 2;
  snout.position.set(0, -0.06, 0.6);
  body.add(snout);
  const black = standard(0x111111, 0.3);
  const nose = new THREE.Mesh(new THREE.SphereGeometry(0.065, 16, 12), black);
  nose.position.set(0, -0.06, 0.82);
  body.add(nose);
  const mouth = new THREE.Object3D();
  mouth.position.set(0, -0.16, 0.74);
  body.add(mouth);
  for (const side of [-1, 1]) {
    const eye = new THREE.Mesh(new THREE.SphereGeometry(0.055, 16, 12), black);
    eye.position.set(side * 0.15, 0.1, 0.5);
    body.add(eye);
    const ear = new THREE.Mesh(new THREE.SphereGeometry(0.075, 12, 10), skin);
    ear.position.set(side * 0.25, 0.27, 0.3);
    ear.scale.set(1, 1, 0.5);
    body.add(ear);
  }
  const paw = new THREE.CapsuleGeometry(0.06, 0.22, 4, 10);
  const paws: THREE.Object3D[] = [];
  for (const side of [-1, 1]) {
    const pivot = new THREE.Group();
    pivot.position.set(side * 0.38, -0.05, 0.22);
    const arm = new THREE.Mesh(paw, skin);
    arm.position.y = -0.14;
    pivot.add(arm);
    body.add(pivot);
    paws.push(pivot);
  }
  const feet: THREE.Object3D[] = [];
  const foot = new THREE.SphereGeometry(0.1, 14, 10);
  for (const [x, z] of [[-0.22, 0.25], [0.22, 0.25], [-0.22, -0.25], [0.22, -0.25]]) {
    const f = new THREE.Mesh(foot, skin);
    f.position.set(x, 0.07, z);
    f.scale.set(1, 0.6, 1.3);
    root.add(f);
    feet.push(f);
  }
  root.traverse((o: THREE.Object3D) => {
    if ((o as THREE.Mesh).isMesh) o.castShadow = true;
  });
  return {
    root,
    mouth,
    pose(p, beat) {
      paws[0].rotation.z = -p.leftPaw;
      paws[1].rotation.z = p.rightPaw;
      // Feet tap in turn, a quarter beat out of step with the hop.
      feet.forEach((f, i) => (f.position.y = 0.07 + 0.06 * Math.max(0, Math.sin(Math.PI * (beat + (i % 2) * 0.5)))));
    },
  };
}

const PALETTE = [0x00c8ff, 0xff2fd0, 0x6a3cff, 0x18e07a, 0x2050ff, 0xff3355];

export interface DanceFloor {
  mesh: THREE.InstancedMesh;
  /** Lights the tiles for `beat`: a new pattern each beat, fading until the next. */
  light(beat: number): void;
}

/** A 10 × 10 m floor of glowing tiles that change on every beat. */
export function buildDanceFloor(): DanceFloor {
  const SIDE = 10;
  // Unlit: the tiles glow rather than reflect.
  const tiles = new THREE.InstancedMesh(new THREE.BoxGeometry(0.96, 0.1, 0.96), new THREE.MeshBasicMaterial({ color: 0xffffff }), SIDE * SIDE);
  const m = new THREE.Matrix4();
  for (let i = 0; i < SIDE * SIDE; i++) {
    tiles.setMatrixAt(i, m.makeTranslation((i % SIDE) - SIDE / 2 + 0.5, -0.05, Math.floor(i / SIDE) - SIDE / 2 + 0.5));
    tiles.setColorAt(i, new THREE.Color(0x222222));
  }
  const color = new THREE.Color();
  const dim = new THREE.Color(0x1a1030);
  return {
    mesh: tiles,
    light(beat) {
      const whole = Math.floor(beat);
      const fade = Math.exp(-(beat - whole) * 3);
      for (let i = 0; i < SIDE * SIDE; i++) {
        const pick = (Math.imul(i + 1, 0x9e3779b1) ^ Math.imul(whole + 1, 0x85ebca6b)) >>> 0;
        const lit = (pick >>> 7) % 3 !== 0;
        color.setHex(PALETTE[(pick >>> 3) % PALETTE.length]);
        tiles.setColorAt(i, lit ? color.lerp(dim, 0.6 * (1 - fade)) : dim);
      }
      tiles.instanceColor!.needsUpdate = true;
    },
  };
}
