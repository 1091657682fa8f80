// ui.* skills: styled in-world and screen UI containers. The contract is
// live (validated, permission-checked, traced); drawing them needs the UI
// compositor, and until it lands an allowed call fails saying so.

import { z } from "../../build/zod.bundle.mjs";
import type { SkillDefinition, SkillRegistry } from "./registry.ts";
import { notYet, Vec3 } from "./schemas.ts";

const Color = z.union([z.number().int().min(0).max(0xffffff), z.string().regex(/^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$/)]);

export const UiStyle = z.strictObject({
  font: z.string().max(100).optional(),
  fontSize: z.number().gt(0).max(200).optional(),
  color: Color.optional(),
  background: Color.optional(),
  opacity: z.number().min(0).max(1).optional(),
  padding: z.number().min(0).max(200).optional(),
  borderColor: Color.optional(),
  borderWidth: z.number().min(0).max(50).optional(),
  borderRadius: z.number().min(0).max(200).optional(),
  align: z.enum(["left", "center", "right"]).optional(),
});

export const UiAnchor = z.union([
  z.strictObject({ kind: z.literal("world"), entity: z.string().optional(), point: Vec3.optional(), offset: Vec3.optional() })
    .refine((a) => (a.entity === undefined) !== (a.point === undefined), { message: "a world anchor names exactly one of entity or point" }),
  z.strictObject({
    kind: z.literal("screen"),
    corner: z.enum(["top-left", "top-right", "bottom-left", "bottom-right", "center"]).default("top-left"),
    x: z.number().default(0),
    y: z.number().default(0),
  }),
]);

const Target = z.union([z.strictObject({ entity: z.string() }), z.strictObject({ point: Vec3 })]);

const body = {
  anchor: UiAnchor,
  style: UiStyle.optional(),
  text: z.string().max(2000).optional(),
  title: z.string().max(200).optional(),
  lines: z.array(z.string().max(500)).max(100).optional(),
  maxWidth: z.number().gt(0).optional(),
  width: z.number().gt(0).optional(),
  maxLines: z.number().int().gt(0).optional(),
  pixelScale: z.number().gt(0).optional(),
  tail: z.strictObject({ target: Target, length: z.number().gt(0).optional() }).optional(),
  leader: z.strictObject({ target: Target, color: Color.optional() }).optional(),
  lifecycle: z
    .strictObject({
      fadeInMs: z.number().min(0).optional(),
      fadeOutMs: z.number().min(0).optional(),
      typewriterCps: z.number().gt(0).optional(),
      ttlMs: z.number().gt(0).optional(),
      queue: z.string().max(100).optional(),
      feed: z.boolean().optional(),
    })
    .optional(),
};

const KINDS = ["label", "textBox", "speechBubble", "thoughtBubble", "callout", "hudPanel"] as const;

const DESCRIPTIONS: Record<(typeof KINDS)[number], string> = {
  label: "Place a billboard label (minimal chrome) tracking an entity or world point.",
  textBox: "Place a titled text box (header bar + wrapped body) at a world or screen anchor.",
  speechBubble: "Place a speech bubble with a directional tail aimed at the speaker (entity/point).",
  thoughtBubble: "Place a thought bubble with trailing puffs leading back to the thinker.",
  callout: "Place an annotation box with a leader line to a target point.",
  hudPanel: "Place a screen-anchored HUD/overlay panel (corner-pinned, DPI-aware, over the scene).",
};

const NEEDS = "the UI compositor (limina-render)";

export function uiSkills(_registry: SkillRegistry): SkillDefinition[] {
  const source = { module: import.meta.url, factory: "uiSkills" };
  const out = z.object({ handle: z.string() });
  const common = { version: "1.0.0", category: "ui" as const, permissions: ["ui.write"], output: out, source };
  return [
    {
      ...common,
      name: "ui.panel",
      description:
        "Author a styled UI container (kind = label/textBox/speechBubble/thoughtBubble/callout/hudPanel) with a full Zod style object, world/screen anchor, optional tail/leader and lifecycle (fade/typewriter/ttl/queue/feed). Returns an opaque handle.",
      input: z.strictObject({ kind: z.enum(KINDS), ...body }),
      handler: () => notYet("ui.panel", NEEDS),
    },
    ...KINDS.map((kind) => ({
      ...common,
      name: `ui.${kind}`,
      description: DESCRIPTIONS[kind],
      input: z.strictObject(body),
      handler: () => notYet(`ui.${kind}`, NEEDS),
    })),
    {
      ...common,
      name: "ui.update",
      description:
        "Update a live container by handle: change its text, title, body lines, and/or restyle it (re-composites). Returns whether the handle existed and re-composited.",
      input: z.strictObject({ handle: z.string(), text: body.text, title: body.title, style: body.style, lines: body.lines }),
      output: z.object({ ok: z.boolean(), changed: z.boolean() }),
      handler: () => notYet("ui.update", NEEDS),
    },
    {
      ...common,
      name: "ui.remove",
      description: "Remove a live container by handle: detach its mesh from the scene and dispose its GPU resources.",
      input: z.strictObject({ handle: z.string() }),
      output: z.object({ removed: z.boolean() }),
      handler: () => notYet("ui.remove", NEEDS),
    },
  ];
}
