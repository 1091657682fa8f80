// A world module for the MCP benchmarks: N entities (LIMINA_BENCH_ENTITIES,
// default 2000) moving on circles, every one of them every tick. With
// --busy-ms=N the loop thread stays busy N ms each frame after its steps
// (and their state fan-out), as drawing a window or agents' work keeps it.
import { onFixedStep, onFrame, type WorldSession } from "limina";

export default function build(session: WorldSession): void {
  const w = session.world;
  const n = Number(Limina.args.find((a) => a.startsWith("--entities="))?.slice(11) ?? 2000);
  const eids: number[] = [];
  for (let i = 0; i < n; i++) eids.push(w.spawn({ position: [(i % 50) * 2, 0, Math.floor(i / 50) * 2] }).eid);
  let t = 0;
  onFixedStep((dt) => {
    t += dt;
    for (let i = 0; i < eids.length; i++) {
      const e = eids[i];
      w.Position.x[e] = (i % 50) * 2 + Math.cos(t + i);
      w.Position.z[e] = Math.floor(i / 50) * 2 + Math.sin(t + i);
    }
  });
  const busyMs = Number(Limina.args.find((a) => a.startsWith("--busy-ms="))?.slice(10) ?? 0);
  if (busyMs > 0) {
    onFrame(() => {
      const until = performance.now() + busyMs;
      while (performance.now() < until);
    });
  }
}
