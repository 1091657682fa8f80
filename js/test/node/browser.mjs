// Headless Chromium for the browser tests, driven over the DevTools
// protocol (CDP) with a small client on `ws`: launch, open a page, evaluate,
// screenshot (decoded to RGBA), and the page's console and CSP reports.
// Debian's chromium draws WebGL2 headless through SwiftShader and has no
// WebGPU adapter, so the page takes three's WebGL2 backend. No display.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import WebSocket from "ws";

export const CHROMIUM = process.env.LIMINA_CHROMIUM ?? "/usr/bin/chromium";

const FLAGS = [
  "--headless=new",
  "--no-sandbox",
  "--use-angle=swiftshader",
  "--enable-unsafe-swiftshader",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  "--disable-extensions",
  "--mute-audio",
  "--remote-debugging-port=0",
];

/**
 * Launches Chromium; resolves to a browser whose `open(url)` gives a page. With LIMINA_CHROMIUM_ENDPOINT set
 * (js/test/node/web.mjs), the browser at that DevTools endpoint is shared instead: this driver gets a browser
 * context of its own (its storage and pages apart from other drivers'), which `close()` ends.
 */
export async function launchChromium({ width = 320, height = 240 } = {}) {
  const shared = process.env.LIMINA_CHROMIUM_ENDPOINT;
  if (shared) {
    const cdp = await Cdp.connect(shared);
    // Disposed with this connection too, so a driver that dies leaves no pages drawing in the shared browser.
    const { browserContextId } = await cdp.send("Target.createBrowserContext", { disposeOnDetach: true });
    return {
      cdp,
      open: (url) => openPage(cdp, url, width, height, browserContextId),
      async close() {
        await cdp.send("Target.disposeBrowserContext", { browserContextId });
        cdp.ws.close();
      },
    };
  }
  const profile = mkdtempSync(join(tmpdir(), "limina-chromium-"));
  const proc = spawn(CHROMIUM, [...FLAGS, `--user-data-dir=${profile}`, `--window-size=${width},${height}`, "about:blank"], { stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise((resolve) => proc.on("exit", resolve));
  const cleanup = () => {
    proc.kill("SIGKILL");
    try {
      rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
    } catch {
      // the browser was still writing its profile: the temp dir's leftovers are harmless
    }
  };
  process.on("exit", cleanup);
  const endpoint = await new Promise((resolve, reject) => {
    let err = "";
    proc.stderr.on("data", (d) => {
      err += d;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    proc.on("exit", (code) => reject(new Error(`chromium exited ${code} before listening: ${err}`)));
  });
  const cdp = await Cdp.connect(endpoint);
  return {
    cdp,
    /** The DevTools endpoint, for drivers that share this browser (LIMINA_CHROMIUM_ENDPOINT). */
    endpoint,
    open: (url) => openPage(cdp, url, width, height),
    /** Ends the browser and removes its profile. */
    async close() {
      cdp.ws.close();
      proc.kill("SIGKILL");
      await exited;
      cleanup();
    },
  };
}

/** A new page (in `browserContextId`, or the browser's default context) at `url`. */
async function openPage(cdp, url, width, height, browserContextId) {
  const { targetId } = await cdp.send("Target.createTarget", { url: "about:blank", ...(browserContextId ? { browserContextId } : {}) });
  const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
  const page = new Page(cdp, sessionId, width, height);
  await page.start(url);
  return page;
}

/** One DevTools connection (flattened sessions: a page's messages carry its sessionId). */
class Cdp {
  static async connect(url) {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    await new Promise((resolve, reject) => {
      ws.on("open", resolve);
      ws.on("error", reject);
    });
    return new Cdp(ws);
  }

  constructor(ws) {
    this.ws = ws;
    this.next = 1;
    this.pending = new Map();
    this.listeners = [];
    ws.on("message", (data) => {
      const msg = JSON.parse(data.toString());
      if (msg.id !== undefined) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) p?.reject(new Error(`${p.method}: ${msg.error.message}`));
        else p?.resolve(msg.result);
      } else {
        for (const l of this.listeners) l(msg);
      }
    });
  }

  send(method, params = {}, sessionId) {
    const id = this.next++;
    this.ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject, method }));
  }
}

class Page {
  constructor(cdp, sessionId, width, height) {
    this.cdp = cdp;
    this.sessionId = sessionId;
    this.width = width;
    this.height = height;
    /** What the page printed and threw, and the browser's own reports (CSP violations among them). */
    this.console = [];
    cdp.listeners.push((msg) => {
      if (msg.sessionId !== sessionId) return;
      if (msg.method === "Runtime.consoleAPICalled") {
        this.console.push(`${msg.params.type}: ${msg.params.args.map((a) => a.value ?? a.description ?? "").join(" ")}`);
      } else if (msg.method === "Runtime.exceptionThrown") {
        const d = msg.params.exceptionDetails;
        this.console.push(`exception: ${d.exception?.description ?? d.text}`);
      } else if (msg.method === "Log.entryAdded") {
        this.console.push(`${msg.params.entry.level} (${msg.params.entry.source}): ${msg.params.entry.text}`);
      }
    });
  }

  send(method, params = {}) {
    return this.cdp.send(method, params, this.sessionId);
  }

  async start(url) {
    await this.send("Runtime.enable");
    await this.send("Log.enable");
    await this.send("Page.enable");
    await this.send("Emulation.setDeviceMetricsOverride", { width: this.width, height: this.height, deviceScaleFactor: 1, mobile: false });
    const r = await this.send("Page.navigate", { url });
    if (r.errorText) throw new Error(`navigating to ${url}: ${r.errorText}`);
  }

  /** The value of `expression` in the page (awaited). */
  async evaluate(expression) {
    const r = await this.send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true });
    if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value;
  }

  /**
   * Waits until `expression` is truthy in the page; resolves to its value. The limit only bounds a
   * failure (a page that never gets there), so it is generous: software rendering on a loaded machine is slow.
   */
  async waitFor(expression, what, limitMs = 180_000) {
    const until = Date.now() + limitMs;
    for (;;) {
      const v = await this.evaluate(expression).catch(() => undefined);
      if (v) return v;
      if (Date.now() > until) throw new Error(`timed out waiting for ${what}\n--- page console:\n${this.console.join("\n")}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The viewport as RGBA pixels (and `png`, the file Chromium made). */
  async screenshot() {
    const { data } = await this.send("Page.captureScreenshot", { format: "png" });
    const png = Buffer.from(data, "base64");
    return { ...decodePng(png), png };
  }
}

/** An 8-bit RGB or RGBA PNG (what Chromium's screenshots are) as {width, height, rgba}. */
export function decodePng(png) {
  let pos = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat = [];
  while (pos < png.length) {
    const len = png.readUInt32BE(pos);
    const type = png.toString("latin1", pos + 4, pos + 8);
    const body = png.subarray(pos + 8, pos + 8 + len);
    if (type === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const depth = body[8];
      const color = body[9];
      if (depth !== 8 || (color !== 2 && color !== 6) || body[12] !== 0) throw new Error(`unsupported PNG: depth ${depth}, colour type ${color}, interlace ${body[12]}`);
      channels = color === 6 ? 4 : 3;
    } else if (type === "IDAT") {
      idat.push(body);
    }
    pos += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = new Uint8Array(width * height * 4);
  const prev = new Uint8Array(stride);
  const line = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? line[i - channels] : 0;
      const b = prev[i];
      const c = i >= channels ? prev[i - channels] : 0;
      let v = src[i];
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      line[i] = v & 0xff;
    }
    for (let x = 0; x < width; x++) {
      for (let k = 0; k < 3; k++) out[(y * width + x) * 4 + k] = line[x * channels + k];
      out[(y * width + x) * 4 + 3] = channels === 4 ? line[x * channels + 3] : 255;
    }
    prev.set(line);
  }
  return { width, height, rgba: out };
}
