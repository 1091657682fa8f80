// limina: --deterministic
// Characters' animation on the state stream (docs/web.md, "Characters on the
// stream"): a character's whole animation state travels once (a snapshot, a
// creation), then only its discrete changes (motion taken, emotes played),
// stamped with the animation clock. A consumer that follows the stream as the
// spectator page does — the engine's own animators (StreamAnimation) advanced
// once per clock step — holds exactly the world's animation state at every
// tick: walking, stopping, jumping, waving, a save imported in place (the
// animation comes whole again), and crowds jostling. A steady walk
// costs no animation bytes at all, and a browser joining through a relay's
// mirror (which keeps the changes since its last whole state) catches up to
// the same state.
import { Animator, characterAnimation, characterBody, createWorldSession, resolveProfile, StateMirror, StateSync, StreamAnimation, type WorldSession } from "limina";
import { assert, assertEquals, test } from "limina/testing";
import { value } from "./support/results.ts";

const STEP = 1 / 60;
const BUILDER = { agentId: "b1", sessionId: "s1", permissions: resolveProfile("builder.readWrite"), profile: "builder.readWrite" };
const PLAYER = { agentId: "p1", sessionId: "s2", permissions: resolveProfile("player.limited"), profile: "player.limited" };
const call = async <T>(s: WorldSession, tool: string, input: unknown, who = BUILDER) => value<T>(await s.registry.invoke(tool, input, who));

interface Message {
  method: string;
  params: Record<string, any>;
}

/** A consumer of the stream as the spectator page is: a mirror, and the engine's own animators following it. */
class Consumer {
  readonly mirror: StateMirror;
  readonly animation = new StreamAnimation();
  /** Per delta taken: the animation bytes it carried (changes, whole states, created characters' states). */
  readonly animationBytes: number[] = [];

  constructor(history = false) {
    this.mirror = new StateMirror(history);
  }

  private async make(id: string): Promise<void> {
    const e = this.mirror.entities.get(id)!;
    const character = e.character as { appearance: Record<string, unknown> } | undefined;
    if (!character) return;
    const body = await characterBody({ kind: "character", appearance: character.appearance, maxSpeed: 4.5 });
    this.animation.adopt(id, new Animator(body.rig, body.clips, body.scale), e);
  }

  async snapshot(p: Record<string, unknown>): Promise<void> {
    this.mirror.applySnapshot(p);
    this.animation.reset(this.mirror.animationClock ?? 0);
    for (const id of this.mirror.entities.keys()) await this.make(id);
  }

  async delta(p: Record<string, any>): Promise<void> {
    const c = this.mirror.applyDelta(p);
    for (const id of c.destroyed) this.animation.delete(id);
    this.animation.advance(c, this.mirror.animationClock ?? this.animation.clock);
    for (const id of c.created) await this.make(id);
    for (const id of c.reloaded) this.animation.adopt(id, this.animation.animators.get(id)!, this.mirror.entities.get(id));
    const created = (p.created as { animation?: unknown }[]).filter((e) => e.animation !== undefined).map((e) => e.animation);
    const bytes = [p.animationChanges, p.animations, ...created].reduce((n: number, v) => n + (v === undefined ? 0 : JSON.stringify(v).length), 0);
    this.animationBytes.push(bytes);
  }

  /** A character's animation state as this consumer holds it. */
  state(id: string): string {
    return JSON.stringify(this.animation.animators.get(id)?.save() ?? null);
  }
}

/** A world with a floor, streaming to a sink whose messages the test takes tick by tick. */
async function streamedWorld() {
  const s = createWorldSession({ simulate: false, checkpointEvery: 0 });
  await call(s, "scene.createEntity", { shape: "box", size: [60, 1, 60], position: [0, -0.5, 0], static: true });
  const messages: Message[] = [];
  const sync = new StateSync(s.entities, s.spatial, { sink: (text) => messages.push(JSON.parse(text)), animation: characterAnimation(s) });
  /** Steps the world once and streams the tick; returns this tick's messages. */
  const step = (): Message[] => {
    s.step(STEP);
    sync.tick(s.tick);
    return messages.splice(0);
  };
  return { s, step };
}

/** The world's animator state of a character, as saved. */
const worldState = (s: WorldSession, id: string) => JSON.stringify(s.characters.require(id).animator.save());

/** An entity's transform in the world, in the stream's layout. */
function worldTransform(s: WorldSession, id: string): number[] {
  const { Position: P, Rotation: R, Scale: S } = s.world;
  const eid = s.world.entities.get(id)!.eid;
  return [P.x[eid], P.y[eid], P.z[eid], R.x[eid], R.y[eid], R.z[eid], R.w[eid], S.x[eid], S.y[eid], S.z[eid]];
}

test("a walking character costs animation bytes only when it changes, and a consumer holds the world's animation state exactly at every tick", async () => {
  const { s, step } = await streamedWorld();
  const consumer = new Consumer();
  let first = true;
  /** Deltas that carried the character as `turned` (position and a turn about the vertical axis, 5 floats). */
  let turns = 0;
  /** Steps `n` ticks; the consumer takes the first snapshot, then deltas only (as a page behind a relay does); checks the state every tick. */
  const run = async (n: number, id: string | null): Promise<number[]> => {
    const bytes: number[] = [];
    for (let i = 0; i < n; i++) {
      for (const m of step()) {
        if (m.method === "state/snapshot" && first) {
          await consumer.snapshot(m.params);
          first = false;
        } else if (m.method === "state/delta" && !first) {
          await consumer.delta(m.params);
          bytes.push(consumer.animationBytes.at(-1)!);
          if (id && m.params.turned.ids.includes(id)) turns++;
        }
      }
      if (id) {
        assertEquals(consumer.state(id), worldState(s, id), `tick ${s.tick}: the consumer's animation state is the world's`);
        const held = consumer.mirror.entities.get(id)!.transform;
        const world = worldTransform(s, id);
        assert(world.every((v, k) => v === held[k]), `tick ${s.tick}: the consumer's transform is the world's exactly: ${held} against ${world}`);
      }
    }
    return bytes;
  };
  await run(3, null);
  const { entityId: id } = await call<{ entityId: string }>(s, "character.spawn", { position: [-20, 0, 0] });
  const spawned = await run(1, id);
  assert(spawned[0] > 500, `the character came whole once: ${spawned[0]} bytes`);
  const standing = await run(60, id);
  assert(standing.slice(5).every((b) => b === 0), `standing costs nothing: ${standing}`);

  await call(s, "character.move", { entityId: id, direction: [1, 0], speed: 1.4 }, PLAYER);
  const walking = await run(240, id);
  const changed = walking.filter((b) => b > 0).length;
  assertEquals((await call<{ state: string }>(s, "animation.getState", { entityId: id })).state, "locomotion");
  assert(changed <= 12 && walking.slice(60).every((b) => b === 0), `a steady walk sends nothing once up to speed (${changed} of 240 ticks carried changes: ${walking.slice(0, 30)})`);
  const perTick = walking.reduce((a, b) => a + b, 0) / walking.length;
  assert(perTick < 10, `${perTick.toFixed(1)} animation bytes a tick over the walk, against ${spawned[0]} for one whole state`);

  // Stop, jump, land, wave, walk on: each a few changes, the state exact all along.
  await call(s, "character.move", { entityId: id, direction: [1, 0], speed: 0 }, PLAYER);
  await run(40, id);
  assertEquals(await call(s, "character.jump", { entityId: id, speed: 5 }, PLAYER), { jumped: true });
  const jumped = await run(100, id);
  assert(jumped.filter((b) => b > 0).length >= 2, "the jump's rise and landing are changes");
  await call(s, "animation.play", { entityId: id, clip: "wave" }, PLAYER);
  const waved = await run(30, id);
  assert(waved[0] > 0 && waved.slice(1).every((b) => b === 0), `the wave is one change: ${waved}`);
  assertEquals((await call<{ state: string; clip: string }>(s, "animation.getState", { entityId: id })).clip, "wave");
  await call(s, "character.move", { entityId: id, direction: [0, 1], speed: 3 }, PLAYER);
  await run(60, id);
  // A save imported in place: the world's animators are loaded whole, and so is the consumer's copy.
  await call(s, "save.export", { name: "web-animation-walk" });
  await run(45, id);
  await call(s, "save.import", { name: "web-animation-walk" });
  const restored = await run(30, id);
  assert(turns > 0, "the character's turns came as turned");
  assert(restored[0] > 500 && restored.slice(1).every((b) => b < 200), `the restored animation came whole, then changes: ${restored.slice(0, 5)}`);
  await call(s, "save.delete", { name: "web-animation-walk" });
  const getState = (a: Animator) => JSON.stringify(a.getState());
  assertEquals(getState(consumer.animation.animators.get(id)!), JSON.stringify(await call(s, "animation.getState", { entityId: id })), "animation.getState agrees");
  s.dispose();
});

test("a crowd jostling on the navmesh: the consumer stays exact, and a late joiner fed a relay's mirror snapshot catches up to the same state", async () => {
  const { s, step } = await streamedWorld();
  await call(s, "nav.build", {});
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) ids.push((await call<{ entityId: string }>(s, "character.spawn", { position: [(i % 4) * 2 - 3, 0, Math.floor(i / 4) * 2 - 2] })).entityId);
  // Everyone crosses through everyone else: avoidance changes their speeds.
  for (const [i, id] of ids.entries()) await call(s, "nav.moveTo", { entityId: id, target: [-((i % 4) * 2 - 3) * 3, 0, -(Math.floor(i / 4) * 2 - 2) * 3] }, PLAYER);
  await call(s, "animation.play", { entityId: ids[0], clip: "wave", loop: false }, PLAYER);
  const consumer = new Consumer();
  const relay = new StateMirror(true);
  let late: Consumer | null = null;
  let started = false;
  let bytes = 0;
  let deltas = 0;
  for (let t = 0; t < 300; t++) {
    for (const m of step()) {
      if (m.method === "state/snapshot") {
        relay.applySnapshot(m.params);
        if (!started) await consumer.snapshot(m.params);
        started = true;
        continue;
      }
      relay.applyDelta(m.params);
      await consumer.delta(m.params);
      await late?.delta(m.params);
      bytes += consumer.animationBytes.at(-1)!;
      deltas++;
    }
    // A browser joins the relay halfway between two of the world's snapshots: the relay's own snapshot, then the deltas.
    if (t === 150) {
      late = new Consumer();
      await late.snapshot(JSON.parse(JSON.stringify(relay.snapshot())));
    }
    for (const id of ids) assertEquals(consumer.state(id), worldState(s, id), `tick ${s.tick}: ${id}`);
    if (late) for (const id of ids) assertEquals(late.state(id), worldState(s, id), `tick ${s.tick}: ${id} for the late joiner`);
  }
  const moving = ids.filter((id) => s.characters.require(id).animator.getState().state === "locomotion").length;
  assert(moving > 0 || s.characters.list().some((c) => c.animator.save().actions.walk.time > 0), "the crowd walked");
  const whole = JSON.stringify(s.characters.require(ids[0]).animator.save()).length;
  console.log(`  12 characters crossing: ${(bytes / deltas).toFixed(0)} animation bytes a tick, against ${whole * ids.length} for their whole states`);
  assert(bytes / deltas < (whole * ids.length) / 20, `changes cost far less than whole states: ${(bytes / deltas).toFixed(0)} bytes a tick`);
  s.dispose();
});
