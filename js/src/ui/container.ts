// A UI container in the scene: its chrome and text as instanced quads on
// the GPU (quads.ts), plus its speech tail, thought puffs or callout leader
// as meshes of their own. Each is placed as a camera renders it (onBeforeRender), so
// world panels billboard toward that camera and screen panels sit at that
// frame's corner; culling is off because placement happens after it.

import * as THREE from "three";
import type { Vec3 } from "../ecs/world.ts";
import { type AnchorSpec, cameraQuaternion, type FrameSize, screenMatrix, segmentMatrix, triangleMatrix, worldMatrix } from "./anchor.ts";
import { type Composition, compose, type Content } from "./panel.ts";
import { PanelQuads } from "./quads.ts";
import type { ContainerKind, ResolvedStyle } from "./style.ts";

/** Screen panels draw after everything else. */
const SCREEN_ORDER = 1_000_000;
const WORLD_ORDER = 1000;
const PUFFS = 3;

/** Where something is now: an entity's position (null once it is gone) or a fixed point. */
export type Locate = () => Vec3 | null;

export interface ContainerOptions {
  kind: ContainerKind;
  anchor: AnchorSpec;
  /** The anchor's point (world anchors). */
  locate: Locate | null;
  content: Content;
  style: ResolvedStyle;
  sizing: { width?: number; maxWidth?: number; maxLines?: number };
  pixelScale: number;
  /** What a tail or puffs aim at, or a leader points to. */
  pointAt: Locate | null;
  tailWidth: number;
  leaderColor: [number, number, number, number] | null;
}

/** The material of a tail, puff or leader dot (world panels only). */
function basicMaterial(color: THREE.Color): THREE.MeshBasicMaterial {
  // One pass for both faces: a billboard is only ever seen from the front anyway.
  return new THREE.MeshBasicMaterial({ color, transparent: true, depthWrite: false, side: THREE.DoubleSide, forceSinglePass: true, toneMapped: false, fog: false });
}

/** A colour whose sRGB bytes the overlay writes unchanged (it renders with no conversion). */
function srgb([r, g, b]: [number, number, number, number]): THREE.Color {
  return new THREE.Color().setRGB(r / 255, g / 255, b / 255, THREE.LinearSRGBColorSpace);
}

const _centre = new THREE.Vector3();
const _up = new THREE.Vector3();
const _right = new THREE.Vector3();
const _q = new THREE.Quaternion();
const _a = new THREE.Vector3();
const _b = new THREE.Vector3();
const _c = new THREE.Vector3();
const _target = new THREE.Vector3();

export class UiContainer {
  readonly group = new THREE.Group();
  private readonly quads: PanelQuads;
  private composition: Composition;
  private readonly extras: THREE.Object3D[] = [];
  private tail: THREE.Mesh | null = null;
  private puffs: THREE.Mesh[] = [];
  private leader: THREE.Line | null = null;
  private leaderDot: THREE.Mesh | null = null;
  private alpha = 1;

  constructor(private options: ContainerOptions, reveal?: number) {
    this.composition = compose(options.kind, options.content, options.style, options.sizing, reveal);
    const screen = options.anchor.type === "screen";
    this.quads = new PanelQuads(screen);
    this.draw(reveal);
    this.quads.mesh.renderOrder = screen ? SCREEN_ORDER : WORLD_ORDER;
    this.adopt(this.quads.mesh);
    if (options.pointAt && options.anchor.type === "world") {
      const fill = srgb(options.style.fill);
      if (options.kind === "speechBubble") {
        const g = new THREE.BufferGeometry();
        g.setAttribute("position", new THREE.Float32BufferAttribute([0, 0, 0, 1, 0, 0, 0, 1, 0], 3));
        this.tail = new THREE.Mesh(g, basicMaterial(fill));
        this.tail.renderOrder = WORLD_ORDER - 1;
        this.adopt(this.tail);
      } else if (options.kind === "thoughtBubble") {
        const g = new THREE.CircleGeometry(1, 24);
        for (let i = 0; i < PUFFS; i++) {
          const puff = new THREE.Mesh(i === 0 ? g : g.clone(), basicMaterial(fill));
          puff.renderOrder = WORLD_ORDER - 1;
          this.puffs.push(puff);
          this.adopt(puff);
        }
      } else if (options.kind === "callout") {
        const color = srgb(options.leaderColor ?? options.style.border);
        const g = new THREE.BufferGeometry();
        g.setAttribute("position", new THREE.Float32BufferAttribute([0, 0, 0, 1, 0, 0], 3));
        this.leader = new THREE.Line(g, new THREE.LineBasicMaterial({ color, transparent: true, depthWrite: false, toneMapped: false, fog: false }));
        this.leader.renderOrder = WORLD_ORDER - 1;
        this.adopt(this.leader);
        this.leaderDot = new THREE.Mesh(new THREE.CircleGeometry(1, 16), basicMaterial(color));
        this.adopt(this.leaderDot);
      }
    }
    this.setAlpha(1);
  }

  /** Logical size and where the body text lies in it. */
  get layout(): Composition {
    return this.composition;
  }

  get kind(): ContainerKind {
    return this.options.kind;
  }

  /** Whether the entity it is anchored to is gone. */
  anchorLost(): boolean {
    return this.options.locate !== null && this.options.locate() === null;
  }

  /** The panel's size in device pixels (screen panels cover exactly these). */
  get pixelSize(): [number, number] {
    const s = this.options.pixelScale;
    return [Math.ceil(this.composition.width * s), Math.ceil(this.composition.height * s)];
  }

  get opacity(): number {
    return this.quads.opacity;
  }

  /** Instances the panel's quads have room for (updates that fit reuse them). */
  get quadCapacity(): number {
    return this.quads.capacity;
  }

  private adopt(o: THREE.Object3D): void {
    o.frustumCulled = false;
    o.matrixAutoUpdate = false;
    o.matrixWorldAutoUpdate = false;
    o.onBeforeRender = (renderer, _scene, camera) => this.place(renderer, camera);
    this.extras.push(o);
    this.group.add(o);
  }

  /** Writes the composition's quads; a screen panel's unit quad spans its whole device pixels. */
  private draw(reveal: number | undefined): void {
    const c = this.composition;
    const [pw, ph] = this.pixelSize;
    const s = this.options.pixelScale;
    this.quads.set(c.paints, this.options.anchor.type === "screen" ? [pw / s, ph / s] : [c.width, c.height]);
    this.reveal(reveal ?? Infinity);
  }

  /** Shows the first `n` characters of a typewriter's text: no layout, no new quads. */
  reveal(n: number): void {
    this.quads.reveal(n);
  }

  /** Re-composites with new words, style or reveal, rewriting the quads in place while they fit. */
  recomposite(changes: { content?: Content; style?: ResolvedStyle }, reveal?: number): void {
    this.options = { ...this.options, ...(changes.content ? { content: changes.content } : {}), ...(changes.style ? { style: changes.style } : {}) };
    this.composition = compose(this.options.kind, this.options.content, this.options.style, this.options.sizing, reveal);
    this.draw(reveal);
    if (changes.style) {
      const fill = srgb(this.options.style.fill);
      this.tail && (this.tail.material as THREE.MeshBasicMaterial).color.copy(fill);
      for (const p of this.puffs) (p.material as THREE.MeshBasicMaterial).color.copy(fill);
      this.setAlpha(this.alpha);
    }
  }

  get content(): Content {
    return this.options.content;
  }

  /** The lifecycle's opacity (times the style's). */
  setAlpha(alpha: number): void {
    this.alpha = alpha;
    const opacity = alpha * this.options.style.opacity;
    const fillAlpha = this.options.style.fill[3] / 255;
    this.quads.opacity = opacity;
    for (const o of this.extras) {
      if (o === this.quads.mesh) continue;
      const m = (o as THREE.Mesh).material as THREE.Material;
      m.opacity = o === this.leader || o === this.leaderDot ? opacity : opacity * fillAlpha;
    }
    this.group.visible = opacity > 0;
  }

  /** Places every part for `camera` as `renderer` draws it. */
  private place(renderer: FrameSize, camera: THREE.Camera): void {
    const { anchor, pixelScale } = this.options;
    const [pw, ph] = this.pixelSize;
    if (anchor.type === "screen") {
      screenMatrix(anchor, pixelScale, pw, ph, renderer, camera, this.quads.mesh.matrixWorld);
      return;
    }
    const at = this.options.locate?.();
    if (!at) return;
    const upp = anchor.unitsPerPixel;
    const w = this.composition.width * upp;
    const h = this.composition.height * upp;
    cameraQuaternion(camera, _q);
    const q = anchor.billboard ? _q : _q.identity();
    _up.set(0, 1, 0).applyQuaternion(q);
    _right.set(1, 0, 0).applyQuaternion(q);
    _centre.set(at[0] + anchor.offset[0], at[1] + anchor.offset[1], at[2] + anchor.offset[2]);
    if (anchor.align === "bottom") _centre.addScaledVector(_up, h / 2);
    worldMatrix(_centre, w, h, anchor.billboard, camera, this.quads.mesh.matrixWorld);
    const target = this.options.pointAt?.();
    if (!target) {
      for (const o of this.extras) if (o !== this.quads.mesh) o.visible = false;
      return;
    }
    for (const o of this.extras) o.visible = true;
    _target.set(...target);
    // The box's bottom edge, middle.
    const bottom = _a.copy(_centre).addScaledVector(_up, -h / 2 + this.options.style.borderWidth * upp * 2);
    if (this.tail) {
      const half = (this.options.tailWidth / 2) * upp;
      _b.copy(bottom).addScaledVector(_right, half);
      bottom.addScaledVector(_right, -half);
      // Aimed at the speaker, stopping short of it.
      _c.copy(_centre).addScaledVector(_up, -h / 2).lerp(_target, 0.75);
      triangleMatrix(bottom, _b, _c, this.tail.matrixWorld);
    } else if (this.puffs.length > 0) {
      _b.copy(_centre).addScaledVector(_up, -h / 2);
      const r0 = Math.min(w, h) * 0.09;
      this.puffs.forEach((puff, i) => {
        const t = (i + 1) / (PUFFS + 1);
        _c.copy(_b).lerp(_target, t * 0.85);
        const r = r0 * (1 - i * 0.28);
        worldMatrix(_c, r, r, true, camera, puff.matrixWorld);
      });
    } else if (this.leader && this.leaderDot) {
      // From the box edge nearest the target to the target.
      _b.copy(_centre).addScaledVector(_up, _target.y > _centre.y ? h / 2 : -h / 2);
      segmentMatrix(_b, _target, this.leader.matrixWorld);
      const r = 4 * upp;
      worldMatrix(_target, r, r, true, camera, this.leaderDot.matrixWorld);
    }
  }

  /** Detaches everything from the scene and frees its GPU resources. */
  dispose(): void {
    this.group.removeFromParent();
    this.quads.dispose();
    for (const o of this.extras) {
      if (o === this.quads.mesh) continue;
      const m = o as THREE.Mesh;
      m.geometry.dispose();
      (m.material as THREE.Material).dispose();
    }
  }
}
