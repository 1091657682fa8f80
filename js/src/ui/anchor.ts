// Where a UI container is: a world anchor (a point or an entity, with an
// offset, billboarded toward whichever camera renders it) or a screen
// anchor (pinned to a corner of the frame, in logical pixels times the
// panel's pixelScale, drawn over the scene). Placement happens as each
// camera renders, so the window and a capture from another pose both see
// the panel placed for their own camera.

import * as THREE from "three";
import { z } from "zod";
import { WorldVec3 } from "../skills/schemas.ts";

const Offset = WorldVec3.describe("offset from the anchor point, metres [x, y, z]");

export const WorldAnchor = z
  .strictObject({
    type: z.literal("world"),
    entity: z.string().min(1).optional().describe("entity id (ent_…) to track; give entity or position"),
    position: WorldVec3.optional().describe("world point [x, y, z], metres; give entity or position"),
    offset: Offset.default([0, 0, 0]),
    align: z.enum(["center", "bottom"]).default("center").describe("which point of the panel sits at the anchor: its centre or its bottom edge's middle"),
    billboard: z.boolean().default(true).describe("face the camera (true) or keep facing +z"),
    unitsPerPixel: z.number().gt(0).max(10).default(0.01).describe("metres per logical pixel of the panel (0.01: a 200 px panel is 2 m wide)"),
  })
  .refine((a) => (a.entity === undefined) !== (a.position === undefined), { message: "a world anchor takes exactly one of entity or position" })
  .describe("Anchored in the world: at an entity (tracked as it moves) or a point, plus offset; billboarded toward the camera.");

export const SCREEN_CORNERS = ["topLeft", "top", "topRight", "left", "center", "right", "bottomLeft", "bottom", "bottomRight"] as const;

export const ScreenAnchor = z
  .strictObject({
    type: z.literal("screen"),
    corner: z.enum(SCREEN_CORNERS).default("topLeft").describe("the frame corner (or edge middle, or centre) the panel is pinned to"),
    offset: z.tuple([z.number().min(-1e4).max(1e4), z.number().min(-1e4).max(1e4)]).default([16, 16]).describe("[x, y] inward from that corner, logical px (scaled by pixelScale)"),
  })
  .describe("Pinned to the screen: drawn over the scene at a corner of the frame, whatever the camera does.");

export const Anchor = z.discriminatedUnion("type", [WorldAnchor, ScreenAnchor]).describe("Where the container is: {type: 'world', …} or {type: 'screen', …}.");

export type WorldAnchorSpec = z.infer<typeof WorldAnchor>;
export type ScreenAnchorSpec = z.infer<typeof ScreenAnchor>;
export type AnchorSpec = z.infer<typeof Anchor>;

const _q = new THREE.Quaternion();
const _s = new THREE.Vector3();
const _size = new THREE.Vector2();
const _c = new THREE.Vector3();
const _r = new THREE.Vector3();
const _t = new THREE.Vector3();
const _z = new THREE.Vector3();

/** The camera's world rotation (cameras are never scaled). */
export function cameraQuaternion(camera: THREE.Camera, out: THREE.Quaternion): THREE.Quaternion {
  camera.matrixWorld.decompose(_s, out, _s);
  return out;
}

/** What placement needs of a renderer: the size of the frame it draws. */
export interface FrameSize {
  getDrawingBufferSize(target: THREE.Vector2): THREE.Vector2;
}

/**
 * The world matrix of a `width`×`height` device-pixel quad pinned per
 * `anchor` in the frame `renderer` draws for `camera`: a plane of unit size
 * scaled so each texel covers one device pixel, just past the near plane.
 */
export function screenMatrix(anchor: ScreenAnchorSpec, pixelScale: number, width: number, height: number, renderer: FrameSize, camera: THREE.Camera, out: THREE.Matrix4): THREE.Matrix4 {
  const { x: vw, y: vh } = renderer.getDrawingBufferSize(_size);
  const [ox, oy] = anchor.offset;
  const corner = anchor.corner;
  const horizontal = corner.endsWith("Left") || corner === "left" ? 0 : corner.endsWith("Right") || corner === "right" ? 2 : 1;
  const vertical = corner.startsWith("top") ? 0 : corner.startsWith("bottom") ? 2 : 1;
  // The panel's top-left, whole device pixels, so texels meet pixels one to one.
  const left = Math.round(horizontal === 0 ? ox * pixelScale : horizontal === 2 ? vw - width - ox * pixelScale : (vw - width) / 2 + ox * pixelScale);
  const top = Math.round(vertical === 0 ? oy * pixelScale : vertical === 2 ? vh - height - oy * pixelScale : (vh - height) / 2 + oy * pixelScale);
  const ndcX = ((left + width / 2) / vw) * 2 - 1;
  const ndcY = 1 - ((top + height / 2) / vh) * 2;
  const inverse = (camera as THREE.PerspectiveCamera).projectionMatrixInverse;
  _c.set(ndcX, ndcY, 0.5).applyMatrix4(inverse);
  _r.set(ndcX + width / vw, ndcY, 0.5).applyMatrix4(inverse);
  _t.set(ndcX, ndcY + height / vh, 0.5).applyMatrix4(inverse);
  const perspective = (camera as THREE.PerspectiveCamera).isPerspectiveCamera === true;
  const near = (camera as THREE.PerspectiveCamera).near ?? 0.1;
  if (perspective) {
    // Along the rays through those pixels, to just past the near plane: same pixels, nothing in front.
    const k = (near * 1.5) / -_c.z;
    _c.multiplyScalar(k);
    _r.multiplyScalar(k);
    _t.multiplyScalar(k);
  } else {
    _c.z = _r.z = _t.z = -(near + 1e-3);
  }
  _r.sub(_c).multiplyScalar(2);
  _t.sub(_c).multiplyScalar(2);
  _z.crossVectors(_r, _t).normalize();
  out.makeBasis(_r, _t, _z).setPosition(_c);
  return out.premultiply(camera.matrixWorld);
}

/** The world matrix of a `w`×`h` metre quad centred at `centre`, facing the camera when billboarded. */
export function worldMatrix(centre: THREE.Vector3, w: number, h: number, billboard: boolean, camera: THREE.Camera, out: THREE.Matrix4): THREE.Matrix4 {
  if (billboard) cameraQuaternion(camera, _q);
  else _q.identity();
  return out.compose(centre, _q, _s.set(w, h, 1));
}

/** The matrix mapping the unit triangle (0,0,0), (1,0,0), (0,1,0) onto a, b, c. */
export function triangleMatrix(a: THREE.Vector3, b: THREE.Vector3, c: THREE.Vector3, out: THREE.Matrix4): THREE.Matrix4 {
  _r.subVectors(b, a);
  _t.subVectors(c, a);
  _z.crossVectors(_r, _t);
  if (_z.lengthSq() < 1e-12) _z.set(0, 0, 1e-6);
  return out.makeBasis(_r, _t, _z.normalize()).setPosition(a);
}

/** The matrix mapping the unit segment (0,0,0)–(1,0,0) onto a–b. */
export function segmentMatrix(a: THREE.Vector3, b: THREE.Vector3, out: THREE.Matrix4): THREE.Matrix4 {
  _r.subVectors(b, a);
  // Any two unit axes perpendicular to it keep the matrix invertible.
  _t.set(0, 1, 0);
  if (Math.abs(_r.clone().normalize().y) > 0.9) _t.set(1, 0, 0);
  _z.crossVectors(_r, _t).normalize();
  _t.crossVectors(_z, _r).normalize();
  return out.makeBasis(_r.lengthSq() > 1e-12 ? _r : _r.set(1e-6, 0, 0), _t, _z).setPosition(a);
}
