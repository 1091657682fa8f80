// MCP logging (`logging/setLevel`, `notifications/message`): the world
// log's events as syslog-levelled log messages. Security refusals and
// failed calls are warnings, engine faults errors, session life info,
// everything else debug.

import type { EngineEvent } from "../observability/tracer.ts";

/** MCP's log levels, least severe first (RFC 5424 order). */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A level's rank: higher is more severe; -1 for what is not a level. */
export function levelRank(level: unknown): number {
  return LOG_LEVELS.indexOf(level as LogLevel);
}

/** The log level of a world-log event. */
export function levelOf(event: EngineEvent): LogLevel {
  const t = event.type;
  if (t === "skill.failed") {
    const code = (event.payload as { code?: string } | null)?.code;
    return code === "internal" || code === "handler_error" ? "error" : "warning";
  }
  if (t.startsWith("security.")) return "warning";
  if (t.startsWith("mcp.")) return "info";
  return "debug";
}

/** The `notifications/message` params for an event. */
export function logMessage(event: EngineEvent): { level: LogLevel; logger: string; data: EngineEvent } {
  return { level: levelOf(event), logger: event.type, data: event };
}
