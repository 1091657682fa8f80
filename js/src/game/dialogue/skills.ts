// dialogue.* and npc.* skills: conversation trees and the people they are
// held with — their persona, attitudes, memory and routines.

import { z } from "zod";
import type { SkillDefinition } from "../../skills/registry.ts";
import type { Game } from "../game.ts";
import { EntityRef, Id } from "../rules/schemas.ts";
import { skill, gameSkills } from "../skill.ts";
import { DialogueDef } from "./dialogues.ts";
import { Attitude, Memory, NpcSpec, RoutineSpec } from "./npcs.ts";

const ViewSchema = z.object({
  dialogue: z.string(),
  npc: z.string(),
  node: z.string(),
  speaker: z.enum(["npc", "player"]),
  text: z.string(),
  choices: z.array(z.object({ id: z.string(), text: z.string() })),
  ended: z.boolean(),
});
const NpcView = z.object({
  npc: z.string(),
  name: z.string(),
  persona: z.string(),
  dialogue: z.string().nullable(),
  attitude: z.number(),
  attitudes: z.record(z.string(), z.number()),
  memories: z.number(),
  routine: z.object({ waypoints: z.number(), at: z.number(), loop: z.boolean(), done: z.boolean() }).nullable(),
});

const dialogueDefineOutput = z.object({ dialogue: z.string(), created: z.boolean() });
const dialogueRemoveInput = z.strictObject({ dialogue: Id });
const dialogueRemoveOutput = z.object({ removed: z.boolean() });
const dialogueGetInput = z.strictObject({ dialogue: Id });
const dialogueGetOutput = z.object({ dialogue: z.unknown() });
const dialogueListInput = z.strictObject({});
const dialogueListOutput = z.object({ dialogues: z.array(z.object({ dialogue: z.string(), nodes: z.number() })), conversations: z.array(z.object({ player: z.string(), npc: z.string(), dialogue: z.string(), node: z.string() })) });
const dialogueStartInput = z.strictObject({ npc: EntityRef, dialogue: Id.optional().describe("a tree other than the NPC's own") });
const dialogueChooseInput = z.strictObject({ choice: Id });
const dialogueEndInput = z.strictObject({});
const dialogueCurrentInput = z.strictObject({ entity: EntityRef });
const dialogueCurrentOutput = z.object({ conversation: ViewSchema.nullable() });
const npcDefineInput = NpcSpec.extend({ entity: EntityRef });
const npcRemoveInput = z.strictObject({ npc: EntityRef });
const npcRemoveOutput = z.object({ removed: z.boolean() });
const npcGetInput = z.strictObject({ npc: EntityRef });
const npcListInput = z.strictObject({});
const npcListOutput = z.object({ npcs: z.array(z.object({ npc: z.string(), name: z.string() })) });
const npcRememberInput = z.strictObject({ npc: EntityRef, text: z.string().min(1).max(500), about: EntityRef.optional(), kind: z.enum(["said", "heard", "event", "note"]).default("note") });
const npcRecallInput = z.strictObject({ npc: EntityRef, about: EntityRef.optional(), kind: z.enum(["said", "heard", "event", "note"]).optional(), text: z.string().max(200).optional(), since: z.number().int().min(0).optional(), limit: z.number().int().min(1).max(200).default(20) });
const npcRecallOutput = z.object({ memories: z.array(Memory) });
const npcForgetInput = z.strictObject({ npc: EntityRef, about: EntityRef.optional() });
const npcForgetOutput = z.object({ forgotten: z.number() });
const npcSetAttitudeInput = z.strictObject({ npc: EntityRef, toward: EntityRef, value: Attitude });
const npcSetAttitudeOutput = z.object({ attitude: z.number() });
const npcAdjustAttitudeInput = z.strictObject({ npc: EntityRef, toward: EntityRef, by: z.number().min(-200).max(200) });
const npcAdjustAttitudeOutput = z.object({ attitude: z.number() });
const npcSetRoutineInput = RoutineSpec.extend({ npc: EntityRef });
const npcClearRoutineInput = z.strictObject({ npc: EntityRef });
const npcClearRoutineOutput = z.object({ cleared: z.boolean() });
const npcSayInput = z.strictObject({ text: z.string().min(1).max(280) });
const npcSayOutput = z.object({ npc: z.string(), handle: z.string() });

export function dialogueSkills(game: Game): SkillDefinition[] {
  const { dialogues, npcs } = game;
  const npcView = (entity: string) => {
    const n = npcs.require(entity);
    return {
      npc: entity,
      name: n.name,
      persona: n.persona,
      dialogue: n.dialogue ?? null,
      attitude: n.attitude,
      attitudes: Object.fromEntries(n.attitudes),
      memories: n.memory.length,
      routine: n.routine ? { waypoints: n.routine.waypoints.length, at: n.routine.index, loop: n.routine.loop, done: n.routine.done } : null,
    };
  };
  return gameSkills(game, { module: import.meta.url, factory: "dialogueSkills" }, [
    skill({
      name: "dialogue.define",
      description: "Define a dialogue tree: nodes the NPC (or player) speaks, choices shown only when their condition holds, effects on entering a node or picking a choice (offer a quest, give an item, change attitude, set a flag).",
      access: "define",
      input: DialogueDef,
      output: dialogueDefineOutput,
      handler: (def) => ({ dialogue: def.id, ...dialogues.define(def) }),
    }),
    skill({
      name: "dialogue.remove",
      description: "Remove a dialogue tree nobody is in.",
      access: "define",
      input: dialogueRemoveInput,
      output: dialogueRemoveOutput,
      handler: ({ dialogue }) => {
        dialogues.undefine(dialogue);
        return { removed: true };
      },
    }),
    skill({
      name: "dialogue.get",
      description: "A dialogue tree's definition.",
      access: "read",
      input: dialogueGetInput,
      output: dialogueGetOutput,
      handler: ({ dialogue }) => ({ dialogue: dialogues.require(dialogue) }),
    }),
    skill({
      name: "dialogue.list",
      description: "The dialogue trees, and who is in a conversation now.",
      access: "read",
      input: dialogueListInput,
      output: dialogueListOutput,
      handler: () => ({
        dialogues: [...dialogues.defs.values()].map((d) => ({ dialogue: d.id, nodes: Object.keys(d.nodes).length })),
        conversations: [...dialogues.conversations].map(([player, c]) => ({ player, npc: c.npc, dialogue: c.dialogue, node: c.node })),
      }),
    }),
    skill({
      name: "dialogue.start",
      description: "Talk to an NPC near the entity you play: start a conversation (its dialogue tree); its first line shows as a speech bubble; returns the line and the choices open to you.",
      access: "act",
      input: dialogueStartInput,
      output: ViewSchema,
      handler: ({ npc, dialogue }, call) => dialogues.start(call.actor(), npc, dialogue),
    }),
    skill({
      name: "dialogue.choose",
      description: "Pick one of the choices open in your conversation (\"continue\" where a line leads on): its effects happen, the NPC remembers it, the conversation moves on or ends.",
      access: "act",
      input: dialogueChooseInput,
      output: ViewSchema,
      handler: ({ choice }, call) => dialogues.choose(call.actor(), choice),
    }),
    skill({
      name: "dialogue.end",
      description: "Walk away from your conversation.",
      access: "act",
      input: dialogueEndInput,
      output: ViewSchema,
      handler: (_input, call) => dialogues.end(call.actor()),
    }),
    skill({
      name: "dialogue.current",
      description: "An entity's conversation in progress: the line and the choices open now (null when none).",
      access: "read",
      input: dialogueCurrentInput,
      output: dialogueCurrentOutput,
      handler: ({ entity }) => ({ conversation: dialogues.current(entity) }),
    }),
    skill({
      name: "npc.define",
      description: "Make an entity an NPC: name, persona, the dialogue talking to it starts, its default attitude, how near one must be to talk. Its memory, attitudes and routine are world state.",
      access: "define",
      input: npcDefineInput,
      output: NpcView,
      handler: ({ entity, ...spec }) => {
        npcs.define(entity, spec);
        return npcView(entity);
      },
    }),
    skill({
      name: "npc.remove",
      description: "Make an entity no longer an NPC (its memory and attitudes go with it).",
      access: "define",
      input: npcRemoveInput,
      output: npcRemoveOutput,
      handler: ({ npc }) => ({ removed: npcs.remove(npc) }),
    }),
    skill({
      name: "npc.get",
      description: "An NPC: name, persona, dialogue, default attitude and its attitude toward each entity it has one for, how much it remembers, its routine.",
      access: "read",
      input: npcGetInput,
      output: NpcView,
      handler: ({ npc }) => npcView(npc),
    }),
    skill({
      name: "npc.list",
      description: "The NPCs in the world.",
      access: "read",
      input: npcListInput,
      output: npcListOutput,
      handler: () => ({ npcs: [...npcs.all].map(([npc, n]) => ({ npc, name: n.name })) }),
    }),
    skill({
      name: "npc.remember",
      description: "Add a memory to an NPC (what it saw, heard or concluded, optionally about an entity); it keeps the newest 200. Dialogue choices, gifts and harm are remembered on their own.",
      access: "define",
      input: npcRememberInput,
      output: Memory,
      handler: ({ npc, text, about, kind }) => npcs.remember(npc, { text, about: about ?? null, kind }),
    }),
    skill({
      name: "npc.recall",
      description: "What an NPC remembers, newest first: all of it, or about an entity, of a kind, containing words, since a tick.",
      access: "read",
      input: npcRecallInput,
      output: npcRecallOutput,
      handler: ({ npc, ...q }) => ({ memories: npcs.recall(npc, q) }),
    }),
    skill({
      name: "npc.forget",
      description: "Make an NPC forget everything, or what it remembers about one entity; returns how many memories went.",
      access: "define",
      input: npcForgetInput,
      output: npcForgetOutput,
      handler: ({ npc, about }) => ({ forgotten: npcs.forget(npc, about) }),
    }),
    skill({
      name: "npc.setAttitude",
      description: "Set an NPC's attitude toward an entity (−100 hostile … 100 devoted); dialogue choices can depend on it.",
      access: "define",
      input: npcSetAttitudeInput,
      output: npcSetAttitudeOutput,
      handler: ({ npc, toward, value }) => ({ attitude: npcs.setAttitude(npc, toward, value) }),
    }),
    skill({
      name: "npc.adjustAttitude",
      description: "Shift an NPC's attitude toward an entity by an amount (kept within −100 … 100).",
      access: "define",
      input: npcAdjustAttitudeInput,
      output: npcAdjustAttitudeOutput,
      handler: ({ npc, toward, by }) => ({ attitude: npcs.adjustAttitude(npc, toward, by) }),
    }),
    skill({
      name: "npc.setRoutine",
      description: "Give an NPC a routine: waypoints it walks between (facing where it goes), waiting ticks at each, looping or once.",
      access: "define",
      input: npcSetRoutineInput,
      output: NpcView,
      handler: ({ npc, ...spec }) => {
        npcs.setRoutine(npc, spec);
        return npcView(npc);
      },
    }),
    skill({
      name: "npc.clearRoutine",
      description: "Stop an NPC's routine where it stands.",
      access: "define",
      input: npcClearRoutineInput,
      output: npcClearRoutineOutput,
      handler: ({ npc }) => ({ cleared: npcs.clearRoutine(npc) }),
    }),
    skill({
      name: "npc.say",
      description: "Speak a line as the NPC you play (an agent voicing an NPC, e.g. with an LLM's words): a speech bubble above it, remembered by it. Emits npc.said.",
      access: "act",
      input: npcSayInput,
      output: npcSayOutput,
      handler: ({ text }, call) => {
        const npc = call.actor();
        npcs.require(npc);
        return { npc, handle: npcs.say(npc, text) };
      },
    }),
  ]);
}
