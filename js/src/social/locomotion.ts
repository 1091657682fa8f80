// Locomotion: agents walking their bodies toward a target (another agent,
// an entity or a point), until within talking distance — then
// `social.approached`. A target that disappears ends the walk with
// `social.approach.abandoned`. With a navmesh, walks go through it: a
// character body walks the crowd (nav.moveTo's way, retargeted as the
// target moves), any other body strides along the path's corners; without
// one, a body strides straight at the target, turning to face where it goes.

import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { AgentDirectory } from "../agents/directory.ts";
import type { Vec3 } from "../ecs/world.ts";
import type { Tracer } from "../observability/tracer.ts";
import type { CharacterSystem } from "../characters/characters.ts";
import type { Entities } from "../scene/entities.ts";

/** Walking speed, metres per second. */
export const WALK_SPEED = 1.6;
export const DEFAULT_TALK_DISTANCE = 1.5;

export type ApproachTarget = string | Vec3;

interface Pursuit {
  agentId: string;
  sessionId: string;
  entity: string;
  target: ApproachTarget;
  talkDistance: number;
  /** The event that started the walk. */
  cause: string;
  /** On a navmesh: the corners still ahead, and where the target was when they were planned. */
  route?: { corners: Vec3[]; goal: Vec3 };
}

/** How far (m) a pursued target may move before the route to it is planned again. */
const REPLAN_DISTANCE = 0.5;

/** The entity agent `agentId` inhabits, as its agent systems publish it, or null. */
export function bodyOf(agents: AgentDirectory, agentId: string): string | null {
  const summary = agents.list().find((a) => a.agentId === agentId);
  return typeof summary?.entityId === "string" ? summary.entityId : null;
}

export class Locomotion {
  private readonly pursuits = new Map<string, Pursuit>();

  constructor(private readonly entities: Entities, private readonly agents: AgentDirectory, private readonly tracer: Tracer, private readonly characters: CharacterSystem) {}

  /** Where `target` is now: an agent's body, an entity or a point; null once it is gone. */
  locate(target: ApproachTarget): Vec3 | null {
    if (typeof target !== "string") return target;
    const entity = target.startsWith("agt_") ? bodyOf(this.agents, target) : target;
    const entry = entity === null ? undefined : this.entities.world.entities.get(entity);
    return entry ? this.entities.world.position(entry.eid) : null;
  }

  /** The walker's entity, if `agentId` may walk to `target` now (an error saying why not otherwise). */
  check(agentId: string, target: ApproachTarget): string {
    const entity = this.requireBody(agentId);
    if (this.locate(target) === null) throw engineError("not_found", `nothing to approach: ${JSON.stringify(target)} is no live agent body or entity`);
    if (target === entity || (typeof target === "string" && bodyOf(this.agents, target) === entity)) throw engineError("invalid_input", `${agentId} cannot approach itself`);
    return entity;
  }

  /** Starts (or redirects) `agentId`'s walk toward `target`, checked as `check` does before any effect. */
  approach(agentId: string, sessionId: string, target: ApproachTarget, talkDistance: number, cause: string): void {
    const entity = this.check(agentId, target);
    this.pursuits.set(agentId, { agentId, sessionId, entity, target, talkDistance, cause });
  }

  /** The entity `agentId` inhabits; not_found when it has none. */
  requireBody(agentId: string): string {
    const entity = bodyOf(this.agents, agentId);
    if (entity === null || !this.entities.world.entities.get(entity)) throw engineError("not_found", `agent ${agentId} inhabits no live entity: social skills act through an agent's body`);
    return entity;
  }

  /** Whether `agentId` is walking. */
  walking(agentId: string): boolean {
    return this.pursuits.has(agentId);
  }

  /** Stops `agentId` where it stands. */
  stop(agentId: string): boolean {
    const p = this.pursuits.get(agentId);
    if (p && this.characters.get(p.entity)?.walk) this.characters.stop(p.entity);
    return this.pursuits.delete(agentId);
  }

  /** The point `p`'s walker heads for now: the target itself, or on a navmesh the next corner toward it. */
  private waypoint(p: Pursuit, at: Vec3, goal: Vec3): Vec3 {
    const nav = this.characters.nav;
    if (!nav.counts()) return goal;
    const r = p.route;
    if (!r || Math.hypot(r.goal[0] - goal[0], r.goal[2] - goal[2]) > REPLAN_DISTANCE) {
      const path = nav.findPath(at, goal);
      p.route = { corners: path?.found ? path.path.slice(1) : [goal], goal };
    }
    const corners = p.route!.corners;
    while (corners.length > 1 && Math.hypot(corners[0][0] - at[0], corners[0][2] - at[2]) < 0.05) corners.shift();
    return corners.length > 1 ? corners[0] : goal;
  }

  /** One fixed step: every walker strides toward its target. */
  step(dt: number): void {
    for (const p of [...this.pursuits.values()]) {
      const entry = this.entities.world.entities.get(p.entity);
      const goal = this.locate(p.target);
      if (!entry || !goal) {
        this.pursuits.delete(p.agentId);
        this.tracer.emit("social.approach.abandoned", { agentId: p.agentId, target: p.target, reason: entry ? "the target is gone" : "the walker's body is gone" }, { actorId: p.agentId, threadId: p.sessionId, causedBy: [p.cause] });
        continue;
      }
      const at = this.entities.world.position(entry.eid);
      const distance = Math.hypot(goal[0] - at[0], goal[2] - at[2]);
      const character = this.characters.get(p.entity);
      if (character && this.characters.nav.counts()) {
        // A character walks the crowd; its walk is retargeted as the target moves.
        if (distance > p.talkDistance) {
          const r = p.route;
          if (!r || !character.walk || Math.hypot(r.goal[0] - goal[0], r.goal[2] - goal[2]) > REPLAN_DISTANCE) {
            try {
              this.characters.moveTo(p.entity, goal, WALK_SPEED, { actorId: p.agentId, threadId: p.sessionId, cause: p.cause });
              p.route = { corners: [], goal };
            } catch {
              // No way there: it waits where it is and tries again as things change.
              p.route = { corners: [], goal };
            }
          }
          continue;
        }
        this.characters.stop(p.entity);
        this.pursuits.delete(p.agentId);
        this.tracer.emit("social.approached", { agentId: p.agentId, target: p.target, distance, position: at }, { actorId: p.agentId, threadId: p.sessionId, causedBy: [p.cause] });
        continue;
      }
      const aim = this.waypoint(p, at, goal);
      const dx = aim[0] - at[0];
      const dz = aim[2] - at[2];
      const leg = Math.hypot(dx, dz);
      if (distance > p.talkDistance && leg > 1e-9) {
        const stride = Math.min(WALK_SPEED * dt, distance - p.talkDistance, leg);
        const yaw = Math.atan2(dx, dz);
        this.entities.setTransform(entry, {
          position: [at[0] + (dx / leg) * stride, at[1], at[2] + (dz / leg) * stride],
          rotation: [0, Math.sin(yaw / 2), 0, Math.cos(yaw / 2)],
        });
      }
      if (distance - Math.min(WALK_SPEED * dt, Math.max(0, distance - p.talkDistance)) <= p.talkDistance + 1e-6) {
        this.pursuits.delete(p.agentId);
        const now = this.entities.world.position(entry.eid);
        this.tracer.emit(
          "social.approached",
          { agentId: p.agentId, target: p.target, distance: Math.hypot(goal[0] - now[0], goal[2] - now[2]), position: now },
          { actorId: p.agentId, threadId: p.sessionId, causedBy: [p.cause] },
        );
      }
    }
  }
}
