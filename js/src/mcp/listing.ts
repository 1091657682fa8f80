// The standard MCP `tools/list`: compact tools, paginated.
// - Compact: each tool's description is the first sentence of its skill's
//   (at most 100 characters), and its input schema the skill's, made compact
//   without changing what it accepts (uniform tuples as one item schema,
//   repeated shapes as `$defs`, no annotations, no `$schema`: MCP's default
//   dialect is 2020-12). A tool whose compact entry would still pass 300
//   bytes is listed with an outline of its input instead: every top-level
//   property with its type, enum or const, and what is required — a
//   superset that refuses no valid call; the skill validates every call
//   exactly, and `skills.describe` gives the whole contract.
// - Paginated: `cursor` / `nextCursor` as MCP allows, pages of `pageSize`
//   tools (0: one page). A cursor names the listing it came from; once the
//   tools change it is refused as stale and the client lists again.
// - Listings: `full` (every tool) or `core` (a builder's core set and the
//   discovery skills), chosen per request by `_meta["io.limina/listing"]`
//   or for every request by the operator.

import { compactSchema, oneLine, outlineSchema } from "../skills/compact-schema.ts";
import { inputSchema, type SkillRegistry } from "../skills/registry.ts";
import { RpcError } from "./jsonrpc.ts";
import { JSONRPC } from "./protocol.ts";

/** The `_meta` keys a `tools/list` request may carry. */
export const LISTING_KEY = "io.limina/listing";
export const SCHEMAS_KEY = "io.limina/schemas";

export type Listing = "full" | "core";
/** `compact` (default): exact when small, else an outline; `exact`: every schema compact but exact; `full`: the skills' own schemas and descriptions. */
export type SchemaDetail = "compact" | "exact" | "full";

/** A compact tool entry past this many bytes is listed with its outline. */
export const OUTLINE_ABOVE = 300;
/** The longest listed description (the whole one: skills.describe). */
export const DESCRIPTION_MAX = 100;
export const DEFAULT_PAGE_SIZE = 100;

/**
 * The core listing: what an external builder with a small context window
 * starts from — finding and reading skills, then building and looking.
 */
export const CORE_TOOLS: readonly string[] = Object.freeze([
  "skills.search",
  "skills.describe",
  "skills.list",
  "scene.createEntity",
  "scene.queryEntities",
  "scene.destroyEntity",
  "three.setTransform",
  "three.setMaterial",
  "three.setLighting",
  "camera.set",
  "physics.applyImpulse",
  "inspector.snapshot",
  "trace.tail",
]);

export interface McpTool {
  name: string;
  description: string;
  inputSchema: unknown;
}

export interface ListingOptions {
  /** Tools per page (0: all on one page). */
  pageSize: number;
  /** The listing a request gets when it asks for none. */
  listing: Listing;
}

export class ToolListing {
  /** Entries by skill, then detail, and each skill's 2020-12 input schema: built when first listed (Zod can take a while to convert a large schema). */
  private readonly entries = new Map<string, Map<SchemaDetail, McpTool>>();
  private readonly schemas = new Map<string, unknown>();
  /** Bumped whenever the skills change: cursors of older listings are stale. */
  private version = 0;

  constructor(private readonly registry: SkillRegistry, readonly options: ListingOptions) {
    if (!(Number.isInteger(options.pageSize) && options.pageSize >= 0)) throw new TypeError(`tools page size must be a whole number ≥ 0, got ${options.pageSize}`);
    registry.onChange(() => {
      this.entries.clear();
      this.schemas.clear();
      this.version++;
    });
  }

  /** `name`'s entry at `detail`. */
  private entry(name: string, detail: SchemaDetail): McpTool {
    let byDetail = this.entries.get(name);
    if (!byDetail) this.entries.set(name, (byDetail = new Map()));
    let tool = byDetail.get(detail);
    if (!tool) {
      const skill = this.registry.get(name)!;
      let schema = this.schemas.get(name);
      if (schema === undefined) this.schemas.set(name, (schema = inputSchema(skill, "draft-2020-12")));
      tool = entry({ name, description: skill.description, inputSchema: schema }, detail);
      byDetail.set(detail, tool);
    }
    return tool;
  }

  /** Every tool at `detail`, in registration order. */
  tools(detail: SchemaDetail = "compact"): McpTool[] {
    return this.registry.all().map((s) => this.entry(s.name, detail));
  }

  /** A `tools/list` result for `params` (`cursor`, `_meta`). Throws INVALID_PARAMS for a bad or stale cursor or option. */
  page(params: Record<string, unknown>): { tools: McpTool[]; nextCursor?: string } {
    const meta = (typeof params._meta === "object" && params._meta !== null ? params._meta : {}) as Record<string, unknown>;
    const listing = option(meta[LISTING_KEY], ["full", "core"], LISTING_KEY) ?? this.options.listing;
    const detail = option(meta[SCHEMAS_KEY], ["compact", "exact", "full"], SCHEMAS_KEY) ?? "compact";
    let names = this.registry.all().map((s) => s.name);
    if (listing === "core") names = names.filter((n) => CORE_TOOLS.includes(n));
    let offset = 0;
    if (params.cursor !== undefined && params.cursor !== null) offset = this.decode(params.cursor, listing, detail);
    const size = this.options.pageSize || names.length;
    const page = names.slice(offset, offset + size).map((n) => this.entry(n, detail));
    const next = offset + size;
    return next < names.length ? { tools: page, nextCursor: this.encode(next, listing, detail) } : { tools: page };
  }

  /** Opaque to clients: the listing's version, where the next page starts, and the listing it belongs to. */
  private encode(offset: number, listing: Listing, detail: SchemaDetail): string {
    return `tools.${this.version}.${offset}.${listing}.${detail}`;
  }

  private decode(cursor: unknown, listing: Listing, detail: SchemaDetail): number {
    const bad = (why: string) => new RpcError(JSONRPC.INVALID_PARAMS, `Invalid params: cursor ${why}`);
    const m = typeof cursor === "string" ? /^tools\.(\d{1,9})\.(\d{1,9})\.(full|core)\.(compact|exact|full)$/.exec(cursor) : null;
    if (!m || Number(m[2]) < 1) throw bad("must be a nextCursor this server gave");
    if (Number(m[1]) !== this.version) throw bad("is stale: the tools changed since it was given (notifications/tools/list_changed); list again from the start");
    if (m[3] !== listing || m[4] !== detail) throw bad(`belongs to another listing (${m[3]}, ${m[4]} schemas); ask with the same _meta as the first page`);
    return Number(m[2]);
  }
}

function option<T extends string>(value: unknown, allowed: readonly T[], key: string): T | undefined {
  if (value === undefined || value === null) return undefined;
  if (!allowed.includes(value as T)) throw new RpcError(JSONRPC.INVALID_PARAMS, `Invalid params: _meta["${key}"] must be one of ${allowed.join(", ")}`);
  return value as T;
}

/** A skill's tool entry at `detail`. */
function entry(t: { name: string; description: string; inputSchema: unknown }, detail: SchemaDetail): McpTool {
  if (detail === "full") return { name: t.name, description: t.description, inputSchema: t.inputSchema };
  const description = oneLine(t.description, DESCRIPTION_MAX);
  const exact = { name: t.name, description, inputSchema: compactSchema(t.inputSchema, { annotations: true, dialect: true, hoistBytes: 40 }) };
  if (detail === "exact" || JSON.stringify(exact).length <= OUTLINE_ABOVE) return exact;
  return { name: t.name, description, inputSchema: outlineSchema(t.inputSchema) };
}
