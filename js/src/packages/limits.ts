// The budgets a package host gives each package's sandbox.

export interface PackageLimits {
  /** Most bytes a package's sandbox may allocate. */
  memoryBytes: number;
  /** Most native stack its code may use. */
  stackBytes: number;
  /** Sandbox CPU time for the entry's top-level code at load. */
  loadCpuMs: number;
  /** Sandbox CPU time per `host.onTick` call. */
  tickCpuMs: number;
  /** Sandbox CPU time per fixed step for all ticking packages of the world together, shared fairly across sessions (at least one tick's budget). */
  worldTickCpuMs: number;
  /** Packages one session may have loaded at once. */
  maxPackagesPerSession: number;
  /** Sandbox CPU time per `decide` of an agent package. */
  decideCpuMs: number;
  /** Ticks over budget before the package is unloaded. */
  maxOverruns: number;
  /** Most `host.invoke` calls in one entry (a load, a tick, a decision). */
  maxIntentsPerRun: number;
}

export const DEFAULT_PACKAGE_LIMITS: Readonly<PackageLimits> = Object.freeze({
  memoryBytes: 32 << 20,
  stackBytes: 256 << 10,
  loadCpuMs: 100,
  tickCpuMs: 2,
  worldTickCpuMs: 4,
  maxPackagesPerSession: 8,
  decideCpuMs: 20,
  maxOverruns: 3,
  maxIntentsPerRun: 64,
});
