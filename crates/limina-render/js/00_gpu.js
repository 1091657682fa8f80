// navigator.gpu and the WebGPU globals, backed by deno_webgpu (wgpu-core).
// The implementation loads lazily: a module that never touches WebGPU pays nothing.

import { core } from "ext:core/mod.js";

const { loadWebGPU } = core.loadExtScript("ext:deno_webgpu/00_init.js");
let webgpu = null;
const load = () => (webgpu ??= loadWebGPU());

const navigator = globalThis.navigator ?? {};
Object.defineProperty(navigator, "gpu", {
  configurable: true,
  enumerable: true,
  get: () => {
    const m = load();
    m.initGPU();
    return m.gpu; // a live binding, set by initGPU()
  },
});
globalThis.navigator = navigator;

for (const name of [
  "GPU", "GPUAdapter", "GPUAdapterInfo", "GPUBindGroup", "GPUBindGroupLayout", "GPUBuffer", "GPUBufferUsage",
  "GPUCanvasContext", "GPUColorWrite", "GPUCommandBuffer", "GPUCommandEncoder", "GPUCompilationInfo",
  "GPUCompilationMessage", "GPUComputePassEncoder", "GPUComputePipeline", "GPUDevice", "GPUDeviceLostInfo",
  "GPUError", "GPUExternalTexture", "GPUInternalError", "GPUMapMode", "GPUOutOfMemoryError", "GPUPipelineError",
  "GPUPipelineLayout", "GPUQuerySet", "GPUQueue", "GPURenderBundle", "GPURenderBundleEncoder",
  "GPURenderPassEncoder", "GPURenderPipeline", "GPUSampler", "GPUShaderModule", "GPUShaderStage",
  "GPUSupportedFeatures", "GPUSupportedLimits", "GPUTexture", "GPUTextureUsage", "GPUTextureView",
  "GPUUncapturedErrorEvent", "GPUValidationError",
]) {
  Object.defineProperty(globalThis, name, { configurable: true, enumerable: false, get: () => load()[name] });
}
