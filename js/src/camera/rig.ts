// Camera rigs: the view camera following an entity (behind it, over its
// shoulder, from its eyes) or orbiting an entity or a point, and shaking
// on request. A rig moves the view on every fixed step until another rig
// or camera.set replaces it; its smoothing and its shake's noise depend on
// the step alone, so a rig's shots are the same on every run.

import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { PhysicsWorld } from "../../../crates/limina-physics/js/physics.ts";
import type { Vec3 } from "../ecs/world.ts";
import type { CameraPose, ViewCamera } from "../render/view-camera.ts";
import type { Entities } from "../scene/entities.ts";

export type RigSpec =
  | { mode: "follow"; entity: string; distance: number; height: number; smoothing: number }
  | { mode: "thirdPerson"; entity: string; distance: number; shoulder: number; height: number; smoothing: number }
  | { mode: "firstPerson"; entity: string; eyeHeight: number }
  | { mode: "orbit"; target: string | Vec3; distance: number; height: number; speed: number };

/** A hash of (seed, i) in [-1, 1]: the shake's noise, a function of the step only. */
function noise(seed: number, i: number): number {
  let x = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(i + 1, 0xc2b2ae35);
  x ^= x >>> 15;
  x = Math.imul(x, 0x2c1b3c6d);
  x ^= x >>> 12;
  return ((x >>> 0) / 0xffffffff) * 2 - 1;
}

export class CameraRig {
  private spec: RigSpec | null = null;
  private pose: CameraPose | null = null;
  private azimuth = 0;
  private shake: { intensity: number; duration: number; t: number; base: CameraPose | null } | null = null;
  private steps = 0;

  constructor(private readonly view: ViewCamera, private readonly entities: Entities, private readonly physics: PhysicsWorld) {}

  /** The rig now driving the view, if any. */
  current(): RigSpec | null {
    return this.spec;
  }

  /** Drives the view with `spec` from now on; places the camera at once and returns the pose. */
  set(spec: RigSpec): CameraPose {
    if (spec.mode !== "orbit" || typeof spec.target === "string") this.entities.require(spec.mode === "orbit" ? spec.target as string : spec.entity);
    this.spec = spec;
    this.pose = null;
    if (spec.mode === "orbit") {
      const center = this.center(spec.target);
      const from = this.view.get().position;
      this.azimuth = Math.atan2(from[0] - center[0], from[2] - center[2]);
    }
    return this.step(0);
  }

  /** Stops the rig: the view stays where it is. */
  clear(): void {
    this.spec = null;
    this.pose = null;
  }

  /** Shakes the view for `duration` seconds, `intensity` metres at its strongest, easing out. */
  startShake(intensity: number, duration: number): void {
    // Without a rig, the shake is about where the view stands now (and ends there).
    this.shake = { intensity, duration, t: 0, base: this.spec ? null : this.view.get() };
  }

  private center(target: string | Vec3): Vec3 {
    if (typeof target !== "string") return target;
    const entry = this.entities.world.entities.get(target);
    if (!entry) throw engineError("not_found", `the rig's target ${target} is gone`);
    return this.entities.world.position(entry.eid);
  }

  /** Where `entity` stands and the ground direction it faces ([x, z], from its rotation). */
  private body(entity: string): { at: Vec3; facing: [number, number] } | null {
    const entry = this.entities.world.entities.get(entity);
    if (!entry) return null;
    const [qx, qy, qz, qw] = this.entities.world.rotation(entry.eid);
    // The rotated +z axis, flattened.
    const fx = 2 * (qx * qz + qw * qy);
    const fz = 1 - 2 * (qx * qx + qy * qy);
    const l = Math.hypot(fx, fz) || 1;
    return { at: this.entities.world.position(entry.eid), facing: [fx / l, fz / l] };
  }

  /** One fixed step: the rig's pose, smoothed, shaken, onto the view. Returns the pose. */
  step(dt: number): CameraPose {
    this.steps++;
    if (!this.spec && !this.shake) return this.view.get();
    let shaken = this.view.get();
    if (this.spec) {
      const want = this.desired(this.spec, dt);
      if (!want) {
        // The followed entity is gone: the camera stays where it was.
        this.clear();
      } else {
        const smoothing = "smoothing" in this.spec ? this.spec.smoothing : 0;
        const k = this.pose === null || smoothing <= 0 || dt === 0 ? 1 : 1 - Math.exp(-dt / smoothing);
        const ease = (a: Vec3, b: Vec3): Vec3 => [a[0] + (b[0] - a[0]) * k, a[1] + (b[1] - a[1]) * k, a[2] + (b[2] - a[2]) * k];
        this.pose = this.pose === null ? want : { position: ease(this.pose.position, want.position), target: ease(this.pose.target, want.target), fov: want.fov };
        shaken = { ...this.pose };
      }
    }
    if (this.shake) {
      const s = this.shake;
      if (s.base) shaken = { ...s.base };
      s.t += dt;
      const left = Math.max(0, 1 - s.t / s.duration);
      const a = s.intensity * left * left;
      shaken = { ...shaken, position: [shaken.position[0] + a * noise(1, this.steps), shaken.position[1] + a * noise(2, this.steps), shaken.position[2] + a * noise(3, this.steps)] };
      if (left <= 0) {
        if (s.base) shaken = s.base;
        this.shake = null;
      }
    }
    this.view.set(shaken);
    return shaken;
  }

  private desired(spec: RigSpec, dt: number): CameraPose | null {
    const fov = this.view.get().fov;
    if (spec.mode === "orbit") {
      let center: Vec3;
      try {
        center = this.center(spec.target);
      } catch {
        return null;
      }
      this.azimuth += spec.speed * dt;
      return {
        position: [center[0] + Math.sin(this.azimuth) * spec.distance, center[1] + spec.height, center[2] + Math.cos(this.azimuth) * spec.distance],
        target: [center[0], center[1] + 1, center[2]],
        fov,
      };
    }
    const b = this.body(spec.entity);
    if (!b) return null;
    const { at, facing: [fx, fz] } = b;
    if (spec.mode === "firstPerson") {
      const eye: Vec3 = [at[0] + fx * 0.12, at[1] + spec.eyeHeight, at[2] + fz * 0.12];
      return { position: eye, target: [eye[0] + fx * 10, eye[1] - 0.6, eye[2] + fz * 10], fov };
    }
    if (spec.mode === "follow") {
      return { position: [at[0] - fx * spec.distance, at[1] + spec.height, at[2] - fz * spec.distance], target: [at[0], at[1] + 1.2, at[2]], fov };
    }
    // Over the right shoulder, looking past the head; pulled in when a wall is in the way.
    const rx = -fz;
    const rz = fx;
    const head: Vec3 = [at[0] + rx * spec.shoulder, at[1] + spec.height, at[2] + rz * spec.shoulder];
    let d = spec.distance;
    const hit = this.physics.raycast(head, [-fx, 0, -fz], spec.distance + 0.3);
    if (hit && hit.distance < d + 0.3) d = Math.max(0.3, hit.distance - 0.3);
    return { position: [head[0] - fx * d, head[1], head[2] - fz * d], target: [head[0] + fx * 6, head[1] - 0.3, head[2] + fz * 6], fov };
  }
}
