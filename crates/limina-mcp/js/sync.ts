// The JS face of limina-mcp's state streams (src/sync.rs). Binary:
// subscribers, the live entity set with each entity's style and each step's
// transforms go in; the encoder thread writes each subscriber's snapshot
// and deltas to its connection. JSON (the full-view group): the live entity
// set and each step's transforms and delta text go in; the encoder thread
// adds the transform columns and writes the delta to the group's members.

import type { SendOutcome } from "./hub.ts";

interface SyncOps {
  op_sync_subscribe(conn: number, every: number): void;
  op_sync_unsubscribe(conn: number): boolean;
  op_sync_aoi(conn: number, x: number, y: number, z: number, radius: number): boolean;
  op_sync_entities(eids: Uint32Array, ids: Float64Array, styles: EntityStyle[]): void;
  op_sync_frame(
    tick: number,
    px: Float32Array, py: Float32Array, pz: Float32Array,
    rx: Float32Array, ry: Float32Array, rz: Float32Array, rw: Float32Array,
    sx: Float32Array, sy: Float32Array, sz: Float32Array,
  ): number;
  op_sync_json_entities(eids: Uint32Array, ids: string[]): void;
  op_sync_json_frame(
    text: string, cut: number, mustSend: boolean, members: Uint32Array,
    px: Float32Array, py: Float32Array, pz: Float32Array,
    rx: Float32Array, ry: Float32Array, rz: Float32Array, rw: Float32Array,
    sx: Float32Array, sy: Float32Array, sz: Float32Array,
  ): SendOutcome[];
}

const ops = Limina.ops as unknown as SyncOps;

/** An entity's tags and look (JSON text, or null without one) at its style revision; `id` is its `ent_` number. */
export interface EntityStyle {
  id: number;
  revision: number;
  tags: string[];
  look: string | null;
}

/** The SoA transform columns a frame is read from. */
export interface TransformColumns {
  Position: { x: Float32Array; y: Float32Array; z: Float32Array };
  Rotation: { x: Float32Array; y: Float32Array; z: Float32Array; w: Float32Array };
  Scale: { x: Float32Array; y: Float32Array; z: Float32Array };
}

/** Subscribes a connection (again: it starts over from a snapshot), at most one delta every `every` steps. */
export const subscribe = (conn: number, every: number): void => ops.op_sync_subscribe(conn, every);
/** Ends a connection's subscription; false when it had none. */
export const unsubscribe = (conn: number): boolean => ops.op_sync_unsubscribe(conn);
/** Narrows a subscriber to a sphere, or with `null` gives it the full view; false when not subscribed. */
export const setAoi = (conn: number, aoi: { center: [number, number, number]; radius: number } | null): boolean =>
  aoi ? ops.op_sync_aoi(conn, aoi.center[0], aoi.center[1], aoi.center[2], aoi.radius) : ops.op_sync_aoi(conn, 0, 0, 0, 0);
/** The live entities (`eids[i]` holds `ent_<ids[i]>`) and the styles of those new to the streams or restyled. */
export const setEntities = (eids: Uint32Array, ids: Float64Array, styles: EntityStyle[]): void => ops.op_sync_entities(eids, ids, styles);
/** Streams step `tick`'s transforms; returns how many subscribers get a message for it. */
export const streamFrame = (tick: number, w: TransformColumns): number => {
  const { Position: P, Rotation: R, Scale: S } = w;
  return ops.op_sync_frame(tick, P.x, P.y, P.z, R.x, R.y, R.z, R.w, S.x, S.y, S.z);
};
/** The JSON group's live entities: `eids[i]` holds the entity whose id, as a JSON string, is `ids[i]`, in the entity table's order. */
export const setJsonEntities = (eids: Uint32Array, ids: string[]): void => ops.op_sync_json_entities(eids, ids);
/**
 * Streams one step of the JSON group to `members`: `text` is the delta without its transform columns, which the encoder
 * puts in at `cut` (the code unit before which they go; the text before it is ASCII); sent when a transform changed or
 * `mustSend`. Every step the group advances comes here, with or without members. Returns each member's send outcome.
 */
export const streamJsonFrame = (text: string, cut: number, mustSend: boolean, members: Uint32Array, w: TransformColumns): SendOutcome[] => {
  const { Position: P, Rotation: R, Scale: S } = w;
  return ops.op_sync_json_frame(text, cut, mustSend, members, P.x, P.y, P.z, R.x, R.y, R.z, R.w, S.x, S.y, S.z);
};
