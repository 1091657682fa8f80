// glTF loading inside V8: Three.js's GLTFLoader expects a browser image
// stack (createImageBitmap, fetch, <img>) for textures. This plugin decodes
// embedded PNG images natively instead and hands Three.js a DataTexture with
// the glTF sampler's filtering and wrapping.

import * as THREE from "three";
import { decodePng } from "./ops.ts";

const FILTERS: Record<number, THREE.TextureFilter> = {
  9728: THREE.NearestFilter,
  9729: THREE.LinearFilter,
  9984: THREE.NearestMipmapNearestFilter,
  9985: THREE.LinearMipmapNearestFilter,
  9986: THREE.NearestMipmapLinearFilter,
  9987: THREE.LinearMipmapLinearFilter,
};
const WRAPS: Record<number, THREE.Wrapping> = {
  33071: THREE.ClampToEdgeWrapping,
  33648: THREE.MirroredRepeatWrapping,
  10497: THREE.RepeatWrapping,
};

interface GltfJson {
  textures?: { source?: number; sampler?: number; name?: string }[];
  images?: { bufferView?: number; mimeType?: string; uri?: string; name?: string }[];
  samplers?: { magFilter?: number; minFilter?: number; wrapS?: number; wrapT?: number }[];
}

interface GltfParser {
  json: GltfJson;
  associations: Map<unknown, unknown>;
  getDependency(type: "bufferView", index: number): Promise<ArrayBuffer>;
}

function nativeTextures(parser: GltfParser) {
  return {
    name: "LIMINA_native_textures",
    async loadTexture(index: number): Promise<THREE.Texture> {
      const def = parser.json.textures?.[index];
      const image = def?.source === undefined ? undefined : parser.json.images?.[def.source];
      if (!def || !image) throw new Error(`glTF texture ${index} has no image`);
      if (image.bufferView === undefined || image.mimeType !== "image/png") {
        const what = image.uri ? `an external or data URI image` : `a ${image.mimeType ?? "typeless"} image`;
        throw new Error(`glTF texture ${index}: ${what} is not supported; embed PNG images in the .glb (bufferView + image/png)`);
      }
      const bytes = new Uint8Array(await parser.getDependency("bufferView", image.bufferView));
      const decoded = decodePng(bytes);
      const texture = new THREE.DataTexture(decoded.data, decoded.width, decoded.height, THREE.RGBAFormat);
      const sampler = (def.sampler === undefined ? undefined : parser.json.samplers?.[def.sampler]) ?? {};
      texture.name = def.name ?? image.name ?? "";
      texture.flipY = false; // glTF UVs have their origin at the top left
      texture.magFilter = (FILTERS[sampler.magFilter ?? -1] ?? THREE.LinearFilter) as THREE.MagnificationTextureFilter;
      texture.minFilter = (FILTERS[sampler.minFilter ?? -1] ?? THREE.LinearMipmapLinearFilter) as THREE.MinificationTextureFilter;
      texture.wrapS = WRAPS[sampler.wrapS ?? -1] ?? THREE.RepeatWrapping;
      texture.wrapT = WRAPS[sampler.wrapT ?? -1] ?? THREE.RepeatWrapping;
      texture.generateMipmaps = texture.minFilter !== THREE.NearestFilter && texture.minFilter !== THREE.LinearFilter;
      texture.needsUpdate = true;
      parser.associations.set(texture, { textures: index });
      return texture;
    },
  };
}

/** A GLTFLoader whose textures decode natively (embedded PNG). */
export function createGLTFLoader(): THREE.GLTFLoader {
  return new THREE.GLTFLoader().register(nativeTextures);
}
