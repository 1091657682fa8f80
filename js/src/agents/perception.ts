// PerceptionSystem: builds `Perception` only for agents due to decide.
// Agents inhabiting an entity are answered together by one native batched
// spatial query; agents without one (perceiving from an anchor point) fall
// back to the JS oracle grid. Both feed the same envelope builder, so the
// two paths produce byte-identical perception.

import { SpatialGrid } from "../../../crates/limina-ecs/js/grid.ts";
import type { Navigation } from "../../../crates/limina-nav/js/nav.ts";
import type { Vec3, World } from "../ecs/world.ts";
import type { Tracer } from "../observability/tracer.ts";
import type { SpatialIndex } from "../spatial/spatial-index.ts";
import type { AgentRecord, PerceivedEntity, Perception } from "./registry.ts";

const RECENT_EVENTS = 8;

interface Query {
  agent: AgentRecord;
  center: Vec3;
  selfEid: number;
}

export class PerceptionSystem {
  constructor(private readonly world: World, private readonly spatial: SpatialIndex, private readonly tracer: Tracer, private readonly nav?: Navigation) {}

  /** Fills `perception` for each agent and emits `agent.perception.updated`. */
  build(agents: AgentRecord[], tick: number, options: { forceOracle?: boolean } = {}): void {
    if (agents.length === 0) return;
    const w = this.world;
    const live = w.liveEids();
    const native: Query[] = [];
    const oracle: Query[] = [];
    const blind: AgentRecord[] = [];
    for (const agent of agents) {
      const entry = agent.entityId !== undefined ? w.entities.get(agent.entityId) : undefined;
      if (entry) (options.forceOracle ? oracle : native).push({ agent, center: w.position(entry.eid), selfEid: entry.eid });
      else if (agent.anchor) oracle.push({ agent, center: agent.anchor, selfEid: -1 });
      else blind.push(agent);
    }
    const recent = this.recentEvents();
    if (native.length > 0) {
      const q = new Float64Array(native.length * 5);
      native.forEach((n, k) => {
        const at = k * 5;
        q[at] = n.center[0];
        q[at + 1] = n.center[1];
        q[at + 2] = n.center[2];
        q[at + 3] = n.agent.perceptionRadius;
        q[at + 4] = n.selfEid;
      });
      const r = this.spatial.queryBatch(q);
      native.forEach((n, k) => this.assemble(n, r.eids.subarray(r.offsets[k], r.offsets[k + 1]), r.distances.subarray(r.offsets[k], r.offsets[k + 1]), recent, tick));
    }
    if (oracle.length > 0) {
      const grid = new SpatialGrid(live, w.Position, this.spatial.cellSize);
      for (const o of oracle) {
        const hits = grid.query(o.center[0], o.center[1], o.center[2], o.agent.perceptionRadius, o.selfEid);
        this.assemble(o, Uint32Array.from(hits, (h) => h.eid), Float64Array.from(hits, (h) => h.distance), recent, tick);
      }
    }
    for (const agent of blind) this.publish(agent, { selfId: agent.id, nearby: [], recentEvents: recent, tick });
  }

  private recentEvents(): { type: string }[] {
    return this.tracer.latestTypes(RECENT_EVENTS, (type) => type !== "agent.perception.updated").map((type) => ({ type }));
  }

  /** The one place a Perception envelope is assembled, whichever path found the hits. */
  private assemble(q: Query, eids: Uint32Array, distances: Float64Array, recent: { type: string }[], tick: number): void {
    const w = this.world;
    const nearby: PerceivedEntity[] = Array.from(eids, (eid, k) => ({ id: w.entities.getByEid(eid)!.id, position: w.position(eid), distance: distances[k] }));
    if (nearby.length > 0 && this.nav?.counts()) markReachable(this.nav, q.center, nearby);
    const p: Perception = { selfId: q.agent.id, nearby, recentEvents: recent, tick };
    if (q.agent.entityId !== undefined && q.selfEid >= 0) p.selfEntity = q.agent.entityId;
    p.position = [q.center[0], q.center[1], q.center[2]];
    this.publish(q.agent, p);
  }

  private publish(agent: AgentRecord, p: Perception): void {
    agent.perception = p;
    agent.perceptionEventId = this.tracer.emit(
      "agent.perception.updated",
      { agentId: agent.id, tick: p.tick, nearby: p.nearby.length, position: p.position ?? null },
      { actorId: agent.id, threadId: agent.sessionId },
    );
  }
}

/** Marks each perceived entity reachable or not over the navmesh (island connectivity, one native batch). */
function markReachable(nav: Navigation, from: Vec3, nearby: PerceivedEntity[]): void {
  const pairs = new Float32Array(nearby.length * 6);
  nearby.forEach((e, k) => {
    const at = k * 6;
    pairs[at] = from[0];
    pairs[at + 1] = from[1];
    pairs[at + 2] = from[2];
    pairs[at + 3] = e.position[0];
    pairs[at + 4] = e.position[1];
    pairs[at + 5] = e.position[2];
  });
  nav.connected(pairs).forEach((c, k) => (nearby[k].reachable = c === "connected"));
}
