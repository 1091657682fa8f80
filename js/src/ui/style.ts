// The style of a UI container: a typed Zod object (colours, fill, border,
// corner radius, padding, font sizes, opacity), each kind's defaults, and
// the resolved style the painter uses. Sizes are logical pixels.

import { z } from "zod";
import type { Rgba } from "../../../crates/limina-render/js/text.ts";

export const CONTAINER_KINDS = ["label", "textBox", "speechBubble", "thoughtBubble", "callout", "hudPanel"] as const;
export type ContainerKind = (typeof CONTAINER_KINDS)[number];

/** A CSS hex colour: #rgb, #rgba, #rrggbb or #rrggbbaa. */
export const Color = z
  .string()
  .regex(/^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/, "a colour is #rgb, #rgba, #rrggbb or #rrggbbaa")
  .describe("CSS hex colour: #rgb, #rgba, #rrggbb or #rrggbbaa");

const Px = (max: number) => z.number().min(0).max(max);

export const UiStyle = z
  .strictObject({
    fill: Color.optional().describe("background of the container"),
    border: Color.optional().describe("border colour"),
    borderWidth: Px(32).optional().describe("border width, logical px (0 = none)"),
    radius: Px(256).optional().describe("corner radius, logical px"),
    padding: Px(256).optional().describe("space between the border and the text, logical px"),
    fontSize: z.number().gt(0).max(256).optional().describe("body text size, logical px"),
    titleSize: z.number().gt(0).max(256).optional().describe("title text size, logical px"),
    lineHeight: z.number().gt(0).max(4).optional().describe("line advance as a multiple of the font size"),
    textColor: Color.optional().describe("body text colour"),
    titleColor: Color.optional().describe("title text colour"),
    titleFill: Color.optional().describe("background of the title bar (textBox, hudPanel)"),
    opacity: z.number().min(0).max(1).optional().describe("opacity of the whole container, 0..1 (multiplies any fade)"),
  })
  .describe("Container style; every field optional, each kind has its own defaults. Sizes are logical pixels.");

export type UiStyleInput = z.infer<typeof UiStyle>;

export interface ResolvedStyle {
  fill: Rgba;
  border: Rgba;
  borderWidth: number;
  radius: number;
  padding: number;
  fontSize: number;
  titleSize: number;
  lineHeight: number;
  textColor: Rgba;
  titleColor: Rgba;
  titleFill: Rgba;
  opacity: number;
}

const DEFAULTS: Record<ContainerKind, Required<UiStyleInput>> = {
  label: { fill: "#000000b0", border: "#00000000", borderWidth: 0, radius: 6, padding: 6, fontSize: 18, titleSize: 18, lineHeight: 1.25, textColor: "#ffffff", titleColor: "#ffe08a", titleFill: "#00000000", opacity: 1 },
  textBox: { fill: "#1c2230eb", border: "#8fa3bf", borderWidth: 2, radius: 8, padding: 10, fontSize: 16, titleSize: 18, lineHeight: 1.3, textColor: "#e8eef7", titleColor: "#ffffff", titleFill: "#34507a", opacity: 1 },
  speechBubble: { fill: "#ffffff", border: "#222222", borderWidth: 2, radius: 14, padding: 12, fontSize: 18, titleSize: 16, lineHeight: 1.25, textColor: "#111111", titleColor: "#555555", titleFill: "#00000000", opacity: 1 },
  thoughtBubble: { fill: "#f4f6ff", border: "#7a86b8", borderWidth: 2, radius: 28, padding: 14, fontSize: 17, titleSize: 15, lineHeight: 1.25, textColor: "#2a2f45", titleColor: "#5a6390", titleFill: "#00000000", opacity: 1 },
  callout: { fill: "#fff6d5", border: "#c98a00", borderWidth: 2, radius: 4, padding: 8, fontSize: 15, titleSize: 16, lineHeight: 1.25, textColor: "#3a2a00", titleColor: "#7a4f00", titleFill: "#00000000", opacity: 1 },
  hudPanel: { fill: "#0b0f14d0", border: "#3a4a5a", borderWidth: 1, radius: 6, padding: 10, fontSize: 14, titleSize: 15, lineHeight: 1.3, textColor: "#cfe3ff", titleColor: "#ffffff", titleFill: "#1d3350", opacity: 1 },
};

/** A hex colour as straight-alpha RGBA bytes (the schema checked its form). */
export function rgba(hex: string): Rgba {
  let h = hex.slice(1);
  if (h.length <= 4) h = [...h].map((c) => c + c).join("");
  if (h.length === 6) h += "ff";
  const n = parseInt(h, 16);
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
}

/** `style` over `kind`'s defaults. */
export function resolveStyle(kind: ContainerKind, style: UiStyleInput = {}): ResolvedStyle {
  const s = { ...DEFAULTS[kind], ...Object.fromEntries(Object.entries(style).filter(([, v]) => v !== undefined)) } as Required<UiStyleInput>;
  return {
    fill: rgba(s.fill),
    border: rgba(s.border),
    borderWidth: s.borderWidth,
    radius: s.radius,
    padding: s.padding,
    fontSize: s.fontSize,
    titleSize: s.titleSize,
    lineHeight: s.lineHeight,
    textColor: rgba(s.textColor),
    titleColor: rgba(s.titleColor),
    titleFill: rgba(s.titleFill),
    opacity: s.opacity,
  };
}
