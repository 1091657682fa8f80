// nav.* skills: the world's navmesh — baked from its static colliders,
// rebuilt tile by tile as they change — path queries, and walking
// characters along it with crowd avoidance (arrival is a nav.arrived event).

import { z } from "zod";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { Navigation } from "../../../crates/limina-nav/js/nav.ts";
import type { CharacterSystem } from "../characters/characters.ts";
import type { SkillDefinition } from "./registry.ts";
import { Vec3, WorldVec3 } from "./schemas.ts";

const Box = z.strictObject({ min: WorldVec3, max: WorldVec3 });

export const NavBuildInput = z.strictObject({
  agentRadius: z.number().min(0.05).max(10).optional().describe("agent radius, m: floors are eroded this far from walls and ledges (default 0.4)"),
  agentHeight: z.number().min(0.1).max(20).optional().describe("headroom, m (default 1.8)"),
  maxSlope: z.number().min(0).max(89).optional().describe("steepest walkable slope, degrees (default 45)"),
  maxClimb: z.number().min(0).max(10).optional().describe("highest step, m (default 0.4)"),
  cellSize: z.number().min(0.05).max(5).optional().describe("sampling cell, m (default 0.25)"),
  tileSize: z.number().int().min(8).max(256).optional().describe("tile side in cells, the unit of local rebuilds (default 64)"),
  bounds: Box.optional().describe("region to bake (default: the static geometry's bounds)"),
  areas: z.array(Box.extend({ cost: z.number().min(0.01).max(1e4).optional().describe("walking cost multiplier; omitted: never walked") })).max(250).optional(),
  links: z
    .array(z.strictObject({ from: WorldVec3, to: WorldVec3, bidirectional: z.boolean().optional(), cost: z.number().min(0).max(1e6).optional() }))
    .max(4096)
    .optional()
    .describe("off-mesh links: jumps, ladders, doors"),
});

const navBuildOutput = z.object({ polygons: z.number().int(), tiles: z.number().int() });
const navFindPathInput = z.strictObject({ from: WorldVec3, to: WorldVec3 });
const navFindPathOutput = z.object({ found: z.boolean(), path: z.array(Vec3), length: z.number() });
const navIsReachableInput = z.strictObject({ from: WorldVec3, to: WorldVec3 });
const navIsReachableOutput = z.object({ reachable: z.boolean() });
const navMoveToInput = z.strictObject({
  entityId: z.string().min(1),
  target: WorldVec3,
  speed: z.number().gt(0).max(12).optional(),
});
const navMoveToOutput = z.object({ moving: z.boolean(), distance: z.number() });
const navStopInput = z.strictObject({ entityId: z.string().min(1) });
const navStopOutput = z.object({ stopped: z.boolean() });

export function navSkills({ nav, characters }: { nav: Navigation; characters: CharacterSystem }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "navSkills" };
  const path = (from: [number, number, number], to: [number, number, number]) => {
    if (!nav.counts()) throw engineError("unavailable", "no navmesh: build one first (nav.build)");
    const p = nav.findPath(from, to);
    if (!p) throw engineError("not_found", `${nav.nearest(from) ? "the end" : "the start"} is not on the navmesh`);
    return p;
  };
  return [
    {
      name: "nav.build",
      version: "1.0.0",
      category: "nav",
      description:
        "Bake the world's navmesh from its static colliders (boxes, spheres, capsules, heightfield terrain, meshes…), for an agent of the given radius, height, slope and climb; areas cost more or block walking, links join what the floor does not. Tiled: later changes to static geometry rebuild only the tiles under them. Returns the polygon and tile counts.",
      input: NavBuildInput,
      output: navBuildOutput,
      permissions: ["nav.define"],
      source,
      handler: (input, ctx) => {
        const built = nav.build(input);
        ctx.emit("nav.built", { polygons: built.polygons, tiles: built.tiles, bounds: built.bounds, cellSize: built.cellSize });
        return { polygons: built.polygons, tiles: built.tiles };
      },
    },
    {
      name: "nav.findPath",
      version: "1.0.0",
      category: "nav",
      description:
        "The shortest walkable path between two points on the navmesh: found (whether the goal is reachable; if not, the path leads as near as it can), the corner points [[x,y,z]…] from start to end, and its length in metres.",
      input: navFindPathInput,
      output: navFindPathOutput,
      permissions: ["scene.read"],
      source,
      handler: ({ from, to }) => path(from, to),
    },
    {
      name: "nav.isReachable",
      version: "1.0.0",
      category: "nav",
      description: "Whether a walk from one point to another exists on the navmesh (false too when either is off it).",
      input: navIsReachableInput,
      output: navIsReachableOutput,
      permissions: ["scene.read"],
      source,
      handler: ({ from, to }) => {
        if (!nav.counts()) throw engineError("unavailable", "no navmesh: build one first (nav.build)");
        return { reachable: nav.isReachable(from, to) === true };
      },
    },
    {
      name: "nav.moveTo",
      version: "1.0.0",
      category: "nav",
      description:
        "Walk a character along the navmesh to target, at up to speed m/s (default: its top speed), avoiding the other walkers; its animation walks or runs to match. Refused (not_found) when the target is unreachable. Arrival is a nav.arrived event (nav.failed if it gets stuck).",
      input: navMoveToInput,
      output: navMoveToOutput,
      permissions: ["character.act"],
      source,
      handler: ({ entityId, target, speed }, ctx) => {
        characters.require(entityId);
        // Checked before the event, so a refused walk leaves no trace of starting.
        const p = path(characters.positionOf(entityId), target);
        if (!p.found) throw engineError("not_found", `no path on the navmesh to ${JSON.stringify(target)}`);
        const cause = ctx.emit("nav.moveTo", { entityId, target, speed: speed ?? null, distance: p.length });
        const distance = characters.moveTo(entityId, target, speed, { actorId: ctx.agentId, threadId: ctx.sessionId, cause });
        return { moving: true, distance };
      },
    },
    {
      name: "nav.stop",
      version: "1.0.0",
      category: "nav",
      description: "Stop a character where it stands (ending a nav.moveTo walk or a character.move).",
      input: navStopInput,
      output: navStopOutput,
      permissions: ["character.act"],
      source,
      handler: ({ entityId }, ctx) => {
        const was = characters.stop(entityId);
        ctx.emit("nav.stopped", { entityId, wasWalking: was });
        return { stopped: true };
      },
    },
  ];
}
