//! The static geometry a navmesh is baked from: every collider of a fixed
//! body (or of no body) in a physics world, read in place, each with its
//! world bounds and a fingerprint that changes whenever the collider does —
//! so a rebuild touches only the tiles under what changed.

use limina_physics::rapier3d::parry::shape::{HeightField, TriMesh, TypedShape};
use limina_physics::rapier3d::prelude::{Collider, ColliderHandle, Pose};
use limina_physics::PhysicsWorld;

use crate::math::{self, V3};

/// One static collider, as the rasteriser reads it.
#[derive(Clone)]
pub struct Source<'a> {
  /// Stable across steps and snapshots: Rapier's collider handle, packed.
  pub key: u64,
  pub min: V3,
  pub max: V3,
  pub fingerprint: u64,
  pub shape: SourceShape<'a>,
}

/// How a collider is rasterised.
#[derive(Clone)]
pub enum SourceShape<'a> {
  /// A convex solid, as world-space triangles (outward normals not assumed).
  Convex { triangles: Vec<[V3; 3]>, center: V3 },
  /// Triangles that are surfaces, not a solid (their winding gives their up side).
  TriMesh { mesh: &'a TriMesh, pose: PoseF },
  /// Terrain: solid from `bottom` up to its surface.
  HeightField { field: &'a HeightField, pose: PoseF, bottom: f32 },
  /// A plane with solid on the side away from `normal`: ground everywhere.
  HalfSpace { point: V3, normal: V3 },
}

/// A rigid pose as plain floats (rotation `[x, y, z, w]`, translation).
#[derive(Clone, Copy, Debug)]
pub struct PoseF {
  pub rotation: [f32; 4],
  pub translation: V3,
}

impl PoseF {
  fn of(p: &Pose) -> Self {
    let q = p.rotation;
    let t = p.translation;
    Self { rotation: [q.x, q.y, q.z, q.w], translation: [t.x, t.y, t.z] }
  }

  pub fn apply(&self, v: V3) -> V3 {
    math::add(math::rotate(self.rotation, v), self.translation)
  }

  fn then(&self, inner: &PoseF) -> PoseF {
    let [x1, y1, z1, w1] = self.rotation;
    let [x2, y2, z2, w2] = inner.rotation;
    let rotation = [
      w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
      w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
      w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
      w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
    ];
    PoseF { rotation, translation: self.apply(inner.translation) }
  }

  /// The inverse pose.
  pub fn inverse(&self) -> PoseF {
    let [x, y, z, w] = self.rotation;
    let rotation = [-x, -y, -z, w];
    let t = math::rotate(rotation, self.translation);
    PoseF { rotation, translation: [-t[0], -t[1], -t[2]] }
  }

  fn is_translation(&self) -> bool {
    self.rotation == [0.0, 0.0, 0.0, 1.0]
  }
}

/// FNV-1a taking 32-bit words at a time: a fingerprint, not a defence.
#[derive(Clone, Copy)]
pub struct Fnv(pub u64);

impl Fnv {
  pub fn new() -> Self {
    Fnv(0xcbf2_9ce4_8422_2325)
  }
  pub fn word(&mut self, w: u32) {
    self.0 ^= w as u64;
    self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
  }
  pub fn f(&mut self, v: f32) {
    self.word(v.to_bits());
  }
  pub fn v(&mut self, v: V3) {
    v.iter().for_each(|&c| self.f(c));
  }
}

// A 12-gon's directions (k·30°), literal so no platform's sin/cos is involved.
const S3: f32 = 0.866_025_4;
const RING: [(f32, f32); 12] = [
  (1.0, 0.0),
  (S3, 0.5),
  (0.5, S3),
  (0.0, 1.0),
  (-0.5, S3),
  (-S3, 0.5),
  (-1.0, 0.0),
  (-S3, -0.5),
  (-0.5, -S3),
  (0.0, -1.0),
  (0.5, -S3),
  (S3, -0.5),
];
/// Scales a tessellation of 30° steps out so it contains the round shape (1/cos 15°).
const OUT: f32 = 1.035_276_2;
/// Latitudes of a hemisphere in 30° steps, as (cos, sin), equator first.
const LATS: [(f32, f32); 3] = [(1.0, 0.0), (S3, 0.5), (0.5, S3)];

/// Triangles joining consecutive rings of 12 points, and closing the ends at `caps` (first, last).
fn loft(rings: &[[V3; 12]], caps: [V3; 2], out: &mut Vec<[V3; 3]>) {
  for w in rings.windows(2) {
    for k in 0..12 {
      let k1 = (k + 1) % 12;
      out.push([w[0][k], w[0][k1], w[1][k1]]);
      out.push([w[0][k], w[1][k1], w[1][k]]);
    }
  }
  let (first, last) = (&rings[0], &rings[rings.len() - 1]);
  for k in 0..12 {
    out.push([caps[0], first[(k + 1) % 12], first[k]]);
    out.push([caps[1], last[k], last[(k + 1) % 12]]);
  }
}

/// A capsule round segment `a`–`b` (a ball when they meet), circumscribed, in world space.
fn capsule(a: V3, b: V3, r: f32, out: &mut Vec<[V3; 3]>) {
  let axis = math::sub(b, a);
  let l = math::len(axis);
  let u = if l > 1e-6 { math::scale(axis, 1.0 / l) } else { [0.0, 1.0, 0.0] };
  // The world axis least aligned with u, to build a basis across it.
  let e = if u[0].abs() <= u[1].abs() && u[0].abs() <= u[2].abs() {
    [1.0, 0.0, 0.0]
  } else if u[1].abs() <= u[2].abs() {
    [0.0, 1.0, 0.0]
  } else {
    [0.0, 0.0, 1.0]
  };
  let v = {
    let c = math::cross(u, e);
    math::scale(c, 1.0 / math::len(c))
  };
  let w = math::cross(u, v);
  let ro = r * OUT * OUT;
  let ring = |center: V3, along: f32, across: f32| -> [V3; 12] {
    std::array::from_fn(|k| {
      let (c, s) = RING[k];
      math::add(math::add(center, math::scale(u, along)), math::add(math::scale(v, c * across), math::scale(w, s * across)))
    })
  };
  let mut rings = Vec::with_capacity(6);
  for &(c, s) in LATS.iter().rev() {
    rings.push(ring(a, -s * ro, c * ro));
  }
  for &(c, s) in LATS.iter() {
    rings.push(ring(b, s * ro, c * ro));
  }
  loft(&rings, [math::sub(a, math::scale(u, ro)), math::add(b, math::scale(u, ro))], out);
}

pub(crate) fn cuboid(pose: &PoseF, h: V3, out: &mut Vec<[V3; 3]>) {
  let c = |i: usize| pose.apply([if i & 1 == 0 { -h[0] } else { h[0] }, if i & 2 == 0 { -h[1] } else { h[1] }, if i & 4 == 0 { -h[2] } else { h[2] }]);
  let p: [V3; 8] = std::array::from_fn(c);
  for [a, b, cc, d] in [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]] {
    out.push([p[a], p[b], p[cc]]);
    out.push([p[a], p[cc], p[d]]);
  }
}

/// A cylinder (`apex` false) or cone (true) along the local y axis.
fn round_column(pose: &PoseF, half_height: f32, radius: f32, apex: bool, out: &mut Vec<[V3; 3]>) {
  let r = radius * OUT;
  let ring = |y: f32, r: f32| -> [V3; 12] { std::array::from_fn(|k| pose.apply([RING[k].0 * r, y, RING[k].1 * r])) };
  let bottom = ring(-half_height, r);
  let top = if apex { ring(half_height, 0.0) } else { ring(half_height, r) };
  loft(&[bottom, top], [pose.apply([0.0, -half_height, 0.0]), pose.apply([0.0, half_height, 0.0])], out);
}

fn key_of(h: ColliderHandle) -> u64 {
  let (index, generation) = h.into_raw_parts();
  ((generation as u64) << 32) | index as u64
}

/// Appends the source(s) for one collider shape at `pose` (compounds recurse).
fn push_shape<'a>(key: u64, collider_fp: Fnv, shape: TypedShape<'a>, pose: PoseF, bounds: (V3, V3), tessellate: bool, out: &mut Vec<Source<'a>>) {
  let mut fp = collider_fp;
  fp.v(pose.translation);
  pose.rotation.iter().for_each(|&c| fp.f(c));
  // Without `tessellate` only fingerprints and bounds are wanted (a refresh's check).
  let mut convex = |triangles: Vec<[V3; 3]>, center: V3, fp: Fnv| {
    out.push(Source { key, min: bounds.0, max: bounds.1, fingerprint: fp.0, shape: SourceShape::Convex { triangles, center } });
  };
  let mut tris = Vec::new();
  match shape {
    TypedShape::Cuboid(c) => {
      let h = [c.half_extents.x, c.half_extents.y, c.half_extents.z];
      fp.word(1);
      fp.v(h);
      if tessellate {
        cuboid(&pose, h, &mut tris);
      }
      convex(tris, pose.translation, fp);
    }
    TypedShape::Ball(b) => {
      fp.word(2);
      fp.f(b.radius);
      if tessellate {
        capsule(pose.translation, pose.translation, b.radius, &mut tris);
      }
      convex(tris, pose.translation, fp);
    }
    TypedShape::Capsule(c) => {
      let a = pose.apply([c.segment.a.x, c.segment.a.y, c.segment.a.z]);
      let b = pose.apply([c.segment.b.x, c.segment.b.y, c.segment.b.z]);
      fp.word(3);
      fp.v(a);
      fp.v(b);
      fp.f(c.radius);
      if tessellate {
        capsule(a, b, c.radius, &mut tris);
      }
      convex(tris, math::scale(math::add(a, b), 0.5), fp);
    }
    TypedShape::Cylinder(c) => {
      fp.word(4);
      fp.f(c.half_height);
      fp.f(c.radius);
      if tessellate {
        round_column(&pose, c.half_height, c.radius, false, &mut tris);
      }
      convex(tris, pose.translation, fp);
    }
    TypedShape::Cone(c) => {
      fp.word(5);
      fp.f(c.half_height);
      fp.f(c.radius);
      if tessellate {
        round_column(&pose, c.half_height, c.radius, true, &mut tris);
      }
      convex(tris, pose.translation, fp);
    }
    TypedShape::ConvexPolyhedron(p) => {
      fp.word(6);
      let (points, indices) = p.to_trimesh();
      for q in &points {
        fp.v([q.x, q.y, q.z]);
      }
      let world: Vec<V3> = points.iter().map(|q| pose.apply([q.x, q.y, q.z])).collect();
      let mut center = [0.0; 3];
      for q in &world {
        center = math::add(center, *q);
      }
      center = math::scale(center, 1.0 / world.len().max(1) as f32);
      tris.extend(indices.iter().map(|t| [world[t[0] as usize], world[t[1] as usize], world[t[2] as usize]]));
      convex(tris, center, fp);
    }
    TypedShape::Triangle(t) => {
      fp.word(7);
      let tri = [pose.apply([t.a.x, t.a.y, t.a.z]), pose.apply([t.b.x, t.b.y, t.b.z]), pose.apply([t.c.x, t.c.y, t.c.z])];
      tri.iter().for_each(|&v| fp.v(v));
      // A lone triangle is a surface: center it just below so its up side faces up.
      let c = math::scale(math::add(math::add(tri[0], tri[1]), tri[2]), 1.0 / 3.0);
      convex(vec![tri], [c[0], c[1] - 1.0, c[2]], fp);
    }
    TypedShape::TriMesh(mesh) => {
      fp.word(8);
      for v in mesh.vertices() {
        fp.v([v.x, v.y, v.z]);
      }
      for t in mesh.indices() {
        t.iter().for_each(|&i| fp.word(i));
      }
      out.push(Source { key, min: bounds.0, max: bounds.1, fingerprint: fp.0, shape: SourceShape::TriMesh { mesh, pose } });
    }
    TypedShape::HeightField(field) => {
      fp.word(9);
      let s = field.scale();
      fp.v([s.x, s.y, s.z]);
      fp.word(field.nrows() as u32);
      fp.word(field.ncols() as u32);
      for h in field.heights().data() {
        fp.f(*h);
      }
      for st in field.cells_statuses().data() {
        fp.word(st.bits() as u32);
      }
      out.push(Source { key, min: bounds.0, max: bounds.1, fingerprint: fp.0, shape: SourceShape::HeightField { field, pose, bottom: bounds.0[1] } });
    }
    TypedShape::HalfSpace(h) => {
      fp.word(10);
      let n = math::rotate(pose.rotation, [h.normal.x, h.normal.y, h.normal.z]);
      fp.v(n);
      out.push(Source { key, min: bounds.0, max: bounds.1, fingerprint: fp.0, shape: SourceShape::HalfSpace { point: pose.translation, normal: n } });
    }
    TypedShape::Compound(c) => {
      for (i, (sub_pose, sub)) in c.shapes().iter().enumerate() {
        let mut sfp = fp;
        sfp.word(11);
        sfp.word(i as u32);
        let world = pose.then(&PoseF::of(sub_pose));
        push_shape(key, sfp, sub.as_typed_shape(), world, bounds, tessellate, out);
      }
    }
    TypedShape::RoundCuboid(r) => push_shape(key, fp, TypedShape::Cuboid(&r.inner_shape), pose, bounds, tessellate, out),
    TypedShape::RoundCylinder(r) => push_shape(key, fp, TypedShape::Cylinder(&r.inner_shape), pose, bounds, tessellate, out),
    TypedShape::RoundCone(r) => push_shape(key, fp, TypedShape::Cone(&r.inner_shape), pose, bounds, tessellate, out),
    TypedShape::RoundConvexPolyhedron(r) => push_shape(key, fp, TypedShape::ConvexPolyhedron(&r.inner_shape), pose, bounds, tessellate, out),
    TypedShape::RoundTriangle(r) => push_shape(key, fp, TypedShape::Triangle(&r.inner_shape), pose, bounds, tessellate, out),
    // Segments, polylines and voxels have no floor to stand on.
    _ => {}
  }
}

fn source_of<'a>(handle: ColliderHandle, collider: &'a Collider, tessellate: bool, out: &mut Vec<Source<'a>>) {
  let key = key_of(handle);
  let aabb = collider.compute_aabb();
  let bounds = ([aabb.mins.x, aabb.mins.y, aabb.mins.z], [aabb.maxs.x, aabb.maxs.y, aabb.maxs.z]);
  if !bounds.0.iter().chain(bounds.1.iter()).all(|c| c.is_finite()) && !matches!(collider.shape().as_typed_shape(), TypedShape::HalfSpace(_)) {
    return;
  }
  let mut fp = Fnv::new();
  fp.word(key as u32);
  fp.word((key >> 32) as u32);
  push_shape(key, fp, collider.shape().as_typed_shape(), PoseF::of(collider.position()), bounds, tessellate, out);
}

/// Every static, solid collider of `world`, in collider order; convex ones
/// tessellated only when `tessellate` (a bake), not for a refresh's check.
pub fn static_sources(world: &PhysicsWorld, tessellate: bool) -> Vec<Source<'_>> {
  let mut out = Vec::new();
  for (handle, collider) in world.static_colliders() {
    source_of(handle, collider, tessellate, &mut out);
  }
  out
}

/// Triangles of a trimesh or heightfield source that may overlap the world box `[min, max]` (x, z).
pub fn surface_triangles(shape: &SourceShape<'_>, min: V3, max: V3, mut f: impl FnMut([V3; 3])) {
  match shape {
    SourceShape::TriMesh { mesh, pose } => {
      for t in mesh.triangles() {
        let tri = [pose.apply([t.a.x, t.a.y, t.a.z]), pose.apply([t.b.x, t.b.y, t.b.z]), pose.apply([t.c.x, t.c.y, t.c.z])];
        let (lo_x, hi_x) = (tri.iter().map(|v| v[0]).fold(f32::MAX, f32::min), tri.iter().map(|v| v[0]).fold(f32::MIN, f32::max));
        let (lo_z, hi_z) = (tri.iter().map(|v| v[2]).fold(f32::MAX, f32::min), tri.iter().map(|v| v[2]).fold(f32::MIN, f32::max));
        if hi_x >= min[0] && lo_x <= max[0] && hi_z >= min[2] && lo_z <= max[2] {
          f(tri);
        }
      }
    }
    SourceShape::HeightField { field, pose, .. } => {
      // The tile's box in the field's own frame (its bounds when the field is turned).
      let inv = pose.inverse();
      let (lmin, lmax) = if pose.is_translation() {
        (math::add(min, inv.translation), math::add(max, inv.translation))
      } else {
        let mut lo = [f32::MAX; 3];
        let mut hi = [f32::MIN; 3];
        for i in 0..8 {
          let c = inv.apply([if i & 1 == 0 { min[0] } else { max[0] }, if i & 2 == 0 { min[1] } else { max[1] }, if i & 4 == 0 { min[2] } else { max[2] }]);
          for k in 0..3 {
            lo[k] = lo[k].min(c[k]);
            hi[k] = hi[k].max(c[k]);
          }
        }
        (lo, hi)
      };
      let aabb = limina_physics::rapier3d::parry::bounding_volume::Aabb::new(
        limina_physics::rapier3d::math::Vector::new(lmin[0], f32::MIN / 4.0, lmin[2]),
        limina_physics::rapier3d::math::Vector::new(lmax[0], f32::MAX / 4.0, lmax[2]),
      );
      field.map_elements_in_local_aabb(&aabb, &mut |_, t| {
        let tri = [pose.apply([t.a.x, t.a.y, t.a.z]), pose.apply([t.b.x, t.b.y, t.b.z]), pose.apply([t.c.x, t.c.y, t.c.z])];
        f(tri);
      });
    }
    _ => {}
  }
}
