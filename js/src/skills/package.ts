// package.* skills: the installed packages, and loading one into a sandbox
// under a profile.

import { z } from "zod";
import type { PackageHost } from "../packages/host.ts";
import type { SkillDefinition } from "./registry.ts";

const packageListInput = z.strictObject({ name: z.string().min(1).max(64).optional() });
const packageListOutput = z.object({
  packages: z.array(
    z.object({
      ref: z.string(),
      name: z.string(),
      version: z.string(),
      kind: z.string(),
      declaredCapabilities: z.array(z.string()),
      engineCompat: z.string(),
      contentHash: z.string(),
      attested: z.boolean(),
    }),
  ),
});
const packageLoadInput = z.strictObject({
  ref: z.string().min(3).max(160).regex(/^[^@\s]+@[^@\s]+$/, "ref is name@version"),
  agentId: z.string().min(1).max(128),
  sessionId: z.string().min(1).max(128),
  profile: z.string().min(1).max(128),
});
const packageLoadOutput = z.object({
  ok: z.boolean(),
  ref: z.string(),
  agentId: z.string().nullable(),
  rule: z.string().nullable(),
  rejectReason: z.string().nullable(),
  reason: z.string().nullable(),
  loadEventId: z.string().nullable(),
});

export function packageSkills({ packages }: { packages: PackageHost }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "packageSkills" };
  return [
    {
      name: "package.list",
      version: "1.0.0",
      category: "system",
      description:
        "List installed packages with their manifest provenance: ref (name@version), kind, declared capabilities, engine-compat range, content hash, and whether the package is attested.",
      input: packageListInput,
      output: packageListOutput,
      permissions: [],
      source,
      handler: ({ name }) => ({ packages: packages.list(name) }),
    },
    {
      name: "package.load",
      version: "1.0.0",
      category: "system",
      description:
        "Load an installed package (by name@version ref) under a profile: validates the manifest, checks engine-compat (out-of-bounds rejected), gates declared-vs-granted capabilities via the policy engine (over-claim denied), and loads the untrusted entry into the M6 sandbox. Returns the load decision + provenance event id.",
      input: packageLoadInput,
      output: packageLoadOutput,
      permissions: ["agent.write"],
      source,
      // The package acts in its caller's session (its quotas, budgets and package cap); the sessionId given is its label.
      handler: ({ sessionId: label, ...input }, ctx) => packages.load({ ...input, sessionId: ctx.sessionId, label, callerPermissions: ctx.permissions, callerId: ctx.agentId }),
    },
  ];
}
