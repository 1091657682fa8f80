// Locomotion: agents walking their bodies toward a target (another agent,
// an entity or a point), one stride per fixed step, turning to face where
// they go, until within talking distance — then `social.approached`. A
// target that disappears ends the walk with `social.approach.abandoned`.

import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import type { AgentDirectory } from "../agents/directory.ts";
import type { Vec3 } from "../ecs/world.ts";
import type { Tracer } from "../observability/tracer.ts";
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
}

/** The entity agent `agentId` inhabits, as its agent systems publish it, or null. */
export function bodyOf(agents: AgentDirectory, agentId: string): string | null {
  const summary = agents.list().find((a) => a.agentId === agentId);
  return typeof summary?.entityId === "string" ? summary.entityId : null;
}

export class Locomotion {
  private readonly pursuits = new Map<string, Pursuit>();

  constructor(private readonly entities: Entities, private readonly agents: AgentDirectory, private readonly tracer: Tracer) {}

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
    return this.pursuits.delete(agentId);
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
      const dx = goal[0] - at[0];
      const dz = goal[2] - at[2];
      const distance = Math.hypot(dx, dz);
      if (distance > p.talkDistance) {
        const stride = Math.min(WALK_SPEED * dt, distance - p.talkDistance);
        const yaw = Math.atan2(dx, dz);
        this.entities.setTransform(entry, {
          position: [at[0] + (dx / distance) * stride, at[1], at[2] + (dz / distance) * stride],
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
