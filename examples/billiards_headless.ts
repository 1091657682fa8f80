// Demo: The billiards break without a window: each ball's state printed once per simulated second.
// The billiards break without a window: native Rapier steps on the host's
// fixed-timestep loop, each ball's position and quaternion are written back
// into the SoA every tick, and ball states print once per simulated second.
// Run: limina demo billiards_headless --deterministic --frames 360
import { FIXED_DT, onFixedStep } from "limina";
import { breakShot, setupBilliards, syncBalls } from "./billiards_core.ts";

const table = setupBilliards();
const { world, physics, balls } = table;
breakShot(table);

let contacts = 0;
const fmt = (v: number) => v.toFixed(3).padStart(7);

function report(step: number): void {
  console.log(`t=${(step * FIXED_DT).toFixed(2)}s  ball-contacts=${contacts}`);
  for (const b of balls) {
    const e = b.entry.eid;
    const [x, y, z] = world.position(e);
    const [qx, qy, qz, qw] = world.rotation(e);
    const speed = Math.hypot(...physics.bodyState(b.body).linearVelocity);
    // The rotation angle shows the balls roll rather than slide.
    const angle = 2 * Math.acos(Math.min(1, Math.abs(qw))) * 180 / Math.PI;
    console.log(
      `  ${(b.number === 0 ? "cue" : `#${b.number}`).padEnd(4)} pos=(${fmt(x)},${fmt(y)},${fmt(z)}) speed=${speed.toFixed(3)} m/s rolled=${angle.toFixed(0).padStart(3)}°  q=(${[qx, qy, qz, qw].map((c) => c.toFixed(2)).join(",")})`,
    );
  }
}

onFixedStep((dt, step) => {
  physics.step(dt);
  syncBalls(table);
  contacts += physics.drainCollisions().filter((e) => e.started).length;
  if (step % 60 === 0) report(step);
});
