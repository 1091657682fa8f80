// ui.* skills over a world's UiLayer: styled containers (labels, text
// boxes, speech and thought bubbles, callouts, HUD panels) drawn as
// instanced quads over a native glyph atlas, anchored in the world or on the
// screen. Handles are opaque strings; one that names no live container of
// this world answers ok: false / removed: false.

import { z } from "zod";
import { PanelFields, PanelSpec } from "../ui/panel.ts";
import type { ContainerKind } from "../ui/style.ts";
import { UiStyle } from "../ui/style.ts";
import type { UiLayer } from "../ui/layer.ts";
import type { SkillDefinition } from "./registry.ts";

const Handle = z.object({ handle: z.string() });

const SHORTHANDS: [name: string, kind: ContainerKind, description: string][] = [
  ["ui.label", "label", "Place a billboard label (minimal chrome) tracking an entity or world point."],
  ["ui.textBox", "textBox", "Place a titled text box (header bar + wrapped body) at a world or screen anchor."],
  ["ui.speechBubble", "speechBubble", "Place a speech bubble with a directional tail aimed at the speaker (entity/point)."],
  ["ui.thoughtBubble", "thoughtBubble", "Place a thought bubble with trailing puffs leading back to the thinker."],
  ["ui.callout", "callout", "Place an annotation box with a leader line to a target point."],
  ["ui.hudPanel", "hudPanel", "Place a screen-anchored HUD/overlay panel (corner-pinned, DPI-aware, over the scene)."],
];

/** The shorthands' input: a panel's fields, its kind given by the skill's name. */
const ShorthandInput = z.strictObject(PanelFields);
const uiUpdateInput = z.strictObject({
  handle: z.string(),
  text: PanelFields.text,
  title: PanelFields.title,
  style: UiStyle.optional(),
  lines: PanelFields.lines.describe("body lines (a feed appends them)"),
});
const uiUpdateOutput = z.object({ ok: z.boolean(), changed: z.boolean() });
const uiRemoveInput = z.strictObject({ handle: z.string() });
const uiRemoveOutput = z.object({ removed: z.boolean() });

export function uiSkills({ ui }: { ui: UiLayer }): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "uiSkills" };
  const created = (handle: string, kind: ContainerKind, ctx: { emit(type: string, payload: unknown): string }) => {
    ctx.emit("ui.created", { handle, kind });
    return { handle };
  };
  return [
    {
      name: "ui.panel",
      version: "1.0.0",
      category: "ui",
      description:
        "Author a styled UI container (kind = label/textBox/speechBubble/thoughtBubble/callout/hudPanel) with a full Zod style object, world/screen anchor, optional tail/leader and lifecycle (fade/typewriter/ttl/queue/feed). Returns an opaque handle.",
      input: PanelSpec,
      output: Handle,
      permissions: ["ui.write"],
      source,
      handler: (input, ctx) => created(ui.create(input, ctx.sessionId), input.kind, ctx),
    },
    ...SHORTHANDS.map(([name, kind, description]): SkillDefinition => ({
      name,
      version: "1.0.0",
      category: "ui",
      description,
      input: ShorthandInput,
      output: Handle,
      permissions: ["ui.write"],
      source,
      handler: (input, ctx) => created(ui.create({ kind, ...input }, ctx.sessionId), kind, ctx),
    })),
    {
      name: "ui.update",
      version: "1.0.0",
      category: "ui",
      description:
        "Update a live container by handle: change its text, title, body lines, and/or restyle it (re-composites). Returns whether the handle existed and re-composited.",
      input: uiUpdateInput,
      output: uiUpdateOutput,
      permissions: ["ui.write"],
      source,
      handler: ({ handle, ...changes }, ctx) => {
        const r = ui.update(handle, changes);
        if (r.changed) ctx.emit("ui.updated", { handle });
        return r;
      },
    },
    {
      name: "ui.remove",
      version: "1.0.0",
      category: "ui",
      description: "Remove a live container by handle: detach its mesh from the scene and dispose its GPU resources.",
      input: uiRemoveInput,
      output: uiRemoveOutput,
      permissions: ["ui.write"],
      source,
      handler: ({ handle }, ctx) => {
        const removed = ui.remove(handle);
        if (removed) ctx.emit("ui.removed", { handle });
        return { removed };
      },
    },
  ];
}
