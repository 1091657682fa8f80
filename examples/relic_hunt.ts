// Demo: A builder agent makes a game over MCP (a vault, relics, a quest, a keeper) and a player agent wins it.
// Relic Hunt: a game an agent builds and another plays. A builder agent
// authors it purely over MCP (relic_hunt_core.ts): ground and a walled
// vault, three relics, a vault door that opens when the quest is accepted,
// a Keeper whose dialogue offers the quest, a lava pool that burns, an
// altar, a win and a lose condition. Then a player agent with a scripted
// policy plays it over MCP — it walks by physics impulses, talks, accepts,
// picks relics up, and lays them on the altar. One line per milestone, a
// final `relic_hunt: won …`; the world log is exported (its name on stderr)
// and `limina replay` of it matches every digest.
// Run windowed:  limina demo relic_hunt --window
// Or headless:   limina demo relic_hunt --deterministic
// (with --frames N --screenshot out.png a frame of the game is written)
import { createEngine, type EngineEvent, onFixedStep } from "limina";
import * as THREE from "three";
import { buildRelicHunt, hunterSession, PLAYER, RELICS, RelicHunter } from "./relic_hunt_core.ts";

/** Ticks between the hunter's decisions (10 a second, fewer when the machine is busy). */
const THINK_EVERY = 6;
/** A game not won by then (two minutes of world time) has failed. */
const GIVE_UP = 7200;

// Paused while the builder's awaited calls build the game: time starts once it stands, so a
// --deterministic run is the same every time, however long the build took.
const engine = await createEngine({ paused: true });
const { session } = engine;
session.scene.background = new THREE.Color(0x9fb6cf);
const builder = session.mcp();
builder.initialize({ agentId: "agt_builder", sessionId: "sess_builder", profile: "builder.readWrite" });
const built = await buildRelicHunt(builder);
const say = (line: string) => console.log(`  tick ${String(session.tick).padStart(4)}: ${line}`);
console.log(`relic_hunt: built over MCP by agt_builder in ${built.calls} calls: ${built.entities} entities, the quest, the Keeper's dialogue, the vault door, lava and the altar`);

// Milestones, as the game reports them in its world log.
let relics = 0;
let burns = 0;
let burnt = 0;
session.tracer.subscribe((e: EngineEvent) => {
  const p = e.payload as Record<string, unknown>;
  switch (e.type) {
    case "quest.offered":
      return say(`the Keeper offered "The three relics"`);
    case "quest.accepted":
      return say(`${PLAYER} accepted the quest`);
    case "interaction.opened":
      return say("the vault door slid open");
    case "item.picked":
      return say(`picked up relic ${++relics}/${RELICS}`);
    case "damage.dealt":
      if (p.kind === "fire" && p.target === built.player) {
        burns++;
        burnt += p.amount as number;
        if (burns === 1) say(`the lava burns: ${p.amount} damage`);
      }
      return;
    case "trigger.exited":
      if (p.trigger === "lava") say(`out of the lava: burnt ${burns} times, ${burnt} damage in all`);
      return;
    case "quest.completed":
      return say("the relics lie on the altar: quest complete");
    case "game.lost":
      return say(`lost: ${p.reason}`);
  }
});

const hunter = new RelicHunter(hunterSession(session), built);
await hunter.survey();
session.paused = false;

// An overview of the whole arena and a quest HUD: presentation, set by this module (not world state).
session.view.set({ position: [0, 19, -21], target: [0, 0, 0.5], fov: 50 });
const hud = session.ui.create({ kind: "hudPanel", anchor: { type: "screen", corner: "topLeft" }, title: "Relic Hunt", text: "Talk to the Keeper" });
let thinking = false;
let ended = false;
onFixedStep(() => {
  if (session.paused || ended) return;
  const tick = session.tick;
  if (tick % 30 === 0) {
    const health = session.game.stats.value(built.player, "health") ?? 0;
    const quest = session.game.quests.get("relics", built.player);
    session.ui.update(hud, { text: `Relics ${session.game.items.count(built.player, "relic")}/${RELICS} · health ${Math.round(health)} · quest ${quest?.status ?? "not taken"}` });
  }
  const phase = session.game.state.phase;
  if (phase === "won" || phase === "lost" || tick >= GIVE_UP) {
    // The world stops where the game ended: the export's checkpoint is this tick's digest.
    ended = true;
    session.paused = true;
    void finish(phase);
    return;
  }
  if (tick % THINK_EVERY === 0 && !thinking) {
    thinking = true;
    void hunter.think().finally(() => (thinking = false));
  }
});

async function finish(phase: string): Promise<void> {
  const health = session.game.stats.value(built.player, "health") ?? 0;
  const exported = await builder.mustCall<{ name: string; events: number }>("trace.export", { name: "relic-hunt" });
  console.error(`relic_hunt: world log exported to traces/${exported.name} (${exported.events} events); check it with: limina replay traces/${exported.name}`);
  if (phase !== "won") {
    console.log(`relic_hunt: ${phase === "lost" ? `lost: ${session.game.state.outcome?.reason}` : `not won after ${GIVE_UP} ticks`}`);
    Limina.exit(1);
  }
  console.log(
    `relic_hunt: won at tick ${session.game.state.outcome!.tick} (${(session.game.state.outcome!.tick / 60).toFixed(1)} s of world time): ${RELICS} relics on the altar, health ${Math.round(health)}/100, ${hunter.actions} player actions, digest ${session.digest()}`,
  );
  session.ui.update(hud, { text: "Won: the relics are home" });
  // Windowed, the game stays on screen until the window closes; headless, the run is over.
  if (!engine.output.windowed) Limina.exit(0);
}
