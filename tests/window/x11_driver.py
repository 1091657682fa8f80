"""Drives `limina --window` on a private Xvfb display the way a user would:
waits for the window, reads what the X server shows in it, presses Escape
(through XTEST) or asks the window to close (WM_DELETE_WINDOW, as a window
manager does), and reports what happened as one JSON line per scenario. The
assertions live in js/test/render_window.ts.

usage: x11_driver.py LIMINA FIXTURE SHOT_DIR
"""
import json
import os
import queue
import subprocess
import sys
import threading
import time

from Xlib import X, display, protocol
from Xlib.ext import xtest

LIMINA, FIXTURE, SHOT_DIR = sys.argv[1:4]
SCREEN = (800, 600)
# Mesa's window-system code wants one; an unset one only adds noise to stderr.
RUNTIME_DIR = os.path.join(SHOT_DIR, "xdg-runtime")
os.makedirs(RUNTIME_DIR, mode=0o700, exist_ok=True)


def start_xvfb():
    """An Xvfb on a free display number, which it reports on a pipe."""
    r, w = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(w), "-screen", "0", f"{SCREEN[0]}x{SCREEN[1]}x24", "-nolisten", "tcp"],
        pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    os.close(w)
    with os.fdopen(r) as f:
        number = f.readline().strip()
    if not number:
        raise SystemExit("Xvfb did not start")
    return proc, f":{number}"


def run_limina(disp, args):
    env = dict(os.environ, DISPLAY=disp, XDG_RUNTIME_DIR=RUNTIME_DIR)
    proc = subprocess.Popen([LIMINA, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    # Lines arrive through a queue, so waiting for one can time out.
    proc.lines = queue.Queue()

    def pump():
        for line in proc.stdout:
            proc.lines.put(line)
        proc.lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return proc


def wait_line(proc, prefix, limit=60):
    """The fixture's next line starting with `prefix` ("ready WxH windowed=…", "size WxH"), or None."""
    deadline = time.time() + limit
    while True:
        try:
            line = proc.lines.get(timeout=max(0.0, deadline - time.time()))
        except queue.Empty:
            return None
        if line is None:
            return None
        if line.startswith(prefix):
            return line.strip()


def find_window(d, title):
    """The window whose _NET_WM_NAME (UTF-8) is `title`."""
    net_wm_name, utf8 = d.intern_atom("_NET_WM_NAME"), d.intern_atom("UTF8_STRING")
    pending = [d.screen().root]
    while pending:
        w = pending.pop()
        prop = w.get_full_property(net_wm_name, utf8)
        if prop is not None and bytes(prop.value).decode("utf-8", "replace") == title:
            return w
        pending.extend(w.query_tree().children)
    return None


def sample(window, points):
    """RGB of the pixels the X server holds for `window` at fractional points."""
    g = window.get_geometry()
    img = window.get_image(0, 0, g.width, g.height, X.ZPixmap, 0xFFFFFFFF)
    data, bpp = img.data, 4  # 24-bit depth is stored as 32-bit BGRX
    out = {}
    for name, (fx, fy) in points.items():
        x, y = int(fx * (g.width - 1)), int(fy * (g.height - 1))
        o = (y * g.width + x) * bpp
        b, gr, r = data[o], data[o + 1], data[o + 2]
        out[name] = [r, gr, b]
    return {"size": [g.width, g.height], "pixels": out}


def finish(proc, limit=15):
    try:
        code = proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = None
    return code, proc.stderr.read()


def press_escape(d, window):
    window.set_input_focus(X.RevertToParent, X.CurrentTime)
    d.sync()
    keycode = d.keysym_to_keycode(0xFF1B)  # XK_Escape
    xtest.fake_input(d, X.KeyPress, keycode)
    xtest.fake_input(d, X.KeyRelease, keycode)
    d.sync()


def type_click_scroll(d, window):
    """The user types "w", clicks at (100, 60) in the window, and scrolls up one notch."""
    window.set_input_focus(X.RevertToParent, X.CurrentTime)
    origin = d.screen().root.translate_coords(window, 0, 0)
    keycode = d.keysym_to_keycode(ord("w"))
    xtest.fake_input(d, X.KeyPress, keycode)
    xtest.fake_input(d, X.KeyRelease, keycode)
    xtest.fake_input(d, X.MotionNotify, x=origin.x + 100, y=origin.y + 60)
    d.sync()
    time.sleep(0.2)  # the move lands before the press, as with a real hand
    xtest.fake_input(d, X.ButtonPress, 1)
    xtest.fake_input(d, X.ButtonRelease, 1)
    xtest.fake_input(d, X.ButtonPress, 4)
    xtest.fake_input(d, X.ButtonRelease, 4)
    d.sync()
    proc = CURRENT["proc"]
    return {"lines": [wait_line(proc, want, 20) for want in ("pressed KeyW", "released KeyW", "button down", "button up", "wheel")]}


def request_close(d, window):
    wm_protocols = d.intern_atom("WM_PROTOCOLS")
    delete = d.intern_atom("WM_DELETE_WINDOW")
    event = protocol.event.ClientMessage(window=window, client_type=wm_protocols, data=(32, [delete, X.CurrentTime, 0, 0, 0]))
    window.send_event(event, event_mask=X.NoEventMask)
    d.sync()


def resize_then_escape(d, window):
    """The user drags the window to 480×200: the engine follows, then Escape."""
    window.configure(width=480, height=200)
    d.sync()
    return {"resized": wait_line(CURRENT["proc"], "size 480x200", 20), **sample(window, POINTS)}



CURRENT = {}
POINTS = {"center": (0.5, 0.5), "corner": (0.05, 0.05)}


def interactive(disp, d, name, flags, action, then=None):
    proc = run_limina(disp, [*flags, FIXTURE])
    CURRENT["proc"] = proc
    started = time.time()
    ready = wait_line(proc, "ready")
    report = {"scenario": name, "ready": ready}
    window = find_window(d, f"Limina — {os.path.basename(FIXTURE)}") if ready else None
    report["window_found"] = window is not None
    if window is not None:
        report.update(sample(window, POINTS))
        if then is not None:
            report["after"] = then(d, window)
        action(d, window)
        sent = time.time()
        report["exit_code"], stderr = finish(proc)
        report["exit_seconds"] = round(time.time() - sent, 2)
    else:
        proc.kill()
        report["exit_code"], stderr = finish(proc)
    report["stderr"] = stderr[-2000:]
    report["seconds"] = round(time.time() - started, 2)
    print(json.dumps(report), flush=True)


def main():
    xvfb, disp = start_xvfb()
    try:
        d = display.Display(disp)
        interactive(disp, d, "escape", ["--window", "--size", "320x240"], press_escape)
        interactive(disp, d, "close", ["--window", "--size", "320x240"], request_close)
        interactive(disp, d, "resize", ["--window", "--size", "320x240"], press_escape, then=resize_then_escape)
        interactive(disp, d, "input", ["--window", "--size", "320x240"], press_escape, then=type_click_scroll)
        interactive(disp, d, "fullscreen", ["--fullscreen"], press_escape)
        shot = os.path.join(SHOT_DIR, "window.png")
        proc = run_limina(disp, ["--window", "--frames", "30", "--screenshot", shot, "--size", "320x240", FIXTURE])
        code, stderr = finish(proc, 60)
        print(json.dumps({"scenario": "screenshot", "exit_code": code, "stderr": stderr[-2000:], "path": shot}), flush=True)
        proc = run_limina("", ["--window", FIXTURE])
        code, stderr = finish(proc, 60)
        print(json.dumps({"scenario": "no_display", "exit_code": code, "stderr": stderr[-2000:]}), flush=True)
    finally:
        xvfb.terminate()
        xvfb.wait()


if __name__ == "__main__":
    main()
