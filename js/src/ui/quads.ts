// A UI container drawn by the GPU: its chrome (rounded boxes, borders,
// cloud scallops) and its text (one quad per glyph over the shared
// signed-distance atlas) as instances of one quad, in paint order, in one
// draw with one shader that every container shares. Edges are
// anti-aliased over one screen pixel whatever the scale, so text stays
// crisp as a world panel nears the camera. A typewriter changes a
// per-object uniform, not the quads.

import * as THREE from "three";
import { glyphAtlas, type Paint, QUAD_FLOATS, QUAD_GLYPH, quadsOf } from "../../../crates/limina-render/js/text.ts";
import { type Node, tsl } from "../render/tsl.ts";

/** What the shared shader reads of each container, set before each draw. */
interface QuadObject {
  /** The logical size the unit quad spans (the mesh's matrix scales it into place). */
  extent: THREE.Vector2;
  /** Glyphs of typed text whose order is below this show. */
  reveal: number;
  opacity: number;
}

let atlas: { texture: THREE.DataTexture; version: number; spread: number } | null = null;
const atlasSize = new THREE.Vector2(1, 1);
let atlasNode: Node = null;

/** The atlas texture, refreshed when the native atlas is not at `version` (null: fetched if there is none yet). */
function syncAtlas(version: number | null): void {
  if (atlas && version === null) return;
  if (atlas && atlas.version === version) return;
  const image = glyphAtlas();
  const texture = new THREE.DataTexture(image.data, image.width, image.height, THREE.RedFormat, THREE.UnsignedByteType);
  texture.colorSpace = THREE.NoColorSpace;
  texture.magFilter = THREE.LinearFilter;
  texture.minFilter = THREE.LinearFilter;
  texture.generateMipmaps = false;
  texture.needsUpdate = true;
  atlas?.texture.dispose();
  atlas = { texture, version: image.version, spread: image.spread };
  atlasSize.set(image.width, image.height);
  if (atlasNode) atlasNode.value = texture;
}

const materials = new Map<boolean, THREE.MeshBasicNodeMaterial>();

/** The shader every container shares (one for screen panels, drawn over everything, one for world panels). */
function quadMaterial(screen: boolean): THREE.MeshBasicNodeMaterial {
  const made = materials.get(screen);
  if (made) return made;
  const { attribute, clamp, float, fwidth, length, max, min, positionGeometry, select, texture, uniform, vec2, vec3, vec4 } = tsl;
  syncAtlas(null);
  atlasNode ??= texture(atlas!.texture);
  const of = (object: THREE.Object3D) => object.userData as QuadObject;
  const extent = uniform(new THREE.Vector2(1, 1)).onObjectUpdate(({ object }: { object: THREE.Object3D }) => of(object).extent);
  const reveal = uniform(0).onObjectUpdate(({ object }: { object: THREE.Object3D }) => of(object).reveal);
  const opacity = uniform(1).onObjectUpdate(({ object }: { object: THREE.Object3D }) => of(object).opacity);
  const texels = uniform(atlasSize);
  const rect = attribute("quadRect", "vec4");
  const uv = attribute("quadUv", "vec4");
  const fill = attribute("quadColor", "vec4");
  const border = attribute("quadBorder", "vec4");
  const params = attribute("quadParams", "vec4");
  const corner = positionGeometry.xy;
  // Unrevealed glyphs collapse to nothing.
  const shown = select(params.y.lessThan(reveal), float(1), float(0));
  const at = rect.xy.add(corner.mul(rect.zw).mul(shown));
  const m = new THREE.MeshBasicNodeMaterial({ transparent: true, depthWrite: false, depthTest: !screen, side: THREE.DoubleSide, forceSinglePass: true, toneMapped: false, fog: false });
  m.positionNode = vec3(at.x.div(extent.x).sub(0.5), float(0.5).sub(at.y.div(extent.y)), 0);
  // Glyph: the atlas distance, ½ at the edge, over the screen pixels a texel spans.
  const texel = uv.xy.add(corner.mul(uv.zw.sub(uv.xy)));
  const texelsPerPixel = max(fwidth(texel.x).add(fwidth(texel.y)).mul(0.5), 1e-6);
  const sample = atlasNode.sample(texel.div(texels)).r;
  const glyphAlpha = clamp(sample.sub(0.5).mul(2 * atlas!.spread).div(texelsPerPixel).add(0.5), 0, 1);
  // Box: a rounded box's signed distance (logical px), fill inside its border, the border colour in the ring.
  const half = rect.zw.mul(0.5);
  const p = corner.sub(0.5).mul(rect.zw);
  const radius = params.z;
  const q = p.abs().sub(half).add(radius);
  const d = length(max(q, vec2(0, 0))).add(min(max(q.x, q.y), 0)).sub(radius);
  const unitsPerPixel = max(fwidth(p.x).add(fwidth(p.y)).mul(0.5), 1e-6);
  const outer = clamp(float(0.5).sub(d.div(unitsPerPixel)), 0, 1);
  const inner = clamp(float(0.5).sub(d.add(params.w).div(unitsPerPixel)), 0, 1);
  const fa = fill.w.mul(inner);
  const ba = border.w.mul(outer.sub(inner));
  const boxAlpha = fa.add(ba);
  const boxColor = fill.xyz.mul(fa).add(border.xyz.mul(ba)).div(max(boxAlpha, 1e-6));
  const glyph = params.x.greaterThan(QUAD_GLYPH - 0.5);
  m.colorNode = vec4(select(glyph, fill.xyz, boxColor), 1);
  m.opacityNode = select(glyph, fill.w.mul(glyphAlpha), boxAlpha).mul(opacity);
  materials.set(screen, m);
  return m;
}

/** The unit quad every instance draws: corners (0..1, 0..1), y down the panel. */
function cornerGeometry(): THREE.InstancedBufferGeometry {
  const g = new THREE.InstancedBufferGeometry();
  g.setAttribute("position", new THREE.Float32BufferAttribute([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0], 3));
  g.setIndex([0, 2, 1, 1, 2, 3]);
  return g;
}

/** One container's quads: a mesh whose instances are rewritten in place while they fit. */
export class PanelQuads {
  readonly mesh: THREE.Mesh<THREE.InstancedBufferGeometry, THREE.MeshBasicNodeMaterial>;
  private buffer: THREE.InstancedInterleavedBuffer | null = null;
  private readonly state: QuadObject = { extent: new THREE.Vector2(1, 1), reveal: Infinity, opacity: 1 };

  constructor(screen: boolean) {
    const quads = cornerGeometry();
    this.mesh = new THREE.Mesh(quads, quadMaterial(screen));
    this.mesh.userData = this.state;
  }

  /** Replaces the quads with `paints` (logical px), drawn in a unit quad spanning `extent`. */
  set(paints: Paint[], extent: [number, number]): void {
    const quads = quadsOf(paints);
    syncAtlas(quads.atlasVersion);
    const floats = new Float32Array(quads.data.buffer, quads.data.byteOffset, quads.count * QUAD_FLOATS);
    const g = this.mesh.geometry;
    if (!this.buffer || this.buffer.count < quads.count) {
      // Room to grow: a typical update of the same container fits.
      const capacity = Math.max(quads.count, Math.ceil((this.buffer?.count ?? 0) * 1.5), 16);
      this.buffer = new THREE.InstancedInterleavedBuffer(new Float32Array(capacity * QUAD_FLOATS), QUAD_FLOATS);
      ["quadRect", "quadUv", "quadColor", "quadBorder", "quadParams"].forEach((name, i) => g.setAttribute(name, new THREE.InterleavedBufferAttribute(this.buffer!, 4, i * 4)));
    }
    (this.buffer.array as Float32Array).set(floats);
    this.buffer.clearUpdateRanges();
    this.buffer.addUpdateRange(0, floats.length);
    this.buffer.needsUpdate = true;
    g.instanceCount = quads.count;
    this.state.extent.set(extent[0], extent[1]);
  }

  /** Instances allocated (for tests: updates that fit reuse them). */
  get capacity(): number {
    return this.buffer?.count ?? 0;
  }

  /** Shows the first `n` characters of typed text (Infinity: all). */
  reveal(n: number): void {
    this.state.reveal = n;
  }

  set opacity(value: number) {
    this.state.opacity = value;
  }

  get opacity(): number {
    return this.state.opacity;
  }

  /** Frees the instances (the shader and atlas are shared). */
  dispose(): void {
    this.mesh.geometry.dispose();
  }
}
