// A decoder for Limina's binary state deltas (`state/subscribe` with
// `encoding: "binary"`; the format is in docs/mcp-protocol.md, "Binary
// state deltas"). Plain JavaScript for Node and browsers, no dependencies:
//
//   const view = new StateView();
//   ws.on("message", (data, isBinary) => { if (isBinary) view.apply(data); });
//   view.entities.get("ent_7").position  // [x, y, z] in metres
//
// `apply` takes an ArrayBuffer or a typed array (a Node Buffer) and returns
// what the message did. Positions are held as exact integers of the
// position step, so a client never drifts from the server's view.

const MAGIC_L = 0x4c;
const MAGIC_D = 0x44;
export const VERSION = 1;
export const KIND_DELTA = 0;
export const KIND_SNAPSHOT = 1;
const FLAG_AOI = 1;
const ROT_STEPS = 1022;
const utf8 = new TextDecoder();

/** A rotation packed "smallest three" → [x, y, z, w]. */
export function unpackRotation(p) {
  const big = p >>> 30;
  const small = [(p >>> 20) & 1023, (p >>> 10) & 1023, p & 1023].map((q) => ((q / ROT_STEPS) * 2 - 1) / Math.SQRT2);
  const out = [0, 0, 0, 0];
  let k = 0;
  for (let i = 0; i < 4; i++) if (i !== big) out[i] = small[k++];
  out[big] = Math.sqrt(Math.max(0, 1 - small[0] ** 2 - small[1] ** 2 - small[2] ** 2));
  return out;
}

class Reader {
  constructor(bytes) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.at = 0;
  }
  u8() {
    return this.view.getUint8(this.at++);
  }
  u32() {
    const v = this.view.getUint32(this.at, true);
    this.at += 4;
    return v;
  }
  f32() {
    const v = this.view.getFloat32(this.at, true);
    this.at += 4;
    return v;
  }
  f64() {
    const v = this.view.getFloat64(this.at, true);
    this.at += 8;
    return v;
  }
  varint() {
    let v = 0;
    let scale = 1;
    for (;;) {
      const b = this.u8();
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 128;
    }
  }
  zigzag() {
    const v = this.varint();
    return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
  }
  str() {
    const n = this.varint();
    const s = utf8.decode(this.bytes.subarray(this.at, this.at + n));
    this.at += n;
    return s;
  }
  style() {
    const tags = Array.from({ length: this.varint() }, () => this.str());
    const look = this.str();
    return { tags, look: look === "" ? null : JSON.parse(look) };
  }
}

/** One entity as a binary client holds it. */
class Entity {
  constructor(id, step) {
    this.id = id;
    this.step = step;
    /** Exact integers of the position step. */
    this.q = [0, 0, 0];
    this.rotation = [0, 0, 0, 1];
    this.scale = [1, 1, 1];
    this.tags = [];
    this.look = null;
  }
  /** [x, y, z] in metres. */
  get position() {
    return this.q.map((v) => v * this.step);
  }
}

/** The world as a binary subscriber sees it, message after message. */
export class StateView {
  constructor() {
    /** `ent_` id → Entity. */
    this.entities = new Map();
    this.tick = 0;
    this.sentAt = 0;
    /** The area of interest the server applied ({ center, radius }), or null for the full view. */
    this.aoi = null;
  }

  /** Applies one binary message; returns { kind, tick, baseTick, sentAt, created, updated, removed } (ids). */
  apply(data) {
    const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const r = new Reader(bytes);
    if (r.u8() !== MAGIC_L || r.u8() !== MAGIC_D) throw new Error("not a Limina state message");
    const version = r.u8();
    if (version !== VERSION) throw new Error(`unsupported state message version ${version}`);
    const kind = r.u8();
    const step = 2 ** -r.u8();
    const flags = r.u8();
    r.at += 2;
    const sentAt = r.f64();
    const tick = r.varint();
    const baseTick = r.varint();
    this.aoi = flags & FLAG_AOI ? { center: [r.f64(), r.f64(), r.f64()], radius: r.f64() } : null;
    if (kind === KIND_SNAPSHOT) this.entities.clear();
    else if (baseTick !== this.tick) throw new Error(`a delta from tick ${baseTick} cannot apply to the state of tick ${this.tick}`);
    const out = { kind, tick, baseTick, sentAt, created: [], updated: [], removed: [] };
    let id = 0;
    for (let n = r.varint(); n > 0; n--) {
      id += r.varint();
      const e = new Entity(`ent_${id}`, step);
      e.q = [r.zigzag(), r.zigzag(), r.zigzag()];
      e.rotation = unpackRotation(r.u32());
      e.scale = [r.f32(), r.f32(), r.f32()];
      Object.assign(e, r.style());
      this.entities.set(e.id, e);
      out.created.push(e.id);
    }
    id = 0;
    for (let n = r.varint(); n > 0; n--) {
      id += r.varint();
      const e = this.entities.get(`ent_${id}`);
      if (!e) throw new Error(`an update names ent_${id}, which this view does not hold`);
      const mask = r.u8();
      for (let i = 0; i < 3; i++) if (mask & (1 << i)) e.q[i] += r.zigzag();
      if (mask & 8) e.rotation = unpackRotation(r.u32());
      for (let i = 0; i < 3; i++) if (mask & (16 << i)) e.scale[i] = r.f32();
      if (mask & 128) Object.assign(e, r.style());
      out.updated.push(e.id);
    }
    id = 0;
    for (let n = r.varint(); n > 0; n--) {
      id += r.varint();
      this.entities.delete(`ent_${id}`);
      out.removed.push(`ent_${id}`);
    }
    if (r.at !== bytes.length) throw new Error(`state message has ${bytes.length - r.at} bytes past its end`);
    this.tick = tick;
    this.sentAt = sentAt;
    return out;
  }
}
