// A world module for the spectator fan-out benchmark (js/bench/web_fanout.mjs):
// the numbers party (200 agents wandering and chatting, each walk a traced
// skill) as a world server runs it, reporting its own sim-step times — from
// the first fixed-step system to the last, so the state stream's work (and
// the spectator sink's publishing) is inside — as one stderr line a second:
// `limina-bench steps [ms, …]`.
import { onFixedStep, type WorldSession } from "limina";
import { createParty, dressPlaza } from "../../../examples/numbers_party_core.ts";

export default async function build(session: WorldSession): Promise<void> {
  let began = 0;
  let steps: number[] = [];
  let ending = false;
  onFixedStep(() => {
    began = performance.now();
    // Registered on the first step, so it runs after the systems the server added since (the state stream's).
    if (!ending) {
      ending = true;
      onFixedStep(() => {
        steps.push(performance.now() - began);
        if (steps.length < 60) return;
        console.error(`limina-bench steps ${JSON.stringify(steps.map((s) => +s.toFixed(3)))}`);
        steps = [];
      });
    }
  });
  // After the timer's first system, so the party's own step is timed too.
  dressPlaza(session);
  await createParty(session);
}
