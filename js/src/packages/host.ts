// The PackageHost: a world's installed and loaded packages. Loading checks,
// in order: the agent id the package acts as (never reserved or confusable
// with a reserved id, never one another live session holds) and the
// caller's session's package cap → the manifest → engine compatibility →
// the attestation (content
// hash and signature against the trusted keys; unsigned only when the host
// allows it) → the profile named (known, and within the caller's own
// permissions) → the declared capabilities against what the profile grants
// (the policy engine decides; an over-claim is denied) → the entry's
// top-level code in a fresh sandbox within its CPU budget. Every rejection
// has a machine-readable `rejectReason` and a human `reason`, and is an
// audited policy event; the load's own event (`package.loaded` or
// `package.rejected`) is caused by that decision. Ticking packages share
// the world's per-tick CPU budget (tick-budget.ts).

import { type InstallConfig, listPackages, openPackage, type PackageInfo, Sandbox } from "../../../crates/limina-sandbox/js/sandbox.ts";
import { errorCodeOf } from "../../../crates/limina-ops/js/errors.ts";
import type { AgentDirectory } from "../agents/directory.ts";
import { FIXED_DT, onFixedStep } from "../loop.ts";
import type { Tracer } from "../observability/tracer.ts";
import type { PolicyEngine, PolicyInput, PolicyRule } from "../policy/engine.ts";
import { LiveIdentities, refusedId, sameId } from "../policy/identity.ts";
import { PERMISSIONS, PROFILES, resolveProfile } from "../skills/profiles.ts";
import type { SkillRegistry } from "../skills/registry.ts";
import { type Attribution, HostBridge } from "./bridge.ts";
import { LoadedPackage } from "./loaded.ts";
import { DEFAULT_PACKAGE_LIMITS, type PackageLimits } from "./limits.ts";
import { TickBudget } from "./tick-budget.ts";

export type RejectReason =
  | "reserved_id"
  | "id_in_use"
  | "session_package_cap"
  | "not_found"
  | "invalid_manifest"
  | "engine_incompatible"
  | "hash_mismatch"
  | "bad_signature"
  | "untrusted_key"
  | "unsigned"
  | "unknown_profile"
  | "profile_exceeds_caller"
  | "capability_overclaim"
  | "already_loaded"
  | "entry_threw"
  | "cpu_budget"
  | "memory_budget"
  | "stack_overflow"
  | "intent_budget";

export interface LoadRequest {
  ref: string;
  /** Who the package acts as: a new agent id, or its caller's own. */
  agentId: string;
  /** The session it acts in (a package a client loads acts in the client's session). */
  sessionId: string;
  /** What the caller called the package's session, recorded with the load. */
  label?: string;
  profile: string;
  /** The caller's own permissions: the named profile must be within them. */
  callerPermissions: ReadonlySet<string>;
  /** Who asks, for the audit trail. */
  callerId: string;
  causedBy?: string[];
}

/** The load decision, as `package.load` returns it. */
export interface LoadDecision {
  ok: boolean;
  ref: string;
  agentId: string | null;
  rule: string | null;
  rejectReason: RejectReason | null;
  reason: string | null;
  loadEventId: string | null;
}

/** A package's row in `package.list`. */
export interface ListedPackage {
  ref: string;
  name: string;
  version: string;
  kind: string;
  declaredCapabilities: string[];
  engineCompat: string;
  contentHash: string;
  attested: boolean;
}

export interface PackageHostServices {
  registry: SkillRegistry;
  /** Where the perception snapshots packages read come from (default: none; their reads go through host.invoke). */
  agents?: AgentDirectory;
  /** The agent ids live sessions hold (default: a registry of this host's own). */
  identities?: LiveIdentities;
  tracer: Tracer;
  /** Decides loads and crossings and holds the sandboxes' budgets. */
  policy: PolicyEngine;
  limits?: Partial<PackageLimits>;
  /** The install directory and trust settings (default: from the environment). */
  install?: InstallConfig;
  /** Call ticking packages on the host loop's fixed steps (default true). */
  simulate?: boolean;
  /** Whether the world is paused: ticking packages wait while it is. */
  paused?: () => boolean;
}

const KNOWN_PERMISSIONS: ReadonlySet<string> = new Set(PERMISSIONS);

export class PackageHost {
  readonly limits: PackageLimits;
  private readonly bridge: HostBridge;
  /** Loaded packages by the agent id they act as. */
  private readonly loadedByAgent = new Map<string, LoadedPackage>();
  private readonly stopTicking: () => void;
  private readonly tracer: Tracer;
  private readonly policy: PolicyEngine;
  private readonly install: InstallConfig;
  private readonly identities: LiveIdentities;
  private readonly budget: TickBudget<LoadedPackage>;

  constructor(services: PackageHostServices) {
    this.tracer = services.tracer;
    this.policy = services.policy;
    this.install = { ...services.install };
    this.identities = services.identities ?? new LiveIdentities();
    this.limits = { ...DEFAULT_PACKAGE_LIMITS, ...services.limits };
    // The world's budget holds at least one whole run. It is earned by the loop's clock: the wall
    // clock, or under --deterministic the virtual one, which advances a step's length per step.
    const worldMs = Math.max(this.limits.worldTickCpuMs, this.limits.tickCpuMs);
    const virtual = Limina.loop.stats().clock === "virtual";
    const clock = () => (virtual ? Limina.loop.steps() * FIXED_DT * 1000 : performance.now());
    this.budget = new TickBudget(worldMs, this.limits.tickCpuMs, (over) => this.tracer.emit("package.tick.overbudget", over), clock);
    const agents = services.agents;
    this.bridge = new HostBridge(services.registry, services.policy, agents ? (id) => agents.perceptionOf(id) : undefined);
    const paused = services.paused ?? (() => false);
    this.stopTicking = services.simulate ?? true ? onFixedStep((_dt, step) => {
      if (!paused()) this.tick(step);
    }) : () => {};
  }

  /** The usable installed packages (optionally one name), as `package.list` shows them. */
  list(name?: string): ListedPackage[] {
    return listPackages(this.install)
      .filter((p): p is PackageInfo & { ref: string } => p.error === null && p.ref !== null && (name === undefined || p.name === name))
      .map((p) => ({
        ref: p.ref,
        name: p.name,
        version: p.version,
        kind: p.kind!,
        declaredCapabilities: p.capabilities,
        engineCompat: p.engine,
        contentHash: p.contentHash,
        attested: p.attestation?.status === "verified",
      }));
  }

  /** The package loaded as `agentId`, if any. */
  get(agentId: string): LoadedPackage | undefined {
    return this.loadedByAgent.get(agentId);
  }

  loaded(): LoadedPackage[] {
    return [...this.loadedByAgent.values()];
  }

  /** Runs this step's ticking packages, each within its own budget and all within the world's; nothing to do costs nothing. */
  tick(step: number): void {
    if (this.loadedByAgent.size === 0) return;
    this.budget.tick(step, (pkg, spend) => {
      pkg.tick(step, spend).catch((e) => pkg.unload("entry_threw", `its tick failed in the host: ${e instanceof Error ? e.message : String(e)}`));
    });
  }

  async load(req: LoadRequest): Promise<LoadDecision> {
    const causedBy = req.causedBy ?? [];
    const input = (cap: string, required: readonly string[], granted: ReadonlySet<string>, pkg: string | null): PolicyInput => ({
      boundary: "package",
      agentId: req.agentId,
      sessionId: req.sessionId,
      cap,
      requiredPermissions: required,
      granted,
      profile: req.profile,
      package: pkg,
      tick: Limina.loop.steps(),
    });
    const reject = (rejectReason: RejectReason, reason: string, decision?: { eventId: string; rule: PolicyRule }): LoadDecision => {
      const d = decision ?? this.policy.deny(input("package.load", [], new Set(), req.ref), "package.rejected", reason, causedBy);
      const loadEventId = this.tracer.emit(
        "package.rejected",
        { ref: req.ref, agentId: req.agentId, sessionId: req.sessionId, ...labelOf(req), profile: req.profile, rule: d.rule, rejectReason, reason, by: req.callerId },
        { actorId: req.agentId, threadId: req.sessionId, causedBy: [d.eventId] },
      );
      return { ok: false, ref: req.ref, agentId: req.agentId, rule: d.rule, rejectReason, reason, loadEventId };
    };

    const badId = refusedId(req.agentId);
    if (badId !== null) return reject("reserved_id", `agent id ${badId}`);
    if (this.loadedByAgent.has(req.agentId)) {
      return reject("already_loaded", `${req.agentId} already runs ${this.loadedByAgent.get(req.agentId)!.ref}; one package per agent`);
    }
    const holder = this.identities.holderOf(req.agentId);
    if (holder !== null && !sameId(holder.agentId, req.callerId)) {
      const as = holder.agentId === req.agentId ? "" : ` (it reads as ${holder.agentId})`;
      return reject("id_in_use", `agent id ${req.agentId} is held by another live session${as}; a package acts as a new agent id or as its caller`);
    }
    const ofSession = this.loaded().filter((p) => p.who.sessionId === req.sessionId).length;
    if (ofSession >= this.limits.maxPackagesPerSession) {
      return reject("session_package_cap", `session ${req.sessionId} already has ${ofSession} packages loaded, its most; unload one first`);
    }
    let opened;
    try {
      opened = openPackage(req.ref, this.install);
    } catch (e) {
      if (errorCodeOf(e) !== "not_found") throw e;
      return reject("not_found", (e as Error).message);
    }
    const info = opened.package;
    if (info.error !== null || opened.source === null) return reject("invalid_manifest", info.error ?? "the package has no entry source");
    const unknown = info.capabilities.find((c) => !KNOWN_PERMISSIONS.has(c));
    if (unknown !== undefined) return reject("invalid_manifest", `limina-package.json: capability ${JSON.stringify(unknown)} is not a permission (one of ${PERMISSIONS.join(", ")})`);
    if (!info.engineCompatible) return reject("engine_incompatible", `${req.ref} needs engine ${info.engine}; this is limina ${Limina.version}`);

    const a = info.attestation!;
    switch (a.status) {
      case "hash_mismatch":
        return reject("hash_mismatch", `the content changed since it was signed: signed ${a.signed}, found ${a.actual}`);
      case "bad_signature":
        return reject("bad_signature", a.why);
      case "untrusted_key":
        return reject("untrusted_key", a.why);
      case "unsigned":
        if (!opened.unsignedAllowed) return reject("unsigned", `${req.ref} is not signed; unsigned packages load only with LIMINA_ALLOW_UNSIGNED_PACKAGES=1`);
        break;
      case "verified":
        break;
    }

    if (!Object.hasOwn(PROFILES, req.profile)) return reject("unknown_profile", `no profile named ${req.profile} (one of ${Object.keys(PROFILES).join(", ")})`);
    const granted = resolveProfile(req.profile);
    // Nobody gets more than they have: the profile must be within the caller's permissions.
    const within = this.policy.evaluate(input("package.profile", [...granted], req.callerPermissions, req.ref), causedBy);
    if (!within.allow) return reject("profile_exceeds_caller", `profile ${req.profile} grants more than the caller has: ${within.reason}`, within);
    const caps = this.policy.evaluate(input("package.load", info.capabilities, granted, req.ref), [...causedBy, within.eventId]);
    if (!caps.allow) return reject("capability_overclaim", `${req.ref} declares ${caps.missing}, which profile ${req.profile} does not grant`, caps);

    const who: Attribution = {
      agentId: req.agentId,
      sessionId: req.sessionId,
      profile: req.profile,
      permissions: new Set(info.capabilities),
      pkg: req.ref,
      causedBy: [caps.eventId],
    };
    const sandbox = Sandbox.create({ memoryBytes: this.limits.memoryBytes, stackBytes: this.limits.stackBytes });
    const source = opened.source;
    const run = await this.bridge.run(sandbox, (cpuMs) => sandbox.eval(source, `${req.ref}/${info.entry}`, cpuMs), who, {
      cpuMs: this.limits.loadCpuMs,
      maxIntents: this.limits.maxIntentsPerRun,
    });
    if (run.status !== "ok") {
      sandbox.dispose();
      const why = run.status === "threw" ? "entry_threw" : run.status;
      const budget = run.status === "cpu_budget" ? ` (budget ${this.limits.loadCpuMs} ms of CPU)` : "";
      return reject(why, `the entry was stopped: ${run.error}${budget}; the sandbox is stopped and freed`);
    }
    const payload = {
      ref: req.ref,
      agentId: req.agentId,
      sessionId: req.sessionId,
      ...labelOf(req),
      profile: req.profile,
      kind: info.kind,
      capabilities: info.capabilities,
      contentHash: info.contentHash,
      attested: a.status === "verified",
      key: a.status === "verified" ? a.key : null,
      by: req.callerId,
      cpuMs: run.cpuMs,
      memBytes: run.memBytes,
      invoked: run.invoked,
    };
    const keeps = sandbox.hasTick || info.kind === "agent";
    const loadEventId = this.tracer.emit("package.loaded", { ...payload, resident: keeps }, { actorId: req.agentId, threadId: req.sessionId, causedBy: [caps.eventId] });
    if (keeps) {
      // Held while it runs, unless it acts as its caller (who holds the id already).
      const release = holder === null ? this.identities.claim(req.agentId, req.sessionId) : () => {};
      const pkg = new LoadedPackage(info, who, sandbox, this.bridge, this.tracer, this.limits, (p) => {
        this.loadedByAgent.delete(p.who.agentId);
        this.budget.remove(p);
        release();
      });
      this.loadedByAgent.set(req.agentId, pkg);
      this.budget.add(pkg);
    } else {
      // Its work is done: nothing of it stays.
      sandbox.dispose();
    }
    return { ok: true, ref: req.ref, agentId: req.agentId, rule: caps.rule, rejectReason: null, reason: null, loadEventId };
  }

  /** Unloads the package running as `agentId`; returns whether there was one. */
  unload(agentId: string, reason = "unloaded by the host"): boolean {
    const pkg = this.loadedByAgent.get(agentId);
    if (!pkg) return false;
    pkg.unload("unloaded", reason);
    return true;
  }

  /** Stops ticking and frees every sandbox. */
  dispose(): void {
    this.stopTicking();
    for (const pkg of this.loaded()) pkg.unload("unloaded", "the world was disposed");
  }
}

/** The caller's label for the package's session, when it gave one. */
function labelOf(req: LoadRequest): { label?: string } {
  return req.label === undefined ? {} : { label: req.label };
}
