// What "three" is in Limina: three/webgpu (the whole core plus WebGPURenderer
// and the node materials), TSL as a namespace, and the bundled addons.
export * from "three/webgpu";
export * as TSL from "three/tsl";
export { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
export { GLTFExporter } from "three/examples/jsm/exporters/GLTFExporter.js";
