// The view camera of a world: the one camera its window shows and its
// captures use unless a call brings its own. A pose is a position, the point
// it looks at and a vertical field of view.

import * as THREE from "three";
import type { Vec3 } from "../ecs/world.ts";
import { Revision } from "./look.ts";

export interface CameraPose {
  position: Vec3;
  target: Vec3;
  /** Vertical field of view, degrees. */
  fov: number;
}

/** Where a world's view starts: above and in front of the origin, looking at it. */
export const DEFAULT_POSE: Readonly<CameraPose> = Object.freeze({ position: [10, 8, 12] as Vec3, target: [0, 0, 0] as Vec3, fov: 55 });

const NEAR = 0.1;
const MIN_FAR = 1000;

/** Points `camera` along `pose`; the far plane reaches well past the target however far the camera stands. */
export function placeCamera(camera: THREE.PerspectiveCamera, pose: CameraPose): void {
  const [px, py, pz] = pose.position;
  const [tx, ty, tz] = pose.target;
  camera.position.set(px, py, pz);
  camera.fov = pose.fov;
  camera.near = NEAR;
  camera.far = Math.max(MIN_FAR, 4 * Math.hypot(tx - px, ty - py, tz - pz));
  camera.lookAt(tx, ty, tz);
  camera.updateProjectionMatrix();
  camera.updateMatrixWorld();
}

export class ViewCamera {
  /** What the window renders (its aspect follows the window). */
  readonly camera = new THREE.PerspectiveCamera(DEFAULT_POSE.fov, 1, NEAR, MIN_FAR);
  private pose: CameraPose = { ...DEFAULT_POSE };
  private readonly placed = { position: new THREE.Vector3(), quaternion: new THREE.Quaternion(), fov: 0 };
  /** `set` calls so far (a pose may move the target alone). */
  private sets = 0;
  /** Moves whenever `get()` may read differently: a `set`, or code steering the camera itself. */
  readonly revision = new Revision((out) => {
    const { position: p, quaternion: q, fov } = this.camera;
    out.push(this.sets, p.x, p.y, p.z, q.x, q.y, q.z, q.w, fov);
  });

  constructor(pose: CameraPose = DEFAULT_POSE) {
    this.set(pose);
  }

  /** Moves the view; an omitted fov keeps the current one. Returns the new pose. */
  set(pose: { position: Vec3; target: Vec3; fov?: number }): CameraPose {
    this.pose = { position: [...pose.position], target: [...pose.target], fov: pose.fov ?? this.camera.fov };
    placeCamera(this.camera, this.pose);
    this.placed.position.copy(this.camera.position);
    this.placed.quaternion.copy(this.camera.quaternion);
    this.placed.fov = this.camera.fov;
    this.sets++;
    return this.get();
  }

  /** The current pose. When code steered the camera since the last `set`
   *  (an orbit control, say), the target is the point it now looks at, as
   *  far away as the last target was. */
  get(): CameraPose {
    const { camera, placed } = this;
    if (camera.position.equals(placed.position) && camera.quaternion.equals(placed.quaternion) && camera.fov === placed.fov) {
      return { position: [...this.pose.position], target: [...this.pose.target], fov: this.pose.fov };
    }
    const distance = new THREE.Vector3(...this.pose.target).distanceTo(placed.position);
    const target = camera.getWorldDirection(new THREE.Vector3()).multiplyScalar(distance).add(camera.position);
    return { position: camera.position.toArray() as Vec3, target: target.toArray() as Vec3, fov: camera.fov };
  }
}

/**
 * A pose that frames `object` (its bounding sphere fills the frame at
 * `aspect`), looking at it along the direction `from` looks, so framing
 * keeps the angle the view had.
 */
export function framing(object: THREE.Object3D, from: CameraPose, aspect: number): CameraPose {
  const sphere = new THREE.Box3().setFromObject(object).getBoundingSphere(new THREE.Sphere());
  if (sphere.isEmpty() || sphere.radius === 0) sphere.set(object.getWorldPosition(new THREE.Vector3()), 0.5);
  const direction = new THREE.Vector3(...from.target).sub(new THREE.Vector3(...from.position)).normalize();
  const halfV = THREE.MathUtils.degToRad(from.fov) / 2;
  const halfH = Math.atan(Math.tan(halfV) * aspect);
  // 10% margin around the sphere, on the narrower side of the frame.
  const distance = (sphere.radius * 1.1) / Math.sin(Math.min(halfV, halfH));
  const position = sphere.center.clone().addScaledVector(direction, -distance);
  return { position: position.toArray() as Vec3, target: sphere.center.toArray() as Vec3, fov: from.fov };
}
