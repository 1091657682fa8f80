// Demo: A headless particle world integrated in whole fixed steps, reported once per simulated second.
// A headless demo of the host loop: a bitECS world of particles whose SoA
// transforms are integrated in whole fixed steps (gravity, ground bounce),
// with a report once per simulated second.
// Run: limina demo particles --deterministic --frames 600
import { addComponent, addEntity, createWorld, query } from "bitecs";
import { FIXED_DT, onFixedStep } from "limina";

const COUNT = 2000;
const GRAVITY = -9.81;
const RESTITUTION = 0.6;
const REST_SPEED = 0.2;

// Indexed by bitECS entity id, which starts at 1.
const SIZE = COUNT + 1;
const Position = { x: new Float32Array(SIZE), y: new Float32Array(SIZE), z: new Float32Array(SIZE) };
const Velocity = { x: new Float32Array(SIZE), y: new Float32Array(SIZE), z: new Float32Array(SIZE) };

const world = createWorld();
// A fixed-seed generator, so every run is the same run.
let seed = 0x9e3779b9;
function random(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 0x100000000;
}

for (let i = 0; i < COUNT; i++) {
  const e = addEntity(world);
  addComponent(world, e, Position);
  addComponent(world, e, Velocity);
  Position.x[e] = (random() - 0.5) * 20;
  Position.y[e] = 5 + random() * 10;
  Position.z[e] = (random() - 0.5) * 20;
  Velocity.x[e] = (random() - 0.5) * 4;
  Velocity.z[e] = (random() - 0.5) * 4;
}

let bounces = 0;
onFixedStep((dt, step) => {
  const ents = query(world, [Position, Velocity]);
  for (let i = 0; i < ents.length; i++) {
    const e = ents[i];
    Velocity.y[e] += GRAVITY * dt;
    Position.x[e] += Velocity.x[e] * dt;
    Position.y[e] += Velocity.y[e] * dt;
    Position.z[e] += Velocity.z[e] * dt;
    if (Position.y[e] < 0) {
      Position.y[e] = -Position.y[e] * RESTITUTION;
      Velocity.y[e] = -Velocity.y[e] * RESTITUTION;
      if (Velocity.y[e] < REST_SPEED) {
        // Too slow to leave the ground again: it comes to rest.
        Position.y[e] = 0;
        Velocity.y[e] = 0;
        Velocity.x[e] *= 0.9;
        Velocity.z[e] *= 0.9;
      } else {
        bounces++;
      }
    }
  }
  if (step % 60 === 0) {
    let sumY = 0;
    let maxY = 0;
    for (const e of ents) {
      sumY += Position.y[e];
      maxY = Math.max(maxY, Position.y[e]);
    }
    console.log(
      `t=${(step * FIXED_DT).toFixed(2)}s  particles=${ents.length}  mean height=${(sumY / ents.length).toFixed(3)}  max=${maxY.toFixed(3)}  bounces=${bounces}`,
    );
  }
});
