// System skills: discovery, the trace, the inspector, live reload.

import { z } from "zod";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { AgentDirectory } from "../agents/directory.ts";
import type { EngineEvent, Tracer } from "../observability/tracer.ts";
import { entityLook } from "../scene/describe.ts";
import type { BodySpec, Entities } from "../scene/entities.ts";
import { PROFILES } from "./profiles.ts";
import { inputSchema, type SkillDefinition, type SkillRegistry } from "./registry.ts";

/** A named function that (re)builds part of the scene; `dev.reload` can re-run it. */
export type SceneBuilder = () => void | Promise<void>;

export interface SystemServices {
  registry: SkillRegistry;
  tracer: Tracer;
  entities: Entities;
  agents: AgentDirectory;
  sceneBuilders: Map<string, SceneBuilder>;
  /** Whether `dev.reload` may swap skill handlers (see WorldSessionOptions.skillReload). */
  skillReload: boolean;
  /** The world's digest now (WorldSession.digest). */
  digest(): string;
}
import { EventSchema, Quat, Vec3 } from "./schemas.ts";

const CATEGORIES = ["scene", "ecs", "three", "physics", "agent", "system", "render", "ui", "social", "audio", "game", "world", "terrain", "character", "nav"] as const;

let reloads = 0;

/** Words of a query or text, lower-cased, split on non-alphanumerics and camelCase. */
export function words(text: string): string[] {
  return text.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
}

const skillsListInput = z.strictObject({});
const skillsListOutput = z.object({ tools: z.array(z.object({ name: z.string(), description: z.string() })) });
const skillsDescribeInput = z.strictObject({ name: z.string() });
const skillsDescribeOutput = z.object({ name: z.string(), version: z.string(), category: z.string(), description: z.string(), input_schema: z.unknown() });
const skillsSearchInput = z.strictObject({
  query: z.string().min(1).max(200),
  category: z.enum(CATEGORIES).optional(),
  limit: z.number().int().min(1).max(50).default(10),
});
const skillsSearchOutput = z.object({
  results: z.array(z.object({ name: z.string(), description: z.string(), category: z.string(), score: z.number() })),
});
const traceTailInput = z.strictObject({
  afterSeq: z.number().int().min(-1).optional(),
  limit: z.number().int().min(0).max(1000).optional(),
  actorId: z.string().optional(),
  type: z.string().optional(),
});
const traceTailOutput = z.object({ events: z.array(EventSchema), nextAfterSeq: z.number().int().nullable() });
const traceExplainEventInput = z.strictObject({ eventId: z.string() });
const traceExplainEventOutput = z.object({ event: EventSchema, parents: z.array(EventSchema), children: z.array(EventSchema) });
const traceExportInput = z.strictObject({ name: z.string().min(1) });
const traceExportOutput = z.object({ name: z.string(), events: z.number().int(), bytes: z.number().int() });
const inspectorSnapshotInput = z.strictObject({ afterEntity: z.string().optional(), limit: z.number().int().min(0).max(500).default(100) });
const inspectorSnapshotOutput = z.object({
  page: z.object({ limit: z.number().int(), totalEntities: z.number().int(), nextAfterEntity: z.string().nullable() }),
  world: z.unknown(),
  entities: z.array(
    z.object({
      entity: z.string(),
      eid: z.number().int(),
      generation: z.number().int(),
      transform: z.object({ position: Vec3, rotation: Quat, scale: Vec3 }),
      tags: z.array(z.string()),
      look: z.record(z.string(), z.unknown()).nullable(),
      physics: z.object({ bodyId: z.number().int().optional(), type: z.enum(["dynamic", "static", "kinematic"]).optional(), sensor: z.boolean().optional() }),
      resource: z.unknown().optional(),
    }),
  ),
  agents: z.array(z.unknown()),
  skills: z.array(z.object({ name: z.string(), version: z.string(), category: z.string(), permissions: z.array(z.string()) })),
  permissions: z.object({ caller: z.array(z.string()), profiles: z.record(z.string(), z.array(z.string())) }),
  resources: z.object({ counts: z.record(z.string(), z.number()), loaded: z.array(z.unknown()) }),
  trace: z.object({ threadId: z.string(), eventCount: z.number().int(), actors: z.array(z.string()), recent: z.array(EventSchema) }),
});
const devReloadInput = z.strictObject({
  target: z.enum(["skill", "scene", "data"]),
  name: z.string().min(1).optional(),
  reason: z.string().max(200).optional(),
});
const devReloadOutput = z.object({ ok: z.boolean(), target: z.enum(["skill", "scene", "data"]), invalidated: z.array(z.string()), reason: z.string().optional() });

export function systemSkills({ registry, tracer, entities, agents, sceneBuilders, skillReload, digest }: SystemServices): SkillDefinition[] {
  const source = (factory: string) => ({ module: import.meta.url, factory });
  return [
    {
      name: "skills.list",
      version: "1.0.0",
      category: "system",
      description: "List all available skills (names + descriptions).",
      input: skillsListInput,
      output: skillsListOutput,
      permissions: [],
      source: source("systemSkills"),
      handler: () => ({ tools: registry.all().map((s) => ({ name: s.name, description: s.description })) }),
    },
    {
      name: "skills.describe",
      version: "1.0.0",
      category: "system",
      description: "Describe a skill: version, category, and JSON-Schema input.",
      input: skillsDescribeInput,
      output: skillsDescribeOutput,
      permissions: [],
      source: source("systemSkills"),
      handler: ({ name }) => {
        const s = registry.get(name);
        if (!s) throw engineError("not_found", `unknown skill: ${name}`);
        return { name: s.name, version: s.version, category: s.category, description: s.description, input_schema: inputSchema(s) };
      },
    },
    {
      name: "skills.search",
      version: "1.0.0",
      category: "system",
      description:
        "Search the skills by words in their names and descriptions (optionally within one category), best matches first, so an agent can find the few tools it needs without pulling every schema.",
      input: skillsSearchInput,
      output: skillsSearchOutput,
      permissions: [],
      source: source("systemSkills"),
      handler: ({ query, category, limit }) => {
        const terms = words(query);
        const results = registry
          .all()
          .filter((s) => category === undefined || s.category === category)
          .map((s) => {
            const name = new Set(words(s.name));
            const desc = new Set(words(s.description));
            let score = 0;
            for (const t of terms) {
              if (name.has(t)) score += 3;
              else if ([...name].some((w) => w.startsWith(t))) score += 2;
              if (desc.has(t)) score += 1;
              else if ([...desc].some((w) => w.startsWith(t))) score += 0.5;
            }
            return { name: s.name, description: s.description, category: s.category, score };
          })
          .filter((r) => r.score > 0)
          .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
          .slice(0, limit);
        return { results };
      },
    },
    {
      name: "trace.tail",
      version: "1.0.0",
      category: "system",
      description: "Tail trace events with cursor pagination and optional actor/type filters.",
      input: traceTailInput,
      output: traceTailOutput,
      permissions: [],
      source: source("systemSkills"),
      handler: (input) => tracer.page(input),
    },
    {
      name: "trace.explainEvent",
      version: "1.0.0",
      category: "system",
      description: "Explain a trace event with resolved causal parents and children.",
      input: traceExplainEventInput,
      output: traceExplainEventOutput,
      permissions: [],
      source: source("systemSkills"),
      handler: ({ eventId }) => {
        const event = tracer.get(eventId);
        if (!event) throw engineError("not_found", `unknown event ${eventId}`);
        const parentIds = [...new Set([...(event.parentEventId ? [event.parentEventId] : []), ...event.causedBy])];
        const parents = parentIds.map((id) => tracer.get(id)).filter((e): e is EngineEvent => e !== undefined);
        return { event, parents, children: tracer.childrenOf(eventId) };
      },
    },
    {
      name: "trace.export",
      version: "1.0.0",
      category: "system",
      description: "Flush the durable trace history to a sandboxed trace JSONL file.",
      input: traceExportInput,
      output: traceExportOutput,
      permissions: [],
      source: source("systemSkills"),
      // Written off the loop; the name may come back as NAME-N when NAME is taken.
      // The log first records the world's digest, so a replay of the file can check where it ends.
      handler: async ({ name }, ctx) => {
        ctx.emit("world.checkpoint", { tick: ctx.tick, digest: digest() });
        const written = await tracer.exportTo(name, ctx.sessionId);
        return { name: written.name, events: written.events, bytes: written.bytes };
      },
    },
    {
      name: "inspector.snapshot",
      version: "1.1.0",
      category: "system",
      description:
        "Return a bounded, paginated snapshot of world, entities (each with its look: shape and dimensions, colour, material, visibility — enough to redraw it), agents, skills, permissions, resources, and trace metadata.",
      input: inspectorSnapshotInput,
      output: inspectorSnapshotOutput,
      permissions: ["scene.read", "ecs.read", "physics.read", "agent.read"],
      source: source("systemSkills"),
      handler: ({ afterEntity, limit }, ctx) => {
        const { world, physics } = entities;
        const all = [...world.entities.entries()];
        let start = 0;
        if (afterEntity !== undefined) {
          const at = all.findIndex((e) => e.id === afterEntity);
          if (at < 0) throw engineError("invalid_input", `afterEntity ${afterEntity} is not a live entity`);
          start = at + 1;
        }
        const page = all.slice(start, start + limit);
        const loaded = all.filter((e) => e.resource !== undefined).map((e) => ({ entity: e.id, resource: e.resource }));
        return {
          page: { limit, totalEntities: all.length, nextAfterEntity: start + limit < all.length && page.length > 0 ? page[page.length - 1].id : null },
          world: { tick: ctx.tick, entityCount: all.length, tableVersion: world.entities.version, maxEntities: world.Position.x.length, digest: digest() },
          entities: page.map((e) => ({
            entity: e.id,
            eid: e.eid,
            generation: e.generation,
            transform: { position: world.position(e.eid), rotation: world.rotation(e.eid), scale: world.scale(e.eid) },
            tags: [...e.tags],
            look: entityLook(e),
            physics: e.body === undefined ? {} : { bodyId: e.body, type: physics.bodyState(e.body).kind, sensor: (e.bodySpec as BodySpec | undefined)?.sensor ?? false },
            ...(e.resource === undefined ? {} : { resource: e.resource }),
          })),
          agents: agents.list(),
          skills: registry.all().map((s) => ({ name: s.name, version: s.version, category: s.category, permissions: [...s.permissions] })),
          permissions: { caller: [...ctx.permissions], profiles: Object.fromEntries(Object.entries(PROFILES).map(([k, v]) => [k, [...v]])) },
          resources: {
            counts: { entities: all.length, physicsBodies: physics.bodyCount(), skills: registry.size, events: tracer.size, loaded: loaded.length },
            loaded,
          },
          trace: tracer.inspect(20),
        };
      },
    },
    {
      name: "dev.reload",
      version: "2.0.0",
      category: "system",
      description:
        "Live-reload a skill (registry unregister+re-register so a later callTool runs the new handler) or re-run a registered scene builder; emits an honest dev.*.reload.completed/.failed trace event listing what was invalidated. Targets that genuinely cannot reload fail honestly instead of pretending success. Re-running a scene builder needs scene.write; swapping a skill needs a server started with --dev and the skill's own permissions.",
      input: devReloadInput,
      output: devReloadOutput,
      permissions: ["scene.read"],
      source: source("systemSkills"),
      handler: async ({ target, name, reason }, ctx) => {
        // A reload needs the permissions of what it reloads; refused, it changes nothing.
        if (target === "scene" && !ctx.permissions.has("scene.write")) {
          throw engineError("forbidden", "re-running a scene builder needs scene.write");
        }
        if (target === "skill") {
          if (!skillReload) throw engineError("forbidden", "swapping a skill handler needs a server started with --dev");
          const missing = (name === undefined ? [] : (registry.get(name)?.permissions ?? [])).filter((p) => !ctx.permissions.has(p));
          if (missing.length > 0) throw engineError("forbidden", `reloading ${name} needs ${missing.join(", ")}`);
        }
        const failed = (why: string) => {
          ctx.emit(`dev.${target}.reload.failed`, { target, name: name ?? null, reason: why, requestedBecause: reason ?? null });
          return { ok: false, target, invalidated: [], reason: why };
        };
        if (target === "data") {
          return failed("data reload is not supported: the world holds no reloadable data sources yet");
        }
        if (name === undefined) return failed(`a ${target} reload needs a name`);
        if (target === "skill") {
          const current = registry.get(name);
          if (!current) return failed(`unknown skill: ${name}`);
          if (!current.source) return failed(`skill ${name} was registered without a source module, so it cannot be reloaded from disk`);
          let fresh: SkillDefinition | undefined;
          try {
            const mod = await import(`${current.source.module}?reload=${++reloads}`);
            const factory = mod[current.source.factory];
            if (typeof factory !== "function") return failed(`${current.source.module} no longer exports ${current.source.factory}`);
            fresh = (factory(registry.servicesOf(name)) as SkillDefinition[]).find((s) => s.name === name);
          } catch (e) {
            return failed(`reloading ${current.source.module} failed: ${e instanceof Error ? e.message : String(e)}`);
          }
          if (!fresh) return failed(`${current.source.factory} in ${current.source.module} no longer defines ${name}`);
          registry.replace(fresh);
          const invalidated = [`skill:${name}`, "tools/list"];
          ctx.emit("dev.skill.reload.completed", { target, name, module: current.source.module, version: fresh.version, invalidated, reason: reason ?? null });
          return { ok: true, target, invalidated, ...(reason === undefined ? {} : { reason }) };
        }
        const builder = sceneBuilders.get(name);
        if (!builder) return failed(`no scene builder named ${name} is registered`);
        try {
          await builder();
        } catch (e) {
          return failed(`scene builder ${name} threw: ${e instanceof Error ? e.message : String(e)}`);
        }
        const invalidated = [`scene:${name}`];
        ctx.emit("dev.scene.reload.completed", { target, name, invalidated, reason: reason ?? null });
        return { ok: true, target, invalidated, ...(reason === undefined ? {} : { reason }) };
      },
    },
  ];
}
