// The MCP JSON-RPC server over the native transports (stdio, WebSocket,
// Streamable HTTP). Every connection (an HTTP session) is its own session,
// except under the stateless revision (2026-07-28, see modern.ts): a
// connection whose first request carries that revision's envelope serves
// every request on its own, as the operator, and so does each stateless
// HTTP POST (an "exchange"). Messages are applied as soon as they
// arrive, one at a time, in one total order (the world log's): each
// connection's in the order it sent them, connections taking turns
// round-robin. The host calls `apply` between frames, never inside a step,
// and each reply is sent the moment its call has been applied, so it
// precedes the next step's state delta.
//
// Ordering with async handlers: messages are applied one at a time. A call
// whose handler awaits real I/O (a `three.loadGLTF` reading its file) holds
// every later message back until it has finished; fixed steps go on
// meanwhile, and its effects land when its continuation runs, which is
// also between frames. So each call still sees every earlier call applied
// and none of the later ones.
//
// The world is made on first need: the handshake (initialize, ping,
// logging, discovery) is protocol alone and is answered without it, and the
// first request that needs the world (tools/list, tools/call, state…) waits
// for it, in its place in the order. If nothing needs it first, it is made
// in the first idle moment after a reply. Protocol events logged before the
// world exists (connections, sessions, refusals) go into its world log, in
// order, once it does; a world that could not be made fails each request
// that needs it with a JSON-RPC error, and the server goes on serving.

import { broadcast, send, sendToolText, takeEvents, type HubEvent, type RoutingHeaders, type Transport } from "../../../crates/limina-mcp/js/hub.ts";
import { onArrivals, onFixedStep, wakeArrivals } from "../loop.ts";
import type { EmitOptions, EngineEvent } from "../observability/tracer.ts";
import type { WorldSession } from "../world-session.ts";
import { type Id, RpcError, error, notification, parseRequest, type Request, result } from "./jsonrpc.ts";
import { ListenStreams } from "./listen.ts";
import { DEFAULT_PAGE_SIZE, type Listing, ToolListing } from "./listing.ts";
import { levelOf, levelRank, LOG_LEVELS, logMessage } from "./logging.ts";
import { Mcp } from "./mcp.ts";
import { checkRequest, hasEnvelope, MODERN_VERSIONS, modernResult, unsupportedVersion } from "./modern.ts";
import { JSONRPC, mcpErrorToJsonRpc, type MCPResponse } from "./protocol.ts";
import { canonicalId, LiveIdentities, RESERVED_AGENT_IDS, refusedId, visibleId } from "../policy/identity.ts";
import { PROFILES, resolveProfile } from "../skills/profiles.ts";
import { illFormed } from "../skills/well-formed.ts";
import { StateSync } from "./state-sync.ts";
import { characterAnimation, worldLookFeed } from "../web/world-look.ts";
import { SPECTATOR } from "../web/spectator.ts";

/** MCP protocol revisions a standard client may ask for, newest first. */
export const STANDARD_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/** Who stateless requests act as: the operator that started the server (and holds its token). */
const OPERATOR = "operator";
const INSTRUCTIONS = "Limina world server: every tool is a permission-checked, traced skill. Listed schemas are compact (large ones outlined): skills.describe gives a skill's whole contract, skills.search finds skills by words.";
/** A request answered later, by a stream (`subscriptions/listen`), not by a reply now. */
const STREAMING = Symbol("streaming");
/** Events taken from the transports at a time; the rest wait there, under their flow control. */
const BATCH = 64;
/** The agent id of a standard client that names no software. */
const ANONYMOUS_CLIENT = "mcp-client";
/** Methods answered by the protocol alone, before the world exists. */
const WITHOUT_WORLD = new Set(["initialize", "notifications/initialized", "notifications/cancelled", "ping", "logging/setLevel", "shutdown", "server/discover"]);

/** What serving needs of the world once it exists. */
interface Served {
  session: WorldSession;
  sync: StateSync;
  listing: ToolListing;
}

interface Connection {
  conn: number;
  peer: string;
  transport: Transport;
  /** "spectator": a browser that presented no token; it may take only the spectator profile. */
  access: "full" | "spectator";
  mcp: Mcp;
  /** "limina": initialize named {agentId, sessionId, profile}; "standard": an MCP SDK client (either revision). */
  mode: "limina" | "standard" | null;
  /** Decided by the first request: "modern" when it carries the stateless envelope, "legacy" (initialize sessions) otherwise. */
  era: "legacy" | "modern" | null;
  /** A stateless HTTP POST's routing headers, checked against its body. */
  routing: RoutingHeaders | null;
  /** What a Limina-dialect client called its session (the id is the server's). */
  label: string | null;
  /** Releases the agent id its session holds. */
  release: (() => void) | null;
  /** The least severe log level the client asked for with `logging/setLevel`; -1: no log messages. */
  logRank: number;
}

export interface McpServerOptions {
  /**
   * The operator's profile: standard MCP clients run under it, and over a
   * network (WebSocket, HTTP) it is the ceiling — a Limina client may name a profile only if
   * every permission of it is in this one. Over stdio the spawning process
   * is the operator and may name any profile.
   */
  profile: string;
  /** Called when a connection ends (stdio uses it to exit). */
  onClose?: (conn: number, reason: string) => void;
  /** Standard `tools/list` pages hold this many tools (0: all; default 100). */
  toolsPageSize?: number;
  /** The listing standard clients get when they ask for none (default `full`). */
  toolsListing?: Listing;
  /** Where the state stream is published for relays too (`--spectator-sink`). */
  sink?: (text: string) => void;
}

/** Makes the world a server serves; called once, when the server first needs it. */
export type WorldMaker = (identities: LiveIdentities) => Promise<WorldSession>;

export class McpServer {
  private readonly conns = new Map<number, Connection>();
  /** Events taken from the transports and not yet applied. */
  private batch: HubEvent[] = [];
  private next = 0;
  private draining = false;
  /** Connections that asked for log messages. */
  private logListeners = 0;
  private toolsChangePending = false;
  /** When the current arrivals call's budget runs out (the loop thread's CPU time, ms). */
  private deadline = 0;
  /** Per transport, the operator's session that stateless requests run under. */
  private readonly operator = new Map<Transport, Mcp>();
  private readonly listens = new ListenStreams();
  /** Session ids issued so far: every session's id is the server's, and none is ever issued twice. */
  private issued = 0;
  /** The agent ids live sessions hold: the world's own, handed to it when it is made (handshakes check them before). */
  private readonly identities = new LiveIdentities();
  private served: Served | null = null;
  private serving: Promise<Served> | null = null;
  private idleSoon = false;
  /** The first reply once the world existed is out: start-up is over. */
  private settled = false;
  /** Protocol events logged before the world existed: they go into its world log once it does. */
  private early: [string, Record<string, unknown>, EmitOptions | undefined][] = [];

  constructor(private readonly makeWorld: WorldMaker, private readonly options: McpServerOptions) {
    onArrivals((budgetMs) => this.apply(budgetMs));
  }

  /** The world served, made now if it was not yet (once: a failure is every later caller's too). */
  world(): Promise<WorldSession> {
    this.serving ??= this.makeWorld(this.identities).then((session) => this.attach(session));
    return this.serving.then((s) => s.session);
  }

  private attach(session: WorldSession): Served {
    const sync = new StateSync(session.entities, session.spatial, { scene: worldLookFeed(session), sink: this.options.sink, animation: characterAnimation(session) });
    const listing = new ToolListing(session.registry, { pageSize: this.options.toolsPageSize ?? DEFAULT_PAGE_SIZE, listing: this.options.toolsListing ?? "full" });
    onFixedStep((_dt, step) => sync.tick(step));
    session.tracer.subscribe((event) => this.log(event), () => this.logListeners > 0);
    session.registry.onChange(() => this.toolsChanged());
    this.served = { session, sync, listing };
    for (const [type, payload, options] of this.early) session.tracer.emit(type, payload, options);
    this.early = [];
    sync.clients(this.conns.size);
    return this.served;
  }

  /** What a request that needs the world is served from; a world that could not be made fails it. */
  private async needWorld(): Promise<Served> {
    try {
      await this.world();
    } catch (e) {
      throw new RpcError(JSONRPC.INTERNAL_ERROR, `Internal error: the world could not be built: ${e instanceof Error ? e.message : String(e)}`);
    }
    return this.served!;
  }

  /**
   * Once a reply is out: the world is made in the next idle moment, if
   * nothing has asked for it by then; the first reply once it exists ends
   * start-up, and what building it touched need not stay resident.
   */
  private replied(): void {
    if (this.settled) return;
    if (this.served) {
      this.settled = true;
      Limina.startUpOver();
      return;
    }
    if (this.serving || this.idleSoon) return;
    this.idleSoon = true;
    // A failure is reported to the requests that need the world.
    setTimeout(() => void this.world().catch(() => {}), 0);
  }

  /** Logs a protocol event in the world log (kept until the world exists). */
  private emit(type: string, payload: Record<string, unknown>, options?: EmitOptions): void {
    if (this.served) this.served.session.tracer.emit(type, payload, options);
    else this.early.push([type, payload, options]);
  }

  /** The ids of the connections open now. */
  connectionIds(): number[] {
    return [...this.conns.keys()];
  }

  /** Sends a world-log event to the standard clients whose log level it meets. */
  private log(event: EngineEvent): void {
    const rank = levelRank(levelOf(event));
    const to: number[] = [];
    for (const c of this.conns.values()) if (c.logRank >= 0 && rank >= c.logRank) to.push(c.conn);
    if (to.length > 0) broadcast(to, notification("notifications/message", logMessage(event)), true);
  }

  /** Tells standard clients the tool list changed, once per burst of changes (a reload, a package registering many). */
  private toolsChanged(): void {
    if (this.toolsChangePending) return;
    this.toolsChangePending = true;
    queueMicrotask(() => {
      this.toolsChangePending = false;
      const to = [...this.conns.values()].filter((c) => c.mode === "standard" && c.era === "legacy" && c.mcp.currentSession).map((c) => c.conn);
      if (to.length > 0) broadcast(to, notification("notifications/tools/list_changed", {}), false);
      this.listens.toolsChanged();
    });
  }

  /**
   * Applies arrived messages for up to `budgetMs` of the loop thread's CPU
   * time: a machine busy with other work does not cut a drain short, and a
   * call that takes long still ends it (its CPU counts).
   */
  private apply(budgetMs: number): void {
    this.deadline = Limina.loop.cpuMs() + budgetMs;
    // While a call awaits real I/O, the messages after it wait for it.
    if (!this.draining) void this.drain();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      for (;;) {
        if (this.next === this.batch.length) {
          this.batch = takeEvents(BATCH);
          this.next = 0;
          if (this.batch.length === 0) return;
        }
        if (Limina.loop.cpuMs() >= this.deadline) {
          // Out of budget: the host runs a due frame first, then calls again.
          wakeArrivals();
          return;
        }
        const e = this.batch[this.next++];
        if (e.kind === "message") await this.message(e.conn, e.text);
        else if (e.kind === "adopted") await this.adopt(e.conn, e.text, e.reply);
        else if (e.kind === "exchange") await this.exchange(e);
        else this.control(e);
      }
    } finally {
      this.draining = false;
    }
  }

  private async message(conn: number, text: string): Promise<void> {
    const c = this.conns.get(conn);
    if (!c) return;
    const reply = await this.handle(c, text);
    if (reply !== null) {
      sendReply(conn, reply);
      this.replied();
    }
  }

  /**
   * A stdio client's first message, which the host answered with `sent`
   * before this server ran (see `nativeHandshake`): handled as any message,
   * so the session and its events are the same; its reply is not sent again.
   */
  private async adopt(conn: number, text: string, sent: string): Promise<void> {
    const c = this.conns.get(conn);
    if (!c) return;
    const reply = await this.handle(c, text);
    if (reply !== sent) console.error(`limina: the host answered the first initialize with ${sent}, the server with ${reply}: please report this`);
    this.replied();
  }

  /** One stateless HTTP request: answered, then forgotten (the transport ends the connection with the reply). */
  private async exchange(e: Extract<HubEvent, { kind: "exchange" }>): Promise<void> {
    const c: Connection = { conn: e.conn, peer: e.peer, transport: "http", access: "full", mcp: this.operatorOn("http"), mode: "standard", era: "modern", routing: e.routing, label: null, release: null, logRank: -1 };
    const reply = await this.handle(c, e.text);
    if (reply !== null) sendReply(e.conn, reply);
  }

  /** The operator's session on `transport`, opened on first use: its identity and profile are the server's, never a request's. */
  private operatorOn(transport: Transport): Mcp {
    let mcp = this.operator.get(transport);
    if (!mcp) {
      mcp = this.mcp();
      mcp.initialize({ agentId: OPERATOR, sessionId: `stateless-${transport}`, profile: this.options.profile });
      this.operator.set(transport, mcp);
      this.emit("mcp.session.opened", { mode: "stateless", transport, agentId: OPERATOR, sessionId: `stateless-${transport}`, profile: this.options.profile }, { actorId: OPERATOR, threadId: `stateless-${transport}` });
    }
    return mcp;
  }

  /** A session endpoint over the world's skills, bound before the world exists (it calls only once it does). */
  private mcp(): Mcp {
    return new Mcp(() => this.served!.session.registry);
  }

  private control(e: Exclude<HubEvent, { kind: "message" | "adopted" | "exchange" }>): void {
    switch (e.kind) {
      case "open":
        this.conns.set(e.conn, { conn: e.conn, peer: e.peer, transport: e.transport, access: e.access, mcp: this.mcp(), mode: null, era: null, routing: null, label: null, release: null, logRank: -1 });
        this.emit("mcp.connection.opened", { conn: e.conn, peer: e.peer, transport: e.transport, access: e.access });
        this.served?.sync.clients(this.conns.size);
        break;
      case "rejected":
        send(e.conn, error(null, e.reason.includes("UTF-8") ? JSONRPC.PARSE_ERROR : JSONRPC.INVALID_REQUEST, `Invalid Request: ${e.reason}`), false);
        break;
      case "close":
        this.closed(e.conn, e.reason);
        break;
    }
  }

  private closed(conn: number, reason: string): void {
    this.listens.closed(conn);
    const c = this.conns.get(conn);
    if (!c) return; // a stateless exchange (its listen stream ended): it left no session behind
    if (c.logRank >= 0) this.logListeners--;
    c.release?.();
    this.conns.delete(conn);
    this.served?.sync.unsubscribe(conn);
    this.served?.sync.clients(this.conns.size);
    this.emit("mcp.connection.closed", {
      conn,
      reason,
      agentId: c.mcp.currentSession?.agentId ?? null,
      sessionId: c.mcp.currentSession?.sessionId ?? null,
    });
    this.options.onClose?.(conn, reason);
  }

  get connections(): number {
    return this.conns.size;
  }

  /** One message → its reply (null for notifications). Never throws. */
  private async handle(c: Connection, text: string): Promise<string | ToolText | null> {
    let req: Request;
    try {
      req = parseRequest(text);
      const bad = illFormed(req.params, "params");
      if (bad !== null) throw new RpcError(JSONRPC.INVALID_PARAMS, `Invalid params: ${bad}`, undefined, req.id);
    } catch (e) {
      const r = e as RpcError;
      return error(r.id, r.code, r.message);
    }
    try {
      if (!this.served && !WITHOUT_WORLD.has(req.method)) await this.needWorld();
      const value = c.era === "modern" || this.opensModern(c, req) ? await this.dispatchModern(c, req) : await this.dispatch(c, req);
      if (!req.hasId || value === STREAMING) return null;
      if (!(value instanceof ToolText)) return result(req.id, value);
      value.id = req.id;
      return value;
    } catch (e) {
      if (!req.hasId) return null;
      if (e instanceof RpcError) return error(req.id, e.code, e.message, e.data);
      return error(req.id, JSONRPC.INTERNAL_ERROR, `Internal error: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /**
   * Settles a connection's era at its first request, as the official SDKs
   * do: one carrying the stateless envelope (and not `initialize`) makes it
   * modern, to be served as the operator from then on; anything else makes
   * it legacy. Notifications before it decide nothing.
   */
  private opensModern(c: Connection, req: Request): boolean {
    if (c.era !== null || !req.hasId) return false;
    if (c.access === "spectator" && req.method !== "initialize") {
      this.refuse(c, "token", `this connection presented no token: it may only initialize the ${SPECTATOR} profile`);
    }
    if (req.method === "initialize" || !hasEnvelope(req.params)) {
      c.era = "legacy";
      return false;
    }
    c.era = "modern";
    c.mode = "standard";
    c.mcp = this.operatorOn(c.transport);
    return true;
  }

  /** A request under the stateless revision: the ladder, then the revision's methods (ping, logging and sessions are gone). */
  private async dispatchModern(c: Connection, req: Request): Promise<unknown> {
    const p = req.params as Record<string, unknown>;
    if (!req.hasId) {
      // The revision's one client notification: cancelling a request, which only a listen stream outlives.
      if (req.method === "notifications/cancelled") this.listens.cancel(c.conn, p.requestId);
      return null;
    }
    if (req.method === "initialize") {
      throw unsupportedVersion(p.protocolVersion, `this connection serves protocol ${MODERN_VERSIONS.at(-1)}: the initialize handshake is not accepted on it`);
    }
    checkRequest(req.method, p, c.routing);
    switch (req.method) {
      case "server/discover":
        return modernResult({ supportedVersions: MODERN_VERSIONS, capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS, ttlMs: 0, cacheScope: "private" });
      case "tools/list":
        return modernResult({ ...this.served!.listing.page(p), ttlMs: 0, cacheScope: "private" });
      case "tools/call":
        return modernResult((await this.callTool(c, p)) as Record<string, unknown>);
      case "subscriptions/listen":
        this.listens.listen(c.conn, req.id, p);
        return STREAMING;
      default:
        throw new RpcError(JSONRPC.METHOD_NOT_FOUND, `Method not found: ${req.method} (not served under protocol ${MODERN_VERSIONS.at(-1)})`);
    }
  }

  /** A legacy-era request's result, or its promise (a tool call): not an async function, so a call takes no extra turns of the microtask queue here. */
  private dispatch(c: Connection, req: Request): unknown {
    const p = req.params as Record<string, unknown>;
    if (req.method !== "initialize" && hasEnvelope(p)) {
      throw new RpcError(JSONRPC.INVALID_REQUEST, `Invalid Request: this connection serves initialize sessions; a request carrying the ${MODERN_VERSIONS.at(-1)} envelope is not accepted on it`);
    }
    switch (req.method) {
      case "initialize":
        return this.initialize(c, p);
      case "notifications/initialized":
      case "notifications/cancelled":
        return null;
      case "ping":
        return {};
      case "logging/setLevel":
        return this.setLogLevel(c, p);
      case "tools/list":
      case "listTools":
        return this.listTools(c, p);
      case "tools/call":
      case "callTool":
        return this.callTool(c, p, true);
      case "shutdown":
        c.release?.();
        c.release = null;
        c.mcp.shutdown();
        this.served?.sync.unsubscribe(c.conn);
        return { ok: true };
      case "state/subscribe":
      case "state/unsubscribe":
      case "aoi/declare":
        if (c.transport !== "ws") throw new RpcError(JSONRPC.METHOD_NOT_FOUND, `Method not found: ${req.method} is served over --mcp-ws`);
        if (!c.mcp.currentSession) throw new RpcError(JSONRPC.FORBIDDEN, "MCP session is not initialized");
        if (req.method === "state/subscribe") return this.served!.sync.subscribe(c.conn, p ?? {});
        if (req.method === "state/unsubscribe") return { ok: this.served!.sync.unsubscribe(c.conn) };
        return this.served!.sync.declareAoi(c.conn, p);
      default:
        throw new RpcError(JSONRPC.METHOD_NOT_FOUND, `Method not found: ${req.method}`);
    }
  }

  private initialize(c: Connection, p: Record<string, unknown>): unknown {
    if (typeof p.agentId === "string" || typeof p.sessionId === "string" || typeof p.profile === "string") {
      for (const key of ["agentId", "sessionId", "profile"]) {
        if (typeof p[key] !== "string" || (p[key] as string).length === 0) {
          throw new RpcError(JSONRPC.INVALID_PARAMS, `Invalid params: initialize needs a non-empty string ${key}`);
        }
      }
      // The client's sessionId is a label: the id is issued here, so no client can take another's (or the operator's).
      const [agentId, label, profile] = [p.agentId, p.sessionId, p.profile] as string[];
      if (!Object.hasOwn(PROFILES, profile)) {
        throw new RpcError(JSONRPC.INVALID_PARAMS, `Invalid params: unknown profile ${profile} (known: ${Object.keys(PROFILES).join(", ")})`);
      }
      this.refuseLive(c);
      if (c.access === "spectator" && profile !== SPECTATOR) {
        this.refuse(c, "token", `this connection presented no token: it may take only the ${SPECTATOR} profile, not ${profile}`, { agentId, profile });
      }
      if (c.transport !== "stdio") {
        const ceiling = resolveProfile(this.options.profile);
        const above = [...resolveProfile(profile)].filter((perm) => !ceiling.has(perm));
        if (above.length > 0) {
          this.refuse(c, "profile", `profile ${profile} grants ${above.join(", ")}, above this server's ceiling ${this.options.profile}`, { agentId, profile });
        }
      }
      const badAgent = refusedId(agentId);
      if (badAgent !== null) this.refuse(c, "agentId", `agent id ${badAgent}`, { agentId });
      const badLabel = refusedId(label);
      if (badLabel !== null) this.refuse(c, "sessionId", `session label ${badLabel}`, { sessionId: label });
      const holder = this.identities.holderOf(agentId)?.agentId;
      if (holder !== undefined) this.refuse(c, "agentId", `agent id ${agentId} ${holder === agentId ? "is" : `reads as ${holder}, which is`} in use by another live session`, { agentId });
      c.mode = "limina";
      c.label = label;
      const r = c.mcp.initialize({ agentId, sessionId: this.issueSessionId(), profile });
      c.release = this.identities.claim(agentId, r.session.sessionId);
      this.opened(c);
      return { ...r, session: { ...r.session, label } };
    }
    if (typeof p.protocolVersion !== "string") {
      throw new RpcError(JSONRPC.INVALID_PARAMS, "Invalid params: initialize needs {agentId, sessionId, profile} or a standard MCP {protocolVersion, capabilities, clientInfo}");
    }
    this.refuseLive(c);
    if (c.access === "spectator") this.refuse(c, "token", `this connection presented no token: it may take only the ${SPECTATOR} profile (initialize with {agentId, sessionId, profile: "${SPECTATOR}"})`);
    const client = (p.clientInfo ?? {}) as { name?: unknown };
    const software = typeof client.name === "string" ? visibleId(client.name) : "";
    const named = software.length > 0 ? software : ANONYMOUS_CLIENT;
    // A standard client only names its software: the server makes the id unique, and never a reserved one.
    const taken = (id: string) => this.identities.holderOf(id) !== null || refusedId(id) !== null;
    let agentId = named;
    for (let k = 0; taken(agentId); k++) agentId = `${named}#${c.conn}${k > 0 ? `.${k}` : ""}`;
    c.mode = "standard";
    const r = c.mcp.initialize({ agentId, sessionId: this.issueSessionId(), profile: this.options.profile });
    c.release = this.identities.claim(agentId, r.session.sessionId);
    this.opened(c);
    return initialized(STANDARD_VERSIONS.includes(p.protocolVersion) ? p.protocolVersion : STANDARD_VERSIONS[0], r.session);
  }

  private issueSessionId(): string {
    return sessionId(++this.issued);
  }

  /** Identity and permissions are bound for a session's life: no second initialize while it lives. */
  private refuseLive(c: Connection): void {
    const live = c.mcp.currentSession;
    if (live) {
      this.refuse(c, "reinitialize", `this connection's session is already initialized (agent ${live.agentId}, profile ${live.profile}); identity and profile cannot change while it lives`);
    }
  }

  /** Refuses a handshake with `forbidden`, recording a `security.handshake.refused` event. */
  private refuse(c: Connection, what: string, message: string, detail: Record<string, unknown> = {}): never {
    this.emit("security.handshake.refused", { conn: c.conn, peer: c.peer, what, reason: message, ...detail });
    throw new RpcError(JSONRPC.FORBIDDEN, message);
  }

  private opened(c: Connection): void {
    const s = c.mcp.currentSession!;
    this.emit("mcp.session.opened", { conn: c.conn, peer: c.peer, mode: c.mode, agentId: s.agentId, sessionId: s.sessionId, label: c.label, profile: s.profile }, { actorId: s.agentId, threadId: s.sessionId });
  }

  private listTools(c: Connection, p: Record<string, unknown>): unknown {
    if (c.mode === "standard") return this.served!.listing.page(p);
    return { tools: c.mcp.listTools() };
  }

  /** `logging/setLevel`: from now on the client gets the world log's events at `level` or above as `notifications/message`. */
  private setLogLevel(c: Connection, p: Record<string, unknown>): Record<string, never> {
    if (!c.mcp.currentSession) throw new RpcError(JSONRPC.FORBIDDEN, "MCP session is not initialized");
    const rank = levelRank(p.level);
    if (rank < 0) throw new RpcError(JSONRPC.INVALID_PARAMS, `Invalid params: level must be one of ${LOG_LEVELS.join(", ")}`);
    if (c.logRank < 0) this.logListeners++;
    c.logRank = rank;
    return {};
  }

  /**
   * A call's optional `context`: `causedBy` (event ids) links the call into
   * the caller's causal chain; `agentId`/`sessionId` may only restate the
   * session's own (identity is bound at initialize; the session may be named
   * by its id or its label); `previousResults` is the caller's own
   * bookkeeping and is accepted as is.
   */
  private callContext(c: Connection, raw: unknown): { causedBy?: string[] } | undefined {
    if (raw === undefined) return undefined;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new RpcError(JSONRPC.INVALID_PARAMS, "Invalid params: context must be an object");
    const ctx = raw as Record<string, unknown>;
    const s = c.mcp.currentSession;
    for (const key of ["agentId", "sessionId"] as const) {
      if (ctx[key] !== undefined && ctx[key] !== s?.[key] && !(key === "sessionId" && c.label !== null && ctx[key] === c.label)) {
        throw new RpcError(JSONRPC.INVALID_PARAMS, `Invalid params: context.${key} cannot differ from the session's (identity is bound at initialize)`);
      }
    }
    if (ctx.causedBy === undefined) return undefined;
    if (!Array.isArray(ctx.causedBy) || !ctx.causedBy.every((id) => typeof id === "string")) {
      throw new RpcError(JSONRPC.INVALID_PARAMS, "Invalid params: context.causedBy must be an array of event ids");
    }
    return { causedBy: ctx.causedBy as string[] };
  }

  /**
   * A tools/call (a bad request throws at once); `asText`: a standard client's successful result may
   * come back as a `ToolText` (see there).
   */
  private callTool(c: Connection, p: Record<string, unknown>, asText = false): Promise<unknown> {
    if (typeof p.name !== "string" || p.name.length === 0) throw new RpcError(JSONRPC.INVALID_PARAMS, "Invalid params: tools/call needs a string name");
    const args = p.arguments ?? {};
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      throw new RpcError(JSONRPC.INVALID_PARAMS, "Invalid params: arguments must be an object");
    }
    const context = this.callContext(c, p.context);
    return c.mcp.callTool({ tool: p.name, input: args as Record<string, unknown>, context }).then((response) => this.toolResult(c, response, asText));
  }

  /** What a tools/call answers, from its registry response. */
  private toolResult(c: Connection, response: MCPResponse, asText: boolean): unknown {
    if (c.mode === "standard") {
      if (response.success) {
        const value = response.result;
        const image = imageOf(value);
        if (image) return { content: [{ type: "image", data: image.data, mimeType: image.mimeType }, { type: "text", text: JSON.stringify(image.metadata) }], structuredContent: image.metadata, isError: false };
        const plain = typeof value === "object" && value !== null && !Array.isArray(value);
        const text = JSON.stringify(value);
        if (asText && typeof text === "string") return new ToolText(text, plain);
        return { content: [{ type: "text", text }], structuredContent: plain ? value : { result: value }, isError: false };
      }
      if (!c.mcp.currentSession) throw new RpcError(JSONRPC.FORBIDDEN, response.error!.message, response);
      return { content: [{ type: "text", text: `${response.error!.code}: ${response.error!.message}` }], isError: true };
    }
    if (!response.success) throw new RpcError(mcpErrorToJsonRpc(response.error!.code), response.error!.message, response);
    return response;
  }

}

/** The `n`th session id a server issues. */
function sessionId(n: number): string {
  return `mcp-${n}`;
}

/** A standard client's `initialize` result: the revision agreed on and its session. */
function initialized(version: string, session: ReturnType<Mcp["initialize"]>["session"]): Record<string, unknown> {
  return {
    protocolVersion: version,
    capabilities: { tools: { listChanged: true }, logging: {} },
    serverInfo: { name: "limina", version: Limina.version },
    instructions: INSTRUCTIONS,
    session,
  };
}

/**
 * What `limina --mcp-stdio` needs to answer a client's first standard
 * `initialize` before V8 has started (limina-mcp's handshake.rs; called when
 * the engine snapshot is made, and stored beside it): the revisions offered
 * (the preferred first), the reserved agent ids in canonical form, the agent
 * id of a client that names no software, and for each profile this server's
 * reply to the first session, with the request's id, the revision and the
 * agent id as marks to fill in. The host answers only a first `initialize`
 * whose answer is fully decided by these; the server then adopts it (`adopt`).
 */
export function nativeHandshake(): string {
  const replies: Record<string, string> = {};
  for (const profile of Object.keys(PROFILES)) {
    const { session } = new Mcp(() => {
      throw new Error("a handshake has no world");
    }).initialize({ agentId: "{{agentId}}", sessionId: sessionId(1), profile });
    replies[profile] = result("{{id}}", initialized("{{protocolVersion}}", session));
  }
  return JSON.stringify({ versions: STANDARD_VERSIONS, reserved: RESERVED_AGENT_IDS.map(canonicalId), anonymous: ANONYMOUS_CLIENT, replies });
}

/**
 * A standard client's successful tools/call result, serialised once: the
 * same value is both the text content and the structured content, so its
 * reply is written natively around that one JSON text (`sendToolText`) —
 * exactly the bytes `result(id, { content: [{ type: "text", text }], structuredContent, isError: false })` makes.
 */
class ToolText {
  /** The request's id, set once the call is answered. */
  id: Id = null;

  constructor(private readonly json: string, private readonly plain: boolean) {}

  send(conn: number): void {
    sendToolText(conn, JSON.stringify(this.id), this.json, this.plain);
  }
}

/** Queues a reply: its text, or a tool result's written natively. */
function sendReply(conn: number, reply: string | ToolText): void {
  if (typeof reply === "string") send(conn, reply, false);
  else reply.send(conn);
}

/**
 * A skill result that is an image (`render.capture`): base64 `png` with an
 * `image/…` mimeType. Standard clients get it as `image` content, its other
 * fields as structured metadata.
 */
function imageOf(value: unknown): { data: string; mimeType: string; metadata: Record<string, unknown> } | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  // Checked before the copy: every other result passes here too.
  const { png, mimeType } = value as Record<string, unknown>;
  if (typeof png !== "string" || typeof mimeType !== "string" || !mimeType.startsWith("image/")) return null;
  const { png: _, ...metadata } = value as Record<string, unknown>;
  return { data: png, mimeType, metadata };
}
