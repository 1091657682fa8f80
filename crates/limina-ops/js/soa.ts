// The shapes native ops share with JS: vectors, quaternions, and the SoA
// columns (JS-owned Float32Arrays) that ops read and write in place.

export type Vec3 = [number, number, number];
export type Quat = [number, number, number, number];

/** The three columns of a vector component, indexed by eid. */
export interface Vec3Columns {
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
}

/** The four columns of a quaternion component, indexed by eid. */
export interface QuatColumns extends Vec3Columns {
  w: Float32Array;
}
