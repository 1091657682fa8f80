// Identities a client may name: agent ids (and session labels) are compared
// in a canonical form — NFKC, case-folded, with invisible characters
// removed — so `Operator`, `SYSTEM`, `ｏperator` or `operator` + U+200B are
// the reserved `operator` and `system`, and `Alice` is the live `alice`.
// Ids with invisible or control characters are refused outright: an id is
// something a person reads in the world log.

/** Agent ids no client may take: the engine's own actor, and the operator's. */
export const RESERVED_AGENT_IDS: readonly string[] = ["system", "operator"];

const INVISIBLE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/gu;

/** The form two ids are compared in: NFKC, invisible characters removed, case-folded. */
export function canonicalId(id: string): string {
  // Upper then lower folds what lowercasing alone keeps apart (ß and SS, ﬁ and FI).
  return id.normalize("NFKC").replace(INVISIBLE, "").toUpperCase().toLowerCase().normalize("NFKC");
}

/** Whether `a` and `b` name the same identity. */
export function sameId(a: string, b: string): boolean {
  return canonicalId(a) === canonicalId(b);
}

/**
 * Why a client may not name `id` (null: it may): an id with invisible or
 * control characters, or one that is, or reads as, a reserved id.
 */
export function refusedId(id: string): string | null {
  INVISIBLE.lastIndex = 0;
  if (INVISIBLE.test(id)) return `${JSON.stringify(id)} holds invisible or control characters`;
  const reserved = RESERVED_AGENT_IDS.find((r) => sameId(r, id));
  if (reserved === undefined) return null;
  return reserved === id ? `${id} is reserved for the engine` : `${JSON.stringify(id)} reads as ${reserved}, which is reserved for the engine`;
}

/** `id` with invisible and control characters removed (what a standard client's software name becomes). */
export function visibleId(id: string): string {
  return id.replace(INVISIBLE, "");
}

/** Who holds a live identity: an agent id and the session it acts in. */
export interface Holder {
  agentId: string;
  sessionId: string;
}

/**
 * The agent ids live in a world — MCP sessions' and loaded packages' — and
 * the sessions holding them, compared in canonical form: no one may take an
 * id another live session holds, or one that reads as it.
 */
export class LiveIdentities {
  private readonly held = new Map<string, Holder>();

  /** The live holder of `agentId`, or of an id that reads as it (null: none). */
  holderOf(agentId: string): Holder | null {
    return this.held.get(canonicalId(agentId)) ?? null;
  }

  /** Claims `agentId` for `sessionId`; returns the function that releases it. Throws when it is held. */
  claim(agentId: string, sessionId: string): () => void {
    const key = canonicalId(agentId);
    const holder = this.held.get(key);
    if (holder !== undefined) throw new Error(`agent id ${agentId} is held by session ${holder.sessionId}`);
    const mine = { agentId, sessionId };
    this.held.set(key, mine);
    return () => {
      if (this.held.get(key) === mine) this.held.delete(key);
    };
  }
}
