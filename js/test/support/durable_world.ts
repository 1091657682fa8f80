// The world module js/test/world_file.ts serves with --world-file: it builds
// its landmark once, and on a restart from the world file only says so.
import type { WorldSession } from "limina";

export default function build(session: WorldSession): void {
  console.error(`durable world: restored=${session.restored} entities=${session.world.entities.size} agents=${session.restoredAgents.length}`);
  if (session.restored) return;
  session.entities.create({ shape: "box", size: 4, position: [0, -2, 0], static: true, dynamic: false, color: 0x336699, friction: 0.5, restitution: 0, tags: ["landmark"] });
}
