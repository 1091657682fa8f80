// Compact JSON Schemas for tool listings: the same language of inputs in
// fewer bytes, so a catalog of hundreds of skills fits a model's context.
// Every rewrite keeps the set of accepted inputs exactly the same:
// - a tuple whose elements share one schema is an array of that schema
//   with its length fixed (the bounds stated once, not per element);
// - a subschema that occurs more than once becomes one `$defs` entry that
//   each occurrence `$ref`s;
// - optionally, annotations that do not validate (`description`,
//   `examples`, `title`) go: the skill's full contract keeps them
//   (`skills.describe`).

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

export interface CompactOptions {
  /** Drop `description`, `title` and `examples` inside the schema. */
  annotations?: boolean;
  /** Drop `$schema` (MCP's default dialect is 2020-12 when none is named). */
  dialect?: boolean;
  /** Hoist repeated subschemas of at least this many bytes into `$defs` (0: never). */
  hoistBytes?: number;
}

const ANNOTATIONS = new Set(["description", "title", "examples", "default"]);
/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
/** Keywords whose value is one schema. */
const SCHEMA_ONE = new Set(["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems"]);

const isSchema = (v: Json | undefined): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** `schema` compacted; the input is not modified. */
export function compactSchema(schema: unknown, options: CompactOptions = {}): unknown {
  if (!isSchema(schema as Json)) return schema;
  let out = rewrite(schema as Schema, options);
  if (options.dialect) delete out.$schema;
  if ((options.hoistBytes ?? 0) > 0) out = hoist(out, options.hoistBytes!);
  return out;
}

/** Annotations dropped and uniform tuples collapsed, bottom-up. */
function rewrite(schema: Schema, options: CompactOptions): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (options.annotations && ANNOTATIONS.has(key)) continue;
    if (SCHEMA_MAPS.has(key) && isSchema(value)) {
      const map: Schema = {};
      for (const [name, sub] of Object.entries(value)) map[name] = isSchema(sub) ? rewrite(sub, options) : sub;
      out[key] = map;
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((sub) => (isSchema(sub) ? rewrite(sub, options) : sub));
    } else if (SCHEMA_ONE.has(key) && isSchema(value)) {
      out[key] = rewrite(value, options);
    } else {
      out[key] = value;
    }
  }
  return collapseTuple(out);
}

/**
 * `prefixItems: [A, A, A]` with `items: false` (or draft-07's `items: [A,
 * A, A]` with `additionalItems: false`) and the length fixed at 3 is
 * `items: A` with the same length: the same arrays, one copy of A.
 */
function collapseTuple(s: Schema): Schema {
  const modern = Array.isArray(s.prefixItems) && s.items === false;
  const draft7 = Array.isArray(s.items) && s.additionalItems === false;
  if (!modern && !draft7) return s;
  const elements = (modern ? s.prefixItems : s.items) as Json[];
  const n = elements.length;
  if (n === 0 || s.maxItems !== n) return s;
  const first = JSON.stringify(elements[0]);
  if (s.minItems !== n || !elements.every((e) => JSON.stringify(e) === first)) {
    // maxItems already ends the array after its last element: `items: false`
    // adds nothing (and a draft-07 reader, ignoring prefixItems, would take it to forbid every item).
    if (!modern) return s;
    const { items: _, ...rest } = s;
    return rest;
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(s)) {
    if (key === "prefixItems" || key === "additionalItems") continue;
    out[key] = key === "items" ? elements[0] : value;
  }
  if (modern) out.items = elements[0];
  return out;
}

/**
 * Subschemas that occur more than once (by their JSON text, at least
 * `minBytes` long) move to `$defs`, named after the first property that
 * holds one, and every occurrence becomes a `$ref`. Larger ones go first,
 * so a repeated schema inside a repeated schema is shared too.
 */
function hoist(root: Schema, minBytes: number): Schema {
  const counts = new Map<string, { n: number; name: string }>();
  const visit = (s: Schema, name: string, top: boolean) => {
    if (!top) {
      const text = JSON.stringify(s);
      if (text.length >= minBytes) {
        const c = counts.get(text);
        if (c) c.n++;
        else counts.set(text, { n: 1, name });
      }
    }
    forEachSub(s, (sub, subName) => visit(sub, subName ?? name, false));
  };
  visit(root, "def", true);
  const shared = [...counts].filter(([, c]) => c.n > 1).sort((a, b) => b[0].length - a[0].length);
  if (shared.length === 0) return root;
  const defs: Schema = isSchema(root.$defs) ? { ...root.$defs } : {};
  const names = new Map<string, string>();
  for (const [text, c] of shared) {
    let name = c.name.replace(/[^A-Za-z0-9_]/g, "") || "def";
    for (let i = 2; Object.hasOwn(defs, name) || [...names.values()].includes(name); i++) name = `${c.name}${i}`;
    names.set(text, name);
    defs[name] = null;
  }
  const replace = (s: Schema, top: boolean): Schema => {
    if (!top) {
      const name = names.get(JSON.stringify(s));
      if (name !== undefined) return { $ref: `#/$defs/${name}` };
    }
    return mapSubs(s, (sub) => replace(sub, false));
  };
  for (const [text, name] of names) defs[name] = mapSubs(JSON.parse(text) as Schema, (sub) => replace(sub, false));
  const out = replace(root, true);
  out.$defs = defs;
  return out;
}

function forEachSub(s: Schema, fn: (sub: Schema, name?: string) => void): void {
  for (const [key, value] of Object.entries(s)) {
    if (SCHEMA_MAPS.has(key) && key !== "$defs" && isSchema(value)) {
      for (const [name, sub] of Object.entries(value)) if (isSchema(sub)) fn(sub, name);
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      for (const sub of value) if (isSchema(sub)) fn(sub);
    } else if (SCHEMA_ONE.has(key) && isSchema(value)) {
      fn(value);
    }
  }
}

function mapSubs(s: Schema, fn: (sub: Schema) => Schema): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(s)) {
    if (SCHEMA_MAPS.has(key) && key !== "$defs" && isSchema(value)) {
      const map: Schema = {};
      for (const [name, sub] of Object.entries(value)) map[name] = isSchema(sub) ? fn(sub) : sub;
      out[key] = map;
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((sub) => (isSchema(sub) ? fn(sub) : sub));
    } else if (SCHEMA_ONE.has(key) && isSchema(value)) {
      out[key] = fn(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/**
 * A description's first sentence (detail stays in the full contract); past
 * `max` characters, cut at the last clause break (" — ", ": ", " (", ", ")
 * or word before it, ending in "…".
 */
export function oneLine(description: string, max = Infinity): string {
  const m = /^(.+?[.!?])(\s|$)/s.exec(description.trim());
  const line = (m ? m[1] : description.trim()).replace(/\s+/g, " ");
  if (line.length <= max) return line;
  const head = line.slice(0, max - 1);
  // Break only outside parentheses, so no "(" is left open.
  let depth = 0;
  let clause = -1;
  let word = -1;
  for (let i = 0; i < head.length; i++) {
    if (head[i] === "(") depth++;
    else if (head[i] === ")") depth = Math.max(0, depth - 1);
    if (depth > 0 && head[i] !== "(") continue;
    if (head.startsWith(" — ", i) || head.startsWith(": ", i) || head.startsWith(" (", i) || head.startsWith(", ", i)) clause = i;
    if (head[i] === " ") word = i;
  }
  const cut = clause >= max / 2 ? clause : word > 0 ? word : max - 1;
  return `${head.slice(0, cut).replace(/[\s,;:]+$/, "")}…`;
}

/**
 * An outline of an object schema: every top-level property with its type
 * (and its enum or const) and what is required — nothing nested. It accepts everything `schema` accepts (a superset: no
 * valid input is refused by it) and says at a glance what to send; the
 * skill still validates every call exactly, and its full schema is one
 * `skills.describe` away.
 */
export function outlineSchema(schema: unknown): unknown {
  if (!isSchema(schema as Json)) return schema;
  const s = rewrite(schema as Schema, {});
  if (s.type !== "object" || !isSchema(s.properties)) return {};
  const out: Schema = { type: "object" };
  const properties: Schema = {};
  for (const [name, sub] of Object.entries(s.properties)) properties[name] = isSchema(sub) ? outlineValue(sub) : {};
  out.properties = properties;
  if (Array.isArray(s.required) && s.required.length > 0) out.required = s.required;
  return out;
}

/** Short enums stay (they are what a model most needs); longer ones become their type. */
const OUTLINE_ENUM = 12;

/** A value's outline: its JSON type(s), an enum or const, nothing nested. */
function outlineValue(s: Schema): Schema {
  if (Object.hasOwn(s, "const")) return { const: s.const };
  if (Array.isArray(s.enum) && s.enum.length <= OUTLINE_ENUM) return { enum: s.enum };
  const types = typesOf(s);
  if (types === null) return {};
  const out: Schema = { type: types.length === 1 ? types[0] : types };
  if (types.length === 1 && types[0] === "array" && isSchema(s.items)) {
    const item = typesOf(s.items);
    if (item !== null && item.every((t) => t !== "object" && t !== "array")) out.items = { type: item.length === 1 ? item[0] : item };
  }
  return out;
}

/** The JSON types a schema admits, or null when it cannot say (then anything goes). */
function typesOf(s: Schema): string[] | null {
  if (typeof s.type === "string") return s.type === "integer" ? ["integer"] : [s.type];
  if (Array.isArray(s.type)) return s.type.filter((t): t is string => typeof t === "string");
  if (Object.hasOwn(s, "const")) return [jsonType(s.const)];
  if (Array.isArray(s.enum)) return [...new Set(s.enum.map(jsonType))];
  const branches = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : null) as Json[] | null;
  if (branches) {
    const all = new Set<string>();
    for (const b of branches) {
      const t = isSchema(b) ? typesOf(b) : null;
      if (t === null) return null;
      for (const x of t) all.add(x);
    }
    // An integer branch beside a number one is a number.
    if (all.has("number")) all.delete("integer");
    return [...all];
  }
  return null;
}

function jsonType(v: Json): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v === "number" ? "number" : typeof v;
}
