// Keyboard and pointer input from the native window, in the DOM's terms
// (`code` "KeyW", "ArrowLeft", "Space"; buttons 0 left, 1 middle, 2 right).
// The host collects window events between frames; `poll()` takes them, so a
// fixed-step system that polls first sees what happened since the last step.
// Without a window nothing ever arrives.

import { renderOps } from "./ops.ts";

export type InputEvent =
  | { type: "keyDown"; code: string; key: string; repeat: boolean }
  | { type: "keyUp"; code: string; key: string }
  | { type: "pointerMove"; x: number; y: number }
  | { type: "pointerDown"; button: number; x: number; y: number }
  | { type: "pointerUp"; button: number; x: number; y: number }
  | { type: "wheel"; dx: number; dy: number; pixels: boolean }
  | { type: "focus"; focused: boolean };

export class Input {
  /** Keys held now, by `code`. */
  readonly down = new Set<string>();
  /** Keys pressed / released since the previous poll. */
  readonly pressed = new Set<string>();
  readonly released = new Set<string>();
  /** Pointer position in window pixels and its movement since the previous poll;
   *  buttons held now, and pressed / released since the previous poll, as bit
   *  masks (1 << button): a click between two polls shows in both. */
  readonly pointer = { x: 0, y: 0, dx: 0, dy: 0, buttons: 0, pressed: 0, released: 0 };
  /** Scroll since the previous poll, in lines (pixel deltas are divided by 40). */
  wheel = 0;
  focused = true;

  /** Takes the window's events since the last poll and applies them; returns them. */
  poll(): InputEvent[] {
    this.pressed.clear();
    this.released.clear();
    this.pointer.dx = this.pointer.dy = 0;
    this.pointer.pressed = this.pointer.released = 0;
    this.wheel = 0;
    const events = renderOps.op_render_window_events();
    for (const e of events) this.apply(e);
    return events;
  }

  isDown(code: string): boolean {
    return this.down.has(code);
  }

  private apply(e: InputEvent): void {
    switch (e.type) {
      case "keyDown":
        if (!this.down.has(e.code)) this.pressed.add(e.code);
        this.down.add(e.code);
        break;
      case "keyUp":
        this.down.delete(e.code);
        this.released.add(e.code);
        break;
      case "pointerMove":
        this.pointer.dx += e.x - this.pointer.x;
        this.pointer.dy += e.y - this.pointer.y;
        this.pointer.x = e.x;
        this.pointer.y = e.y;
        break;
      case "pointerDown":
        this.pointer.buttons |= 1 << e.button;
        this.pointer.pressed |= 1 << e.button;
        break;
      case "pointerUp":
        this.pointer.buttons &= ~(1 << e.button);
        this.pointer.released |= 1 << e.button;
        break;
      case "wheel":
        this.wheel += e.pixels ? e.dy / 40 : e.dy;
        break;
      case "focus":
        this.focused = e.focused;
        // Keys released while unfocused never report: start clean.
        if (!e.focused) {
          for (const code of this.down) this.released.add(code);
          this.down.clear();
          this.pointer.buttons = 0;
        }
        break;
    }
  }
}
