// Conversations between agents: NPC↔NPC or player↔NPC, any number of
// participants taking turns in order. Each turn is one of the speaker's
// decisions narrowed to the conversation (a Focus): its prompt adds who it
// is talking with, what it remembers of them and the conversation so far,
// and offers `social.say` (the line: a speech bubble above the speaker, its
// voice where the process has one, a `social.said` event) and
// `end_conversation`. Each line said is remembered by every participant
// that is an NPC (the games' NPC memory: world state, so replay and
// snapshots keep it), and an NPC speaker's prompt carries a bounded summary
// of its memories of the others. The next speaker starts once the line has
// been said and had time to be read (ticks by its length), so a
// conversation with the scripted provider runs the same at every run.
// Participants in a conversation make no other decisions until it ends.

import { z } from "zod";
import { engineError } from "../../../crates/limina-ops/js/errors.ts";
import { npcs } from "../game/api.ts";
import type { Tracer } from "../observability/tracer.ts";
import type { SkillTool } from "../skills/registry.ts";
import type { WorldSession } from "../world-session.ts";
import type { DecisionSystem } from "./decision.ts";
import type { Focus } from "./discovery.ts";
import type { PerceptionSystem } from "./perception.ts";
import type { AgentRecord, AgentRegistry } from "./registry.ts";

export const END_CONVERSATION = "end_conversation";
/** Lines of the conversation a speaker's prompt carries (the latest). */
const TRANSCRIPT_LINES = 12;
/** Memories of each other participant in an NPC speaker's summary, and the summary's length. */
const MEMORIES_PER_PARTNER = 4;
const SUMMARY_CHARS = 600;
/** A failed turn is tried again this many times, then the conversation ends. */
const TURN_RETRIES = 2;

export const ConversationSpec = z.strictObject({
  /** Agent ids, in speaking order; each must inhabit an entity. */
  participants: z.array(z.string().regex(/^agt_[A-Za-z0-9_-]+$/)).min(2).max(8),
  topic: z.string().max(300).default(""),
  /** Lines said at most before the conversation ends by itself. */
  maxTurns: z.number().int().min(1).max(200).default(8),
});
export type ConversationSpec = z.input<typeof ConversationSpec>;

export interface Line {
  tick: number;
  speaker: string;
  text: string;
}

export type ConversationState = "talking" | "ended";

export interface Conversation {
  id: string;
  participants: string[];
  topic: string;
  maxTurns: number;
  lines: Line[];
  state: ConversationState;
  /** Why it ended: "turns", "ended by agt_…", "failed: …", "participant left". */
  endReason: string | null;
}

interface Turn {
  speaker: AgentRecord;
  decisionId: string | null;
  /** The line the decision queued, once it did. */
  queued: string | null;
}

interface Live {
  c: Conversation;
  turn: Turn | null;
  /** The tick the next turn may start. */
  nextTick: number;
  /** Turns failed in a row. */
  failures: number;
}

const END_TOOL: SkillTool = {
  name: END_CONVERSATION,
  description: "End this conversation (say goodbye with social.say first if you like).",
  inputSchema: { type: "object", properties: { reason: { type: "string" } }, additionalProperties: false },
};

let conversations = 0;

/** How long a line stays up before the next speaker begins: about 15 characters a second, 1.5–6 s. */
export const readingTicks = (text: string) => Math.min(360, Math.max(90, Math.ceil((text.length / 15) * 60)));

export class Conversations {
  private readonly live = new Map<string, Live>();
  private readonly ended: Conversation[] = [];
  private readonly toRemember: { c: Conversation; speaker: AgentRecord; text: string }[] = [];
  private disposed = false;

  constructor(
    private readonly session: WorldSession,
    private readonly agents: AgentRegistry,
    private readonly perception: PerceptionSystem,
    private readonly decision: DecisionSystem,
    private readonly tracer: Tracer,
  ) {
    tracer.subscribe((e) => {
      if (e.type !== "skill.executed" && e.type !== "skill.failed") return;
      const p = e.payload as { skill?: string; decisionId?: string; input?: { text?: string } };
      if (p.skill !== "social.say" || !p.decisionId) return;
      for (const entry of this.live.values()) {
        const turn = entry.turn;
        if (turn?.decisionId !== p.decisionId) continue;
        if (e.type === "skill.executed") this.said(entry, turn, String(p.input?.text ?? turn.queued ?? ""));
        else this.failed(entry, turn, `social.say failed: ${(e.payload as { message?: string }).message ?? ""}`);
      }
    });
  }

  /** Starts a conversation; its first speaker begins on the next tick. */
  start(spec: ConversationSpec): Conversation {
    const parsed = ConversationSpec.safeParse(spec);
    if (!parsed.success) throw engineError("invalid_input", `conversation: ${z.prettifyError(parsed.error)}`);
    const s = parsed.data;
    if (new Set(s.participants).size !== s.participants.length) throw engineError("invalid_input", "a participant is named twice");
    for (const id of s.participants) {
      const a = this.agents.get(id);
      if (!a) throw engineError("not_found", `no agent ${id}`);
      if (a.entityId === undefined) throw engineError("invalid_input", `${id} inhabits no entity: it has nowhere to speak from`);
      if (a.conversation !== null) throw engineError("invalid_input", `${id} is already in ${a.conversation}`);
    }
    const c: Conversation = { id: `conv_${++conversations}`, participants: s.participants, topic: s.topic, maxTurns: s.maxTurns, lines: [], state: "talking", endReason: null };
    for (const id of c.participants) this.agents.get(id)!.conversation = c.id;
    this.live.set(c.id, { c, turn: null, nextTick: this.session.tick + 1, failures: 0 });
    this.tracer.emit("conversation.started", { conversation: c.id, participants: c.participants, topic: c.topic, maxTurns: c.maxTurns }, { actorId: c.participants[0] });
    return c;
  }

  /** A conversation by id, live or ended. */
  get(id: string): Conversation | undefined {
    return this.live.get(id)?.c ?? this.ended.find((c) => c.id === id);
  }

  /** Ends a conversation now. */
  end(id: string, reason: string): void {
    const entry = this.live.get(id);
    if (!entry) return;
    const { c } = entry;
    this.live.delete(id);
    c.state = "ended";
    c.endReason = reason;
    this.ended.push(c);
    if (this.ended.length > 64) this.ended.shift();
    for (const pid of c.participants) {
      const a = this.agents.get(pid);
      if (a?.conversation === id) a.conversation = null;
    }
    this.tracer.emit("conversation.ended", { conversation: id, reason, lines: c.lines.length }, { actorId: c.participants[0] });
  }

  /** Stops pacing: conversations in progress go no further, and nothing more is remembered (the world is closing). */
  dispose(): void {
    this.disposed = true;
    this.toRemember.length = 0;
  }

  /** On the fixed step: the NPCs remember the lines said since the last, then the turns that are due start. */
  async tick(tick: number): Promise<void> {
    if (this.disposed) return;
    for (const { c, speaker, text } of this.toRemember.splice(0)) await this.remember(c, speaker, text);
    if (this.disposed) return;
    for (const entry of [...this.live.values()]) {
      const { c } = entry;
      if (entry.turn !== null || tick < entry.nextTick) continue;
      if (c.participants.some((id) => this.agents.get(id) === undefined)) {
        this.end(c.id, "participant left");
        continue;
      }
      const speaker = this.agents.get(c.participants[c.lines.length % c.participants.length])!;
      if (speaker.inFlight) continue;
      this.perception.build([speaker], tick);
      const turn: Turn = { speaker, decisionId: null, queued: null };
      entry.turn = turn;
      turn.decisionId = this.decision.startFocused(speaker, tick, this.focus(entry, turn));
      if (turn.decisionId === null) entry.turn = null;
    }
  }

  private focus(entry: Live, turn: Turn): Focus {
    const { c } = entry;
    return {
      purpose: "conversation",
      skills: ["social.say"],
      tools: [END_TOOL],
      context: this.context(c, turn.speaker),
      settled: (outcome) => {
        if (entry.turn !== turn || !this.live.has(c.id)) return;
        if ("error" in outcome) return this.failed(entry, turn, outcome.error);
        if (outcome.calls.some((k) => k.tool === END_CONVERSATION)) return this.end(c.id, `ended by ${turn.speaker.id}`);
        const say = outcome.calls.find((k) => k.tool === "social.say");
        if (!say) return this.failed(entry, turn, "the turn said nothing");
        turn.queued = String((say.input as { text?: unknown }).text ?? "");
      },
    };
  }

  /** The speaker's situation: the others, its memories of them (an NPC's), the conversation so far. */
  private context(c: Conversation, speaker: AgentRecord): string {
    const others = c.participants.filter((id) => id !== speaker.id).map((id) => this.agents.get(id)!);
    const parts = [`You are in a conversation with ${others.map((o) => this.nameOf(o)).join(", ")}${c.topic ? ` about: ${c.topic}` : ""}.`];
    const memory = this.memorySummary(speaker, others);
    if (memory) parts.push(`What you remember of them:\n${memory}`);
    const recent = c.lines.slice(-TRANSCRIPT_LINES);
    parts.push(recent.length === 0 ? "Nobody has spoken yet: you begin." : `The conversation so far:\n${recent.map((l) => `${this.nameOf(this.agents.get(l.speaker))}: ${l.text}`).join("\n")}`);
    parts.push(`Say your next line with social.say (one or two short sentences, in your own voice), or call ${END_CONVERSATION} when the conversation is over.`);
    return parts.join("\n\n");
  }

  /** An NPC speaker's memories of the others, newest first, bounded in count and length; null for others. */
  private memorySummary(speaker: AgentRecord, others: AgentRecord[]): string | null {
    const npc = speaker.entityId;
    if (npc === undefined || !this.session.game.npcs.all.has(npc)) return null;
    const lines: string[] = [];
    for (const o of others) {
      if (o.entityId === undefined) continue;
      const attitude = npcs.attitude(this.session, npc, o.entityId);
      const memories = npcs.recall(this.session, npc, { about: o.entityId, limit: MEMORIES_PER_PARTNER });
      lines.push(`- ${this.nameOf(o)} (your attitude ${attitude} of −100…100): ${memories.length === 0 ? "nothing yet" : memories.map((m) => m.text).join(" / ")}`);
    }
    const text = lines.join("\n");
    return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 1)}…` : text;
  }

  private nameOf(agent: AgentRecord | undefined): string {
    if (!agent) return "someone";
    const npc = agent.entityId !== undefined ? this.session.game.npcs.all.get(agent.entityId) : undefined;
    return npc?.name ?? agent.id;
  }

  /** The turn's line was said: record it, let the NPCs remember it, schedule the next speaker. */
  private said(entry: Live, turn: Turn, text: string): void {
    const { c } = entry;
    const tick = this.session.tick;
    c.lines.push({ tick, speaker: turn.speaker.id, text });
    entry.turn = null;
    entry.failures = 0;
    entry.nextTick = tick + readingTicks(text);
    this.tracer.emit("conversation.turn", { conversation: c.id, speaker: turn.speaker.id, turn: c.lines.length, text }, { actorId: turn.speaker.id });
    // Remembered at the next tick, outside the call that said it.
    this.toRemember.push({ c, speaker: turn.speaker, text });
    if (c.lines.length >= c.maxTurns) this.end(c.id, "turns");
  }

  /** Each NPC participant remembers the line (through the npc.remember skill: world state, in the world log). */
  private async remember(c: Conversation, speaker: AgentRecord, text: string): Promise<void> {
    const name = this.nameOf(speaker);
    for (const id of c.participants) {
      const a = this.agents.get(id);
      const npc = a?.entityId;
      if (npc === undefined || !this.session.game.npcs.all.has(npc)) continue;
      const own = id === speaker.id;
      try {
        await npcs.remember(this.session, npc, own ? text : `${name}: ${text}`, own ? { kind: "said" } : { kind: "heard", about: speaker.entityId });
      } catch (e) {
        // An NPC removed meanwhile remembers nothing; the conversation goes on.
        this.tracer.emit("conversation.memory.failed", { conversation: c.id, npc, error: (e as Error).message }, { actorId: id });
      }
    }
  }

  /** A turn that failed is tried again a little later, up to TURN_RETRIES times in a row; then the conversation ends. */
  private failed(entry: Live, turn: Turn, error: string): void {
    const { c } = entry;
    entry.turn = null;
    entry.failures++;
    this.tracer.emit("conversation.turn.failed", { conversation: c.id, speaker: turn.speaker.id, error, failures: entry.failures }, { actorId: turn.speaker.id });
    if (entry.failures > TURN_RETRIES) return this.end(c.id, `failed: ${error}`);
    entry.nextTick = this.session.tick + 60 * entry.failures;
  }
}
