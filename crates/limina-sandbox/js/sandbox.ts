// The JS face of limina-sandbox: QuickJS sandboxes for untrusted code, and
// the install directory of packages. A sandbox's code sees standard
// ECMAScript and `host` only; `host.invoke(skill, input)` returns a promise
// and records an intent, which the host performs after the sandbox has
// returned and answers with `settle`. Every entry runs within a CPU budget
// (thread CPU time, enforced by QuickJS's interrupt handler), a memory limit
// and a stack limit.

import { engineError } from "../../limina-ops/js/errors.ts";

export interface SandboxLimits {
  /** Most bytes the sandbox may allocate (1 MiB–1 GiB). */
  memoryBytes: number;
  /** Most native stack its code may use (16 KiB–4 MiB). */
  stackBytes: number;
}

/** How an entry ended: ran, threw, or was stopped by one of its budgets. */
export type SandboxStatus = "ok" | "threw" | "cpu_budget" | "memory_budget" | "stack_overflow";

/** One `host.invoke` waiting for the host; `input` is the sandbox's JSON text. */
export interface Intent {
  id: number;
  skill: string;
  input: string;
}

export interface Outcome {
  status: SandboxStatus;
  error: string | null;
  /** The state of the current call (`call`): its result JSON once done, or why it failed. */
  call: "pending" | "done" | "failed";
  result: string | null;
  intents: Intent[];
  jobsPending: boolean;
  cpuMs: number;
  memBytes: number;
}

/** The host's answer to one intent. */
export type Answer = { ok: true; value: unknown } | { ok: false; error: string };

interface SandboxOps {
  op_sandbox_create(memoryBytes: number, stackBytes: number): number;
  op_sandbox_eval(id: number, source: string, filename: string, cpuMs: number): Outcome;
  op_sandbox_call(id: number, name: string | null, argJson: string, cpuMs: number): Outcome;
  op_sandbox_settle(id: number, answers: [number, boolean, string][], cpuMs: number): Outcome;
  op_sandbox_perceive(id: number, json: string): void;
  op_sandbox_has_tick(id: number): boolean;
  op_sandbox_memory(id: number): number;
  op_sandbox_drop(id: number): boolean;
  op_package_list(engineVersion: string, install: InstallConfig): PackageInfo[];
  op_package_open(ref: string, engineVersion: string, install: InstallConfig): OpenedPackage;
}

const ops = Limina.ops as unknown as SandboxOps;

export class Sandbox {
  private constructor(private id: number) {}

  static create(limits: SandboxLimits): Sandbox {
    return new Sandbox(ops.op_sandbox_create(limits.memoryBytes, limits.stackBytes));
  }

  private get live(): number {
    if (this.id === 0) throw engineError("unavailable", "this sandbox was disposed");
    return this.id;
  }

  /** Runs top-level script code, then its promise jobs, within `cpuMs`. */
  eval(source: string, filename: string, cpuMs: number): Outcome {
    return ops.op_sandbox_eval(this.live, source, filename, cpuMs);
  }

  /** Calls the `host.onTick` handler (name null) or a global function with `arg` (as JSON). */
  call(name: string | null, arg: unknown, cpuMs: number): Outcome {
    return ops.op_sandbox_call(this.live, name, JSON.stringify(arg ?? null), cpuMs);
  }

  /** Answers intents, then runs what follows within `cpuMs`. */
  settle(answers: [Intent, Answer][], cpuMs: number): Outcome {
    const wire = answers.map(([intent, a]): [number, boolean, string] => [intent.id, a.ok, a.ok ? JSON.stringify(a.value ?? null) : a.error]);
    return ops.op_sandbox_settle(this.live, wire, cpuMs);
  }

  /** Injects the perception snapshot `host.perception` reads until the next one (null: none). */
  perceive(snapshot: unknown): void {
    ops.op_sandbox_perceive(this.live, JSON.stringify(snapshot ?? null));
  }

  /** Whether its code registered `host.onTick`. */
  get hasTick(): boolean {
    return ops.op_sandbox_has_tick(this.live);
  }

  /** Bytes its runtime holds. */
  get memoryBytes(): number {
    return ops.op_sandbox_memory(this.live);
  }

  get disposed(): boolean {
    return this.id === 0;
  }

  /** Frees the runtime; later calls fail with `unavailable`. */
  dispose(): void {
    if (this.id !== 0) ops.op_sandbox_drop(this.id);
    this.id = 0;
  }
}

/** A package's attestation: verified by a trusted key, unsigned, or why not. */
export type Attestation =
  | { status: "verified"; key: string }
  | { status: "unsigned" }
  | { status: "hash_mismatch"; signed: string; actual: string }
  | { status: "bad_signature"; why: string }
  | { status: "untrusted_key"; key: string; why: string };

/** An installed package as read from disk; `error` says why it cannot be used. */
export interface PackageInfo {
  dir: string;
  ref: string | null;
  error: string | null;
  name: string;
  version: string;
  kind: "agent" | "skill" | "script" | null;
  capabilities: string[];
  engine: string;
  engineCompatible: boolean;
  contentHash: string;
  attestation: Attestation | null;
  entry: string;
}

export interface OpenedPackage {
  package: PackageInfo;
  /** The entry's source, read in the same pass the hash was computed over. */
  source: string | null;
  /** `LIMINA_ALLOW_UNSIGNED_PACKAGES=1`. */
  unsignedAllowed: boolean;
}

/** Where packages are installed and whom they must be signed by; each setting left out comes from the environment. */
export interface InstallConfig {
  /** The install directory (default `$LIMINA_PACKAGES_DIR`, else `packages/` in the working directory). */
  dir?: string;
  /** A file of trusted ed25519 public keys in hex, one a line (default `$LIMINA_TRUSTED_KEYS`). */
  trustedKeys?: string;
  /** Load packages without a trusted signature (default: `LIMINA_ALLOW_UNSIGNED_PACKAGES=1`). */
  allowUnsigned?: boolean;
}

/** The packages in the install directory. */
export function listPackages(install: InstallConfig = {}): PackageInfo[] {
  return ops.op_package_list(Limina.version, install);
}

/** The installed package `ref` (`name@version`); `not_found` when there is none. */
export function openPackage(ref: string, install: InstallConfig = {}): OpenedPackage {
  return ops.op_package_open(ref, Limina.version, install);
}
