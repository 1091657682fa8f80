// A billiards table built on the world and native physics: static rails
// and bed, a racked triangle of 15 balls, and a cue ball struck into them.
// Shared by the headless demo and (with rendering) the windowed one.

import { type EntityEntry, PhysicsWorld, World } from "limina";

export const BALL_RADIUS = 0.0286; // metres: a 57.2 mm pool ball
export const TABLE = { halfLength: 1.27, halfWidth: 0.635, railHeight: 0.05 };

export interface Ball {
  entry: EntityEntry;
  body: number;
  number: number;
}

export interface Billiards {
  world: World;
  physics: PhysicsWorld;
  balls: Ball[];
  cue: Ball;
}

const BALL = { friction: 0.2, restitution: 0.92, density: 1700, linearDamping: 0.25, angularDamping: 0.35, ccd: true };

/** Builds the table and racks the balls; the cue ball waits at the head spot. */
export function setupBilliards(world = new World(), physics = new PhysicsWorld()): Billiards {
  physics.setGravity([0, -9.81, 0]);
  const { halfLength: L, halfWidth: W, railHeight: H } = TABLE;
  const bed = world.spawn({ position: [0, -0.05, 0], tags: ["table"] });
  physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [L, 0.05, W] }, position: [0, -0.05, 0], friction: 0.6, restitution: 0.5, eid: bed.eid });
  const rails: [number, number, number, number][] = [
    [0, W + 0.05, L + 0.1, 0.05],
    [0, -W - 0.05, L + 0.1, 0.05],
    [L + 0.05, 0, 0.05, W + 0.1],
    [-L - 0.05, 0, 0.05, W + 0.1],
  ];
  for (const [x, z, hx, hz] of rails) {
    const rail = world.spawn({ position: [x, H / 2, z], tags: ["rail"] });
    physics.createBody({ kind: "static", shape: { type: "box", halfExtents: [hx, H, hz] }, position: [x, H / 2, z], friction: 0.3, restitution: 0.8, eid: rail.eid });
  }
  const balls: Ball[] = [];
  const addBall = (number: number, x: number, z: number): Ball => {
    const entry = world.spawn({ position: [x, BALL_RADIUS, z], tags: ["ball", number === 0 ? "cue" : `ball-${number}`] });
    const body = physics.createBody({ kind: "dynamic", shape: { type: "sphere", radius: BALL_RADIUS }, position: [x, BALL_RADIUS, z], eid: entry.eid, ...BALL });
    entry.body = body;
    const ball = { entry, body, number };
    balls.push(ball);
    return ball;
  };
  // The rack: five rows behind the foot spot, touching.
  const footX = L / 2;
  const d = BALL_RADIUS * 2 * 1.001;
  let n = 1;
  for (let row = 0; row < 5; row++) {
    for (let k = 0; k <= row; k++) {
      addBall(n++, footX + row * d * Math.sqrt(3) / 2, (k - row / 2) * d);
    }
  }
  const cue = addBall(0, -L / 2, 0);
  return { world, physics, balls, cue };
}

/** Strikes the cue ball towards the rack's apex. */
export function breakShot(b: Billiards, speed = 6): void {
  const massKg = 1700 * (4 / 3) * Math.PI * BALL_RADIUS ** 3;
  b.physics.applyImpulse(b.cue.body, [massKg * speed, 0, massKg * speed * 0.01]);
}

/** Copies every ball's simulated pose into the world's SoA transforms. */
export function syncBalls(b: Billiards): void {
  b.physics.writeTransforms(b.world.Position, b.world.Rotation);
}
