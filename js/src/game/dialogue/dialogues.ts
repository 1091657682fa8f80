// Dialogue trees: nodes an NPC (or the player) speaks, with choices that
// appear only when their condition holds and effects on entering a node or
// picking a choice (offer a quest, give an item, change an attitude …);
// and each player's conversation in progress. The NPC's lines show as
// speech bubbles; what the player chose goes into the NPC's memory. The
// world resource `game.dialogue`.

import { z } from "zod";
import { engineError } from "../../../../crates/limina-ops/js/errors.ts";
import type { Game } from "../game.ts";
import { Condition, EffectList, EntityRef, Id } from "../rules/schemas.ts";
import { parseSaved } from "../saved.ts";
import { checkRoom, fill } from "../state/state.ts";

export const Choice = z.strictObject({
  id: Id,
  text: z.string().min(1).max(200),
  when: Condition.optional().describe("offered only while this holds (the player is actor, the NPC npc)"),
  effects: EffectList.default([]),
  next: Id.optional().describe("the node it leads to (none: the conversation ends)"),
});

export const Node = z.strictObject({
  speaker: z.enum(["npc", "player"]).default("npc"),
  text: z.string().min(1).max(280),
  effects: EffectList.default([]).describe("on entering the node"),
  choices: z.array(Choice).max(16).default([]),
  next: Id.optional().describe("without choices: where `continue` leads (none: the conversation ends here)"),
});

export const DialogueDef = z.strictObject({
  id: Id,
  start: Id,
  nodes: z.record(Id, Node).refine((n) => Object.keys(n).length >= 1 && Object.keys(n).length <= 256, "1 to 256 nodes"),
});
export type DialogueDef = z.output<typeof DialogueDef>;

export interface Conversation {
  dialogue: string;
  npc: string;
  node: string;
  /** Nodes visited, in order. */
  path: string[];
}

const ConversationSave = z.strictObject({ dialogue: Id, npc: EntityRef, node: Id, path: z.array(Id) });
const Saved = z.strictObject({ defs: z.array(DialogueDef), conversations: z.array(z.tuple([EntityRef, ConversationSave])) });
type Saved = z.infer<typeof Saved>;

/** What a player sees of a conversation: who says what, and the choices open to them now. */
export interface View {
  dialogue: string;
  npc: string;
  node: string;
  speaker: "npc" | "player";
  text: string;
  choices: { id: string; text: string }[];
  ended: boolean;
}

export const CONTINUE = "continue";

export class Dialogues {
  readonly defs = new Map<string, DialogueDef>();
  /** Player entity → its conversation in progress. */
  readonly conversations = new Map<string, Conversation>();

  constructor(private readonly game: Game) {}

  save(): Saved {
    return { defs: [...this.defs.values()], conversations: [...this.conversations].map(([p, c]) => [p, { ...c, path: [...c.path] }]) };
  }

  load(saved: Saved | null): void {
    const s = saved === null ? null : parseSaved(Saved, saved, "game.dialogue");
    fill(this.defs, s?.defs.map((d) => [d.id, d]));
    fill(this.conversations, s?.conversations.map(([p, c]) => [p, { ...c, path: [...c.path] }]));
  }

  prune(alive: (id: string) => boolean): void {
    for (const [p, c] of [...this.conversations]) if (!alive(p) || !alive(c.npc)) this.conversations.delete(p);
  }

  define(def: DialogueDef): { created: boolean } {
    checkRoom(this.defs, def.id, "dialogues");
    const nodes = def.nodes;
    if (!(def.start in nodes)) throw engineError("invalid_input", `dialogue ${def.id} starts at ${def.start}, which is not one of its nodes`);
    for (const [id, n] of Object.entries(nodes)) {
      for (const to of [n.next, ...n.choices.map((c) => c.next)]) {
        if (to !== undefined && !(to in nodes)) throw engineError("invalid_input", `dialogue ${def.id}: node ${id} leads to ${to}, which is not one of its nodes`);
      }
      const ids = n.choices.map((c) => c.id);
      if (new Set(ids).size !== ids.length || ids.includes(CONTINUE)) throw engineError("invalid_input", `dialogue ${def.id}: node ${id}'s choice ids must be unique and not "${CONTINUE}"`);
    }
    const created = !this.defs.has(def.id);
    this.defs.set(def.id, def);
    return { created };
  }

  undefine(id: string): void {
    this.require(id);
    const talking = [...this.conversations].filter(([, c]) => c.dialogue === id).map(([p]) => p);
    if (talking.length > 0) throw engineError("invalid_input", `dialogue ${id} is in progress with ${talking.join(", ")}`);
    this.defs.delete(id);
  }

  require(id: string): DialogueDef {
    const def = this.defs.get(id);
    if (!def) throw engineError("not_found", `no dialogue ${JSON.stringify(id)} (dialogue.define makes one)`);
    return def;
  }

  /** Starts talking with `npc` (its own dialogue unless one is named); within its talk range. */
  start(player: string, npcEntity: string, dialogue?: string): View {
    const npc = this.game.npcs.require(npcEntity);
    if (player === npcEntity) throw engineError("invalid_input", `${player} cannot talk to itself`);
    const id = dialogue ?? npc.dialogue;
    if (id === undefined) throw engineError("invalid_input", `${npc.name} (${npcEntity}) has nothing to say: no dialogue`);
    const def = this.require(id);
    const d = this.game.distance(player, npcEntity);
    if (d > npc.talkRange) throw engineError("invalid_input", `${npc.name} is ${d.toFixed(2)} m away; come within ${npc.talkRange} m to talk`);
    const current = this.conversations.get(player);
    if (current) throw engineError("invalid_input", `${player} is already talking with ${current.npc} (dialogue.end first)`);
    checkRoom(this.conversations, player, "conversations");
    const c: Conversation = { dialogue: def.id, npc: npcEntity, node: def.start, path: [] };
    this.conversations.set(player, c);
    this.game.signal("dialogue.started", { actor: player, npc: npcEntity, dialogue: def.id });
    this.game.npcs.remember(npcEntity, { kind: "event", text: `${player} started talking with me`, about: player });
    return this.enter(player, c, def.start);
  }

  /** Picks one of the choices open now (or `continue` on a node without choices that leads on). */
  choose(player: string, choice: string): View {
    const c = this.conversation(player);
    const def = this.require(c.dialogue);
    const node = def.nodes[c.node];
    const ctx = { actor: player, npc: c.npc };
    if (choice === CONTINUE && node.choices.length === 0 && node.next !== undefined) {
      this.game.signal("dialogue.chose", { actor: player, npc: c.npc, dialogue: c.dialogue, node: c.node, choice });
      return this.enter(player, c, node.next);
    }
    const picked = this.open(node, ctx).find((x) => x.id === choice);
    if (!picked) throw engineError("invalid_input", `"${choice}" is not a choice open at ${c.dialogue}/${c.node}; open: ${this.choicesOf(node, ctx).map((x) => x.id).join(", ") || "none"}`);
    this.game.signal("dialogue.chose", { actor: player, npc: c.npc, dialogue: c.dialogue, node: c.node, choice });
    this.game.npcs.remember(c.npc, { kind: "heard", text: `${player}: ${picked.text}`, about: player });
    this.game.apply(picked.effects, ctx);
    if (!this.conversations.has(player)) return this.view(player, c, true);
    if (picked.next === undefined) return this.end(player);
    return this.enter(player, c, picked.next);
  }

  end(player: string): View {
    const c = this.conversation(player);
    this.conversations.delete(player);
    this.game.signal("dialogue.ended", { actor: player, npc: c.npc, dialogue: c.dialogue, node: c.node });
    return this.view(player, c, true);
  }

  current(player: string): View | null {
    const c = this.conversations.get(player);
    return c ? this.view(player, c, false) : null;
  }

  private conversation(player: string): Conversation {
    const c = this.conversations.get(player);
    if (!c) throw engineError("invalid_input", `${player} is not in a conversation (dialogue.start begins one)`);
    return c;
  }

  private open(node: z.output<typeof Node>, ctx: { actor: string; npc: string }) {
    return node.choices.filter((ch) => !ch.when || this.game.check(ch.when, ctx));
  }

  private choicesOf(node: z.output<typeof Node>, ctx: { actor: string; npc: string }): { id: string; text: string }[] {
    const open = this.open(node, ctx).map((ch) => ({ id: ch.id, text: ch.text }));
    if (open.length === 0 && node.choices.length === 0 && node.next !== undefined) return [{ id: CONTINUE, text: "…" }];
    return open;
  }

  /** Enters a node: its effects, the NPC's line; a node that leads nowhere ends the conversation. */
  private enter(player: string, c: Conversation, nodeId: string): View {
    const def = this.require(c.dialogue);
    const node = def.nodes[nodeId];
    c.node = nodeId;
    c.path.push(nodeId);
    if (c.path.length > 256) c.path.splice(0, c.path.length - 256);
    const ctx = { actor: player, npc: c.npc };
    if (node.speaker === "npc") this.game.npcs.say(c.npc, node.text);
    this.game.signal("dialogue.node", { actor: player, npc: c.npc, dialogue: c.dialogue, node: nodeId });
    this.game.apply(node.effects, ctx);
    if (!this.conversations.has(player)) return this.view(player, c, true);
    if (this.choicesOf(node, ctx).length === 0) return this.end(player);
    return this.view(player, c, false);
  }

  private view(player: string, c: Conversation, ended: boolean): View {
    const node = this.require(c.dialogue).nodes[c.node];
    return { dialogue: c.dialogue, npc: c.npc, node: c.node, speaker: node.speaker, text: node.text, choices: ended ? [] : this.choicesOf(node, { actor: player, npc: c.npc }), ended };
  }
}
