// package.* skills. No package store exists yet: package.list honestly
// reports none installed; package.load has its live contract and fails
// saying what is missing.

import { z } from "../../build/zod.bundle.mjs";
import type { SkillDefinition, SkillRegistry } from "./registry.ts";
import { notYet } from "./schemas.ts";

export function packageSkills(_registry: SkillRegistry): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "packageSkills" };
  return [
    {
      name: "package.list",
      version: "1.0.0",
      category: "system",
      description:
        "List installed packages with their manifest provenance: ref (name@version), kind, declared capabilities, engine-compat range, content hash, and whether the package is attested.",
      input: z.strictObject({ name: z.string().optional() }),
      output: z.object({
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
      }),
      permissions: [],
      source,
      // The package store (with the sandbox that loads packages) has not landed: nothing is installed.
      handler: () => ({ packages: [] }),
    },
    {
      name: "package.load",
      version: "1.0.0",
      category: "system",
      description:
        "Load an installed package (by name@version ref) under a profile: validates the manifest, checks engine-compat (out-of-bounds rejected), gates declared-vs-granted capabilities via the policy engine (over-claim denied), and loads the untrusted entry into the M6 sandbox. Returns the load decision + provenance event id.",
      input: z.strictObject({ ref: z.string(), agentId: z.string(), sessionId: z.string(), profile: z.string() }),
      output: z.object({
        ok: z.boolean(),
        ref: z.string(),
        agentId: z.string().nullable(),
        rule: z.string().nullable(),
        rejectReason: z.string().nullable(),
        reason: z.string().nullable(),
        loadEventId: z.string().nullable(),
      }),
      permissions: ["agent.write"],
      source,
      handler: () => notYet("package.load", "the package store and the QuickJS sandbox (limina-sandbox)"),
    },
  ];
}
