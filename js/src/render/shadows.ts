// The sun's shadow fitted to the view: each frame the directional light's
// orthographic shadow camera is made to cover the part of the camera's
// frustum within the tier's shadow distance, clipped to the bounds of what
// casts or receives shadows, with the depth range reaching every caster.
// The box is snapped to whole shadow texels so a moving camera does not
// make the shadow edges crawl. The light itself never moves: only its
// shadow camera's extents change. The sun's shadow map is kept per
// renderer, so two renderers can draw one scene. Browser-safe.

import * as THREE from "three";
import { type Node, tsl } from "./tsl.ts";

const corners = Array.from({ length: 8 }, () => new THREE.Vector3());
const tmp = new THREE.Vector3();
const sphere = new THREE.Sphere();
// A camera, so lookAt points its -Z at the target as the shadow camera's does.
const lightView = new THREE.OrthographicCamera();
const toLight = new THREE.Matrix4();
const fitBox = new THREE.Box3();
const sceneBox = new THREE.Box3();

/** The light-space bounds of every visible mesh that casts or receives shadows; empty when there is none. */
function shadowBounds(scene: THREE.Scene, view: THREE.Matrix4, out: THREE.Box3): THREE.Box3 {
  out.makeEmpty();
  scene.traverseVisible((o) => {
    const mesh = o as THREE.Mesh;
    if (!mesh.isMesh || !(mesh.castShadow || mesh.receiveShadow)) return;
    const instanced = (mesh as THREE.InstancedMesh).isInstancedMesh ? (mesh as THREE.InstancedMesh) : null;
    if (instanced) {
      // Instances move: refresh their bounds, cheaply enough for crowds of a few thousand.
      if (instanced.count <= 4096 || !instanced.boundingSphere) instanced.computeBoundingSphere();
      sphere.copy(instanced.boundingSphere!);
    } else {
      const geometry = mesh.geometry;
      if (!geometry.boundingSphere) geometry.computeBoundingSphere();
      sphere.copy(geometry.boundingSphere!);
    }
    sphere.applyMatrix4(mesh.matrixWorld);
    if (!Number.isFinite(sphere.radius)) return;
    tmp.copy(sphere.center).applyMatrix4(view);
    out.expandByPoint(tmp.clone().addScalar(sphere.radius));
    out.expandByPoint(tmp.subScalar(sphere.radius));
  });
  return out;
}

/**
 * Fits `light`'s shadow camera to what `camera` sees of `scene` within
 * `distance` metres, at `mapSize` texels a side.
 */
export function fitSunShadow(light: THREE.DirectionalLight, camera: THREE.PerspectiveCamera, scene: THREE.Scene, distance: number, mapSize: number): void {
  if (!light.castShadow) return;
  if (light.shadow.mapSize.x !== mapSize) {
    light.shadow.mapSize.set(mapSize, mapSize);
    // A new shadow node and map for the new size: three resizing the map in place (or disposing it) destroys
    // a depth texture that bind groups of draws made at the other size still hold (a bare frame's after a post
    // stack's, and back), a GPU validation error on their next draw.
    light.dispose();
  }
  // Before the renderer would: the bounds need this frame's poses.
  if (scene.matrixWorldAutoUpdate) scene.updateMatrixWorld();
  light.updateMatrixWorld();
  light.target.updateMatrixWorld();
  // The shadow camera's view, as three poses it: at the light, looking at the target.
  lightView.position.setFromMatrixPosition(light.matrixWorld);
  lightView.lookAt(tmp.setFromMatrixPosition(light.target.matrixWorld));
  lightView.updateMatrixWorld();
  toLight.copy(lightView.matrixWorld).invert();

  // The view frustum from near to the shadow distance, in light space.
  camera.updateMatrixWorld();
  const far = Math.min(camera.far, distance);
  const tanV = Math.tan(THREE.MathUtils.degToRad(camera.fov) / 2);
  let i = 0;
  for (const d of [camera.near, far]) {
    const h = tanV * d;
    const w = h * camera.aspect;
    for (const [sx, sy] of [[-1, -1], [1, -1], [-1, 1], [1, 1]]) {
      corners[i++].set(sx * w, sy * h, -d).applyMatrix4(camera.matrixWorld).applyMatrix4(toLight);
    }
  }
  fitBox.setFromPoints(corners);
  shadowBounds(scene, toLight, sceneBox);
  if (sceneBox.isEmpty()) return;
  // Across the light: what the camera sees, but no more than the scene holds.
  const minX = Math.max(fitBox.min.x, sceneBox.min.x);
  const maxX = Math.min(fitBox.max.x, sceneBox.max.x);
  const minY = Math.max(fitBox.min.y, sceneBox.min.y);
  const maxY = Math.min(fitBox.max.y, sceneBox.max.y);
  if (minX >= maxX || minY >= maxY) return;
  // A square box whose side only changes in steps, so texels keep their size while the camera turns.
  const side = Math.pow(2, Math.ceil(Math.log2(Math.max(maxX - minX, maxY - minY, 0.5)) * 4) / 4);
  const texel = side / mapSize;
  const cx = Math.floor((minX + maxX) / 2 / texel) * texel;
  const cy = Math.floor((minY + maxY) / 2 / texel) * texel;
  const cam = light.shadow.camera as THREE.OrthographicCamera;
  cam.left = cx - side / 2;
  cam.right = cx + side / 2;
  cam.bottom = cy - side / 2;
  cam.top = cy + side / 2;
  // Along the light: from in front of the nearest caster to behind the farthest receiver (view z is negative ahead).
  const margin = 0.05 * (sceneBox.max.z - sceneBox.min.z) + 0.5;
  cam.near = -sceneBox.max.z - margin;
  cam.far = -sceneBox.min.z + margin;
  cam.updateProjectionMatrix();
  light.shadow.normalBias = texel * 1.5;
}

/**
 * A light's shadow as one shadow node, so one shadow map, per renderer. Three keeps the shadow node and its map
 * with the light, not the renderer, so a scene drawn by two renderers (a window's and a capture's, each on its own
 * GPU device) would share them: the second skips its shadow pass on a frame number the first already drew it on,
 * and sizing the shared depth texture for itself destroys it under the first's bind groups.
 */
class ShadowPerRenderer extends (THREE.Node as unknown as new () => Node) {
  private nodes = new WeakMap<object, Node>();
  private readonly made = new Set<Node>();

  constructor(private readonly light: THREE.DirectionalLight) {
    super();
  }

  private of(renderer: object): Node {
    let node = this.nodes.get(renderer);
    if (!node) {
      node = tsl.shadow(this.light);
      this.nodes.set(renderer, node);
      this.made.add(node);
    }
    return node;
  }

  getNodeType(builder: { renderer: object }): string {
    return this.of(builder.renderer).getNodeType(builder);
  }

  setup(builder: { renderer: object }): Node {
    return this.of(builder.renderer);
  }

  /** Three calls this when the light is disposed (a new map size): every renderer's map goes, each makes a new one. */
  dispose(): void {
    for (const node of this.made) node.dispose();
    this.made.clear();
    this.nodes = new WeakMap();
    super.dispose();
  }
}

/** Makes `light` keep its shadow map per renderer, so renderers on different GPU devices can draw its scene. */
export function shadowPerRenderer(light: THREE.DirectionalLight): void {
  (light.shadow as unknown as { shadowNode: Node }).shadowNode = new ShadowPerRenderer(light);
}
