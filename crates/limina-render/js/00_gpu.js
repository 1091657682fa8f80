// navigator.gpu and the WebGPU globals, backed by deno_webgpu (wgpu-core).
// The implementation loads lazily: a module that never touches WebGPU pays nothing.

import { core } from "ext:core/mod.js";

const { loadWebGPU } = core.loadExtScript("ext:deno_webgpu/00_init.js");
let webgpu = null;
const load = () => (webgpu ??= mapWithoutSleep(reportCoreFeatures(loadWebGPU())));

// wgpu makes only core (never compatibility-mode) adapters and devices, and the
// spec has those list "core-features-and-limits"; deno_webgpu leaves it out,
// which makes Three.js fall back to compatibility mode (no MSAA). Report it,
// and drop it from requestDevice's requiredFeatures, which wgpu cannot parse.
const CORE = "core-features-and-limits";
function reportCoreFeatures(m) {
  const proto = m.GPUSupportedFeatures.prototype;
  const inner = Symbol.for("setlike_set");
  const setOf = proto[inner];
  Object.defineProperty(proto, inner, {
    configurable: true,
    value() {
      const set = setOf.call(this);
      set.add(CORE);
      return set;
    },
  });
  const requestDevice = m.GPUAdapter.prototype.requestDevice;
  Object.defineProperty(m.GPUAdapter.prototype, "requestDevice", {
    configurable: true,
    writable: true,
    value(descriptor = {}) {
      const required = descriptor?.requiredFeatures;
      if (required) descriptor = { ...descriptor, requiredFeatures: [...required].filter((f) => f !== CORE) };
      return requestDevice.call(this, descriptor);
    },
  });
  return m;
}

// deno_webgpu's mapAsync waits for the GPU, which maps the buffer, then sleeps 10 ms before it resolves:
// every readback paid it. The usual call (READ or WRITE, an unmapped buffer, a plain range) maps the same
// way without the sleep (op_render_buffer_map); anything else keeps deno_webgpu's path and its errors.
const isRange = (n) => Number.isSafeInteger(n) && n >= 0;
function mapWithoutSleep(m) {
  const proto = m.GPUBuffer.prototype;
  const mapAsync = proto.mapAsync;
  Object.defineProperty(proto, "mapAsync", {
    configurable: true,
    writable: true,
    value(mode, offset = 0, size = undefined) {
      if ((mode !== 1 && mode !== 2) || !isRange(offset) || (size !== undefined && !isRange(size)) || this.mapState !== "unmapped" || offset > this.size) {
        return mapAsync.call(this, mode, offset, size);
      }
      const failed = core.ops.op_render_buffer_map(this, mode, offset, size ?? this.size - offset);
      return failed === null ? Promise.resolve() : Promise.reject(new DOMException(failed, "OperationError"));
    },
  });
  return m;
}

const navigator = globalThis.navigator ?? {};
Object.defineProperty(navigator, "gpu", {
  configurable: true,
  enumerable: true,
  get: () => {
    const m = load();
    // The instance is made on first use, Vulkan first and quietly (gpu.rs), not by deno_webgpu with every backend.
    if (!core.ops.op_render_gpu_started()) core.ops.op_render_gpu_instance();
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
