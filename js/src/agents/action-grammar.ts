// The JSON action grammar: how a model without native tool calling (or one
// whose skills are offered in the system message) writes the actions it
// takes. The grammar is strict — a reply is exactly one JSON value, alone or
// in one ```json fence, and nothing else:
//
//   reply   = actions | call | [call, …]
//   actions = {"actions": [call, …]}
//   call    = {"tool": "<skill id>", "input": {…}}        (input optional)
//           | {"name": "<skill id>", "arguments": {…} | "<JSON object>"}
//
// A skill id may be written as a function name ('.' as '__'). Anything else
// is malformed: the decision fails with the reason, and nothing is done.

import type { MCPRequest } from "../mcp/protocol.ts";

/** The grammar as the system message states it to a model. */
export const ACTION_GRAMMAR =
  'To act, reply with only this JSON and no other text: {"actions":[{"tool":"<skill id>","input":{…}}]} — one or more actions, each input matching its skill\'s input schema.';

/** Most actions one reply may carry (the scheduler caps what it queues further). */
const MAX_ACTIONS = 64;

export type Parsed = { ok: true; calls: MCPRequest[] } | { ok: false; error: string };

const FENCE = /^```(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;

/** A skill id as the model wrote it, back in the registry's spelling. */
export const fromFunctionName = (fn: string) => fn.replaceAll("__", ".");

/** Parses a reply's text by the grammar. */
export function parseActions(text: string): Parsed {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, error: "the reply is empty" };
  let body = trimmed;
  if (trimmed.startsWith("```")) {
    const fenced = FENCE.exec(trimmed);
    if (!fenced) return { ok: false, error: "a fenced reply must be one ```json block and nothing else" };
    body = fenced[1];
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    return { ok: false, error: `not JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  let list: unknown[];
  if (Array.isArray(value)) list = value;
  else if (isObject(value) && Object.hasOwn(value, "actions")) {
    const extra = Object.keys(value).filter((k) => k !== "actions");
    if (extra.length > 0) return { ok: false, error: `unexpected key ${JSON.stringify(extra[0])} beside "actions"` };
    if (!Array.isArray(value.actions)) return { ok: false, error: '"actions" must be a list' };
    list = value.actions;
  } else list = [value];
  if (list.length === 0) return { ok: false, error: "no action in the reply" };
  if (list.length > MAX_ACTIONS) return { ok: false, error: `${list.length} actions; at most ${MAX_ACTIONS}` };
  const calls: MCPRequest[] = [];
  for (const [i, raw] of list.entries()) {
    const call = parseCall(raw);
    if (typeof call === "string") return { ok: false, error: `action ${i + 1}: ${call}` };
    calls.push(call);
  }
  return { ok: true, calls };
}

function parseCall(raw: unknown): MCPRequest | string {
  if (!isObject(raw)) return 'expected {"tool": …, "input": {…}}';
  const keys = Object.keys(raw);
  const [nameKey, argsKey] = Object.hasOwn(raw, "tool") ? ["tool", "input"] : ["name", "arguments"];
  const extra = keys.filter((k) => k !== nameKey && k !== argsKey);
  if (extra.length > 0) return `unexpected key ${JSON.stringify(extra[0])}`;
  const name = raw[nameKey];
  if (typeof name !== "string" || name === "") return `"${nameKey}" must be a skill id`;
  let args = raw[argsKey];
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      return `"${argsKey}" is a string that is not a JSON object`;
    }
  }
  if (args === undefined) args = {};
  if (!isObject(args)) return `"${argsKey}" must be an object`;
  return { tool: fromFunctionName(name), input: args };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
