// What a UI container says and how it looks: the panel spec every ui.*
// skill takes, and its composition into the paint list (chrome, title bar,
// wrapped body) the container draws as GPU quads.

import { z } from "zod";
import { layoutText, type Paint, type TextLayout } from "../../../crates/limina-render/js/text.ts";
import { WorldVec3 } from "../skills/schemas.ts";
import { Anchor } from "./anchor.ts";
import { Lifecycle } from "./lifecycle.ts";
import { CONTAINER_KINDS, type ContainerKind, type ResolvedStyle, UiStyle } from "./style.ts";

/** Something a tail or leader points at: an entity id or a world point. */
export const Target = z.union([z.string().min(1).describe("entity id (ent_…)"), WorldVec3.describe("world point [x, y, z]")]);

export const Tail = z
  .strictObject({
    target: Target.optional().describe("who is speaking or thinking (default: the anchor's entity)"),
    offset: WorldVec3.default([0, 0, 0]).describe("added to the target's point, metres (e.g. up to the speaker's head)"),
    width: z.number().gt(0).max(200).default(22).describe("the tail's base width, logical px"),
  })
  .describe("speechBubble: a tail aimed at the speaker; thoughtBubble: puffs trailing back to the thinker. World anchors only.");

export const Leader = z
  .strictObject({ target: Target.describe("the annotated entity or point"), color: z.string().regex(/^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/).optional().describe("line colour (default: the border colour)") })
  .describe("callout: a leader line from the box to its target. World anchors only.");

const Text = z.string().max(4000);

/** The fields every container skill takes (ui.panel adds kind). */
export const PanelFields = {
  anchor: Anchor,
  style: UiStyle.optional(),
  text: Text.optional().describe("body text, word-wrapped"),
  title: z.string().max(200).optional().describe("title (textBox and hudPanel draw it in a title bar)"),
  lines: z.array(z.string().max(1000)).max(200).optional().describe("body lines, each wrapped on its own (after text, if both)"),
  maxWidth: z.number().gt(0).max(2048).optional().describe("wrap width, logical px (default 320)"),
  width: z.number().gt(0).max(2048).optional().describe("fixed content width, logical px (default: as wide as the text, up to maxWidth)"),
  maxLines: z.number().int().gt(0).max(500).optional().describe("body lines shown at most; the last then ends in …"),
  pixelScale: z.number().gt(0).max(8).optional().describe("device pixels per logical pixel (DPI): a screen panel is drawn that many device pixels per logical pixel (default 1 on screen, 2 in the world)"),
  tail: Tail.optional(),
  leader: Leader.optional(),
  lifecycle: Lifecycle.optional(),
};

export const PanelSpec = z.strictObject({ kind: z.enum(CONTAINER_KINDS).describe("the container kind"), ...PanelFields });
export type PanelSpecInput = z.input<typeof PanelSpec>;
export type PanelSpecParsed = z.output<typeof PanelSpec>;

/** The words of a container. */
export interface Content {
  text?: string;
  title?: string;
  lines?: string[];
}

/** The body a container shows: its text, then its lines. */
export function bodyOf(content: Content): string {
  return [...(content.text !== undefined ? [content.text] : []), ...(content.lines ?? [])].join("\n");
}

export interface Composition {
  /** Logical size of the texture. */
  width: number;
  height: number;
  paints: Paint[];
  /** Where the body text is, logical px (for tests and tails). */
  textBox: { x: number; y: number; w: number; h: number };
  /** Characters a typewriter reveals in all. */
  characters: number;
}

const DEFAULT_MAX_WIDTH = 320;
const MIN_SIDE = 8;

/** Lays `content` out for `kind` in `style` and lists what to paint; `reveal` limits the body's characters. */
export function compose(kind: ContainerKind, content: Content, style: ResolvedStyle, sizing: { width?: number; maxWidth?: number; maxLines?: number }, reveal?: number): Composition {
  const wrap = sizing.width ?? sizing.maxWidth ?? DEFAULT_MAX_WIDTH;
  const bodyText = bodyOf(content);
  const body: TextLayout | null = bodyText === "" ? null : layoutText({ text: bodyText, size: style.fontSize, maxWidth: wrap, maxLines: sizing.maxLines, lineHeight: style.lineHeight });
  const title: TextLayout | null = content.title ? layoutText({ text: content.title, size: style.titleSize, maxWidth: wrap, maxLines: 1, lineHeight: 1.3 }) : null;
  const pad = style.padding;
  const inner = Math.max(MIN_SIDE, sizing.width ?? Math.ceil(Math.max(body?.width ?? 0, title?.width ?? 0)));
  // Thought bubbles are clouds: their scallops need room at the sides.
  const cloud = kind === "thoughtBubble" ? Math.max(6, style.fontSize * 0.5) : 0;
  const titleBar = title ? Math.ceil(title.height + (kind === "textBox" || kind === "hudPanel" ? pad : 0)) : 0;
  const boxW = inner + 2 * pad;
  const boxH = Math.max(MIN_SIDE, titleBar + (body ? Math.ceil(body.height) : 0) + 2 * pad - (title && !body ? pad : 0));
  const width = boxW + 2 * cloud;
  const height = boxH + 2 * cloud;
  const x = cloud;
  const y = cloud;
  const paints: Paint[] = [];
  if (cloud > 0) {
    // Scallops around the box, drawn first so the box covers their inner halves.
    const r = cloud * 1.6;
    for (let cx = x + r * 0.8; cx <= x + boxW - r * 0.8 + 1e-6; cx += r * 1.3) {
      paints.push({ op: "circle", x: cx, y: y + cloud * 0.6, r, fill: style.border });
      paints.push({ op: "circle", x: cx, y: y + boxH - cloud * 0.6, r, fill: style.border });
    }
    for (let cx = x + r * 0.8; cx <= x + boxW - r * 0.8 + 1e-6; cx += r * 1.3) {
      paints.push({ op: "circle", x: cx, y: y + cloud * 0.6, r: r - style.borderWidth, fill: style.fill });
      paints.push({ op: "circle", x: cx, y: y + boxH - cloud * 0.6, r: r - style.borderWidth, fill: style.fill });
    }
  }
  paints.push({ op: "roundRect", x, y, w: boxW, h: boxH, radius: style.radius, fill: style.fill, border: style.borderWidth, borderColor: style.border });
  let cursor = y + pad;
  if (title) {
    if (kind === "textBox" || kind === "hudPanel") {
      const b = style.borderWidth;
      paints.push({ op: "roundRect", x: x + b, y: y + b, w: boxW - 2 * b, h: titleBar + pad / 2 - b, radius: Math.max(0, style.radius - b), fill: style.titleFill });
      cursor = y + pad / 2 + (titleBar - title.height) / 2;
      paints.push({ op: "text", x: x + pad, y: cursor, text: { text: title.lines[0] ?? "", size: style.titleSize, lineHeight: 1.3 }, color: style.titleColor });
      cursor = y + titleBar + pad;
    } else {
      paints.push({ op: "text", x: x + pad, y: cursor, text: { text: title.lines[0] ?? "", size: style.titleSize, lineHeight: 1.3 }, color: style.titleColor });
      cursor += titleBar;
    }
  }
  const textBox = { x: x + pad, y: cursor, w: body?.width ?? 0, h: body?.height ?? 0 };
  if (body) {
    paints.push({
      op: "text",
      x: x + pad,
      y: cursor,
      text: { text: bodyText, size: style.fontSize, maxWidth: wrap, maxLines: sizing.maxLines, lineHeight: style.lineHeight },
      color: style.textColor,
      ...(reveal !== undefined && Number.isFinite(reveal) ? { reveal } : {}),
    });
  }
  const characters = body ? body.lines.reduce((n, l) => n + [...l].length + 1, 0) : 0;
  return { width, height, paints, textBox, characters };
}
