// limina: waits
// Over MCP stdio, on the binary as users run it: a floor and a wall,
// nav.build, nav.findPath round the wall, character.spawn and nav.moveTo
// arriving at the goal within a few seconds of world time (the driver waits
// for nav.arrived in the world log; js/test/node/nav_stdio.mjs).
import { assert, assertEquals, test } from "limina/testing";
import { drive } from "./support/drivers.ts";

test("MCP stdio: build, find a path round a wall, spawn a character and walk it there", async () => {
  const out = await drive("node", "js/test/node/nav_stdio.mjs") as {
    polygons: number; pathLength: number; pathPoints: number; worldSeconds: number; distanceToGoal: number; state: string; arrival: { entityId: string; distance: number };
  };
  assert(out.polygons > 4, JSON.stringify(out));
  assert(out.pathLength > 10.5 && out.pathPoints >= 3, `a detour round the wall: ${JSON.stringify(out)}`);
  assert(out.arrival.distance < 0.3 && out.distanceToGoal < 0.3, `arrived within 0.3 m: ${JSON.stringify(out)}`);
  assert(out.worldSeconds > 1 && out.worldSeconds < 10, `within a few seconds of world time: ${out.worldSeconds} s`);
  assertEquals(out.state, "idle");
});
