// What "three" is in Limina: three/webgpu (the whole core plus WebGPURenderer
// and the node materials), TSL as a namespace, and the bundled addons.
export * from "three/webgpu";
export * as TSL from "three/tsl";
export { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
export { GLTFExporter } from "three/examples/jsm/exporters/GLTFExporter.js";
export { EXRLoader } from "three/examples/jsm/loaders/EXRLoader.js";
export { ao } from "three/examples/jsm/tsl/display/GTAONode.js";
export { bloom } from "three/examples/jsm/tsl/display/BloomNode.js";
export { fxaa } from "three/examples/jsm/tsl/display/FXAANode.js";
export { smaa } from "three/examples/jsm/tsl/display/SMAANode.js";
export { traa } from "three/examples/jsm/tsl/display/TRAANode.js";
export { dof } from "three/examples/jsm/tsl/display/DepthOfFieldNode.js";
export { lut3D } from "three/examples/jsm/tsl/display/Lut3DNode.js";
