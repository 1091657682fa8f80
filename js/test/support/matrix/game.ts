// Matrix samples: game.* (game.restart is in save.ts, whose fixture starts the game) — the caller plays
// ent_1; a flag, a counter, a running timer, a rule and a named condition exist.
import type { MatrixFamily } from "./family.ts";

export const family: MatrixFamily = {
  async prepare(w) {
    await w.must("game.addPlayer", { agentId: "caller", entity: "ent_1" });
    await w.must("game.setFlag", { flag: "lit" });
    await w.must("game.setCounter", { counter: "score", value: 1 });
    await w.must("game.startTimer", { timer: "fuse", ticks: 100 });
    await w.must("game.defineRule", { rule: "boom", when: { timer: "fuse", is: "done" }, effects: [{ setFlag: "boom" }] });
    await w.must("game.defineCondition", { name: "isLit", condition: { flag: "lit" } });
  },
  samples: {
    "game.setFlag": { input: { flag: "door", value: true } },
    "game.getFlag": { input: { flag: "lit" } },
    "game.setCounter": { input: { counter: "score", value: 10 } },
    "game.addCounter": { input: { counter: "score", by: 2 } },
    "game.getCounter": { input: { counter: "score" } },
    "game.startTimer": { input: { timer: "wave", ticks: 600, repeat: true, effects: [{ addCounter: "waves" }] } },
    "game.stopTimer": { input: { timer: "fuse" } },
    "game.timers": { input: {} },
    "game.defineCondition": { input: { name: "rich", condition: { counter: "score", op: "gte", value: 100 } } },
    "game.check": { input: { condition: "isLit" } },
    "game.defineRule": { input: { rule: "bonus", when: { counter: "score", value: 50 }, effects: [{ setFlag: "bonus" }] } },
    "game.removeRule": { input: { rule: "boom" } },
    "game.rules": { input: {} },
    "game.setWinCondition": { input: { when: { flag: "treasure" }, reason: "the treasure is found" } },
    "game.setLoseCondition": { input: { when: { timer: "fuse", is: "done" }, reason: "the fuse burnt down" } },
    "game.addPlayer": { input: { agentId: "agt_second", entity: "ent_2" } },
    "game.removePlayer": { input: { agentId: "caller" } },
    "game.players": { input: {} },
    "game.status": { input: {} },
    "game.start": { input: {} },
    "game.win": { input: { reason: "matrix" } },
    "game.lose": { input: { reason: "matrix" } },
  },
};
