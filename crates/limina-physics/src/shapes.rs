//! Collider descriptions: the shapes a body's colliders take, where each
//! sits on its body, its material and whether it is a sensor — validated,
//! then built into Rapier colliders. Mesh shapes (convex hulls, triangle
//! meshes) take their vertices from the buffer passed beside the
//! description, by range, so big meshes cross from JS without a copy.

use limina_ops::OpError;
use rapier3d::math::{Pose, Vector};
use rapier3d::prelude::*;

use crate::world::{finite, non_negative, positive, unit_quat};

/// A run of items in a mesh buffer: `[first, count]` (vertices for
/// `vertices`, triangles for `triangles`).
pub type MeshRange = [u32; 2];

/// A collider shape, in metres, in the collider's own frame.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum Shape {
  Box {
    #[serde(rename = "halfExtents")]
    half_extents: [f32; 3],
  },
  Sphere {
    radius: f32,
  },
  /// Upright (along Y): a cylinder of `halfHeight` capped by hemispheres.
  Capsule {
    #[serde(rename = "halfHeight")]
    half_height: f32,
    radius: f32,
  },
  /// Upright (along Y).
  Cylinder {
    #[serde(rename = "halfHeight")]
    half_height: f32,
    radius: f32,
  },
  /// Upright (along Y), apex up, base `halfHeight` below the centre.
  Cone {
    #[serde(rename = "halfHeight")]
    half_height: f32,
    radius: f32,
  },
  /// The convex hull of a run of vertices.
  ConvexHull { vertices: MeshRange },
  /// A triangle mesh: a run of vertices and a run of triangles indexing
  /// into it. Hollow, so only for bodies that do not move by physics.
  Trimesh { vertices: MeshRange, triangles: MeshRange },
  /// A grid of heights, `rows` along z by `cols` along x (row-major by z),
  /// spanning `size` = [x, z] metres centred on the collider; the heights
  /// are a run of single floats in the vertex buffer. Hollow, like a trimesh.
  Heightfield { heights: MeshRange, rows: u32, cols: u32, size: [f32; 2] },
}

/// One collider of a body: its shape, its pose on the body and, where it
/// differs from the body's, its material and sensor flag.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ColliderDesc {
  pub shape: Shape,
  /// Where the collider's centre sits in the body's frame.
  #[serde(default)]
  pub offset: [f32; 3],
  /// Its rotation in the body's frame, quaternion `[x, y, z, w]`.
  #[serde(default = "identity_quat")]
  pub rotation: [f32; 4],
  pub friction: Option<f32>,
  pub restitution: Option<f32>,
  pub density: Option<f32>,
  pub sensor: Option<bool>,
}

pub(crate) fn identity_quat() -> [f32; 4] {
  [0.0, 0.0, 0.0, 1.0]
}

/// The mesh data mesh shapes index: `vertices` as x, y, z triples and
/// `triangles` as index triples.
#[derive(Clone, Copy, Default)]
pub struct MeshData<'a> {
  pub vertices: &'a [f32],
  pub triangles: &'a [u32],
}

/// The most vertices one mesh shape may take (a convex hull of more is
/// slow to build and no better a collider).
const MAX_HULL_VERTICES: u32 = 65_536;

/// The most heights one heightfield collider may take (a 1024×1024 grid).
const MAX_HEIGHTS: u64 = 1 << 20;

fn range<'a, T>(what: &str, data: &'a [T], [first, count]: MeshRange, stride: usize) -> Result<&'a [T], OpError> {
  let (first, count) = (first as usize, count as usize);
  let end = first.checked_add(count).map(|e| e * stride);
  match end {
    Some(end) if end <= data.len() && count > 0 => Ok(&data[first * stride..end]),
    _ => Err(OpError::invalid_input(format!(
      "{what} [{first}, {count}] is empty or outside the {} passed with the body",
      data.len() / stride
    ))),
  }
}

fn points(vertices: &[f32]) -> Result<Vec<Vector>, OpError> {
  finite("mesh vertices", vertices)?;
  Ok(vertices.chunks_exact(3).map(|v| Vector::new(v[0], v[1], v[2])).collect())
}

impl Shape {
  pub(crate) fn validate(&self) -> Result<(), OpError> {
    match *self {
      Shape::Box { half_extents } => {
        for (axis, v) in ["x", "y", "z"].iter().zip(half_extents) {
          positive(&format!("box halfExtents.{axis}"), v)?;
        }
      }
      Shape::Sphere { radius } => positive("sphere radius", radius)?,
      Shape::Capsule { half_height, radius } => {
        positive("capsule halfHeight", half_height)?;
        positive("capsule radius", radius)?;
      }
      Shape::Cylinder { half_height, radius } => {
        positive("cylinder halfHeight", half_height)?;
        positive("cylinder radius", radius)?;
      }
      Shape::Cone { half_height, radius } => {
        positive("cone halfHeight", half_height)?;
        positive("cone radius", radius)?;
      }
      Shape::ConvexHull { vertices } => {
        if vertices[1] > MAX_HULL_VERTICES {
          return Err(OpError::invalid_input(format!(
            "a convex hull takes at most {MAX_HULL_VERTICES} vertices, got {}",
            vertices[1]
          )));
        }
      }
      Shape::Trimesh { .. } => {}
      Shape::Heightfield { heights, rows, cols, size } => {
        let n = rows as u64 * cols as u64;
        if rows < 2 || cols < 2 || n > MAX_HEIGHTS || n != heights[1] as u64 {
          return Err(OpError::invalid_input(format!(
            "a heightfield takes rows × cols heights (each at least 2, at most {MAX_HEIGHTS} in all): {rows}×{cols} needs {n}, got {}",
            heights[1]
          )));
        }
        positive("heightfield size x", size[0])?;
        positive("heightfield size z", size[1])?;
      }
    }
    Ok(())
  }

  /// The Rapier shape, reading mesh shapes' data from `mesh`.
  pub(crate) fn build(&self, mesh: MeshData<'_>) -> Result<SharedShape, OpError> {
    Ok(match *self {
      Shape::Box { half_extents: [x, y, z] } => SharedShape::cuboid(x, y, z),
      Shape::Sphere { radius } => SharedShape::ball(radius),
      Shape::Capsule { half_height, radius } => SharedShape::capsule_y(half_height, radius),
      Shape::Cylinder { half_height, radius } => SharedShape::cylinder(half_height, radius),
      Shape::Cone { half_height, radius } => SharedShape::cone(half_height, radius),
      Shape::ConvexHull { vertices } => {
        let pts = points(range("convexHull vertices", mesh.vertices, vertices, 3)?)?;
        let flat = || OpError::invalid_input(format!("the {} convex hull vertices are flat or degenerate: they enclose no volume", pts.len()));
        let hull = SharedShape::convex_hull(&pts).ok_or_else(flat)?;
        if hull.mass_properties(1.0).mass() <= 1e-9 {
          return Err(flat());
        }
        hull
      }
      Shape::Trimesh { vertices, triangles } => {
        let pts = points(range("trimesh vertices", mesh.vertices, vertices, 3)?)?;
        let tris = range("trimesh triangles", mesh.triangles, triangles, 3)?;
        let n = pts.len() as u32;
        if let Some(bad) = tris.iter().find(|&&i| i >= n) {
          return Err(OpError::invalid_input(format!("trimesh index {bad} is out of range: it has {n} vertices")));
        }
        let tris: Vec<[u32; 3]> = tris.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
        SharedShape::trimesh(pts, tris).map_err(|e| OpError::invalid_input(format!("bad trimesh: {e:?}")))?
      }
      Shape::Heightfield { heights, rows, cols, size } => {
        crate::heightfield::heightfield(range("heightfield heights", mesh.vertices, heights, 1)?, rows, cols, size[0], size[1])?
      }
    })
  }

  /// Whether a body that moves by physics can carry this shape.
  pub(crate) fn solid(&self) -> bool {
    !matches!(self, Shape::Trimesh { .. } | Shape::Heightfield { .. })
  }
}

/// Which collision groups a body's colliders belong to and which they
/// collide with, as bit masks over groups 0–31.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Groups {
  pub memberships: u32,
  pub filter: u32,
}

impl Default for Groups {
  fn default() -> Self {
    Self { memberships: u32::MAX, filter: u32::MAX }
  }
}

impl Groups {
  pub(crate) fn interaction(self) -> InteractionGroups {
    InteractionGroups::new(
      Group::from_bits_retain(self.memberships),
      Group::from_bits_retain(self.filter),
      InteractionTestMode::And,
    )
  }
}

/// A body's defaults every collider takes unless it says otherwise.
pub(crate) struct Material {
  pub friction: f32,
  pub restitution: f32,
  pub density: f32,
  pub sensor: bool,
  pub groups: Groups,
}

impl ColliderDesc {
  pub(crate) fn validate(&self) -> Result<(), OpError> {
    self.shape.validate()?;
    finite("collider offset", &self.offset)?;
    unit_quat(self.rotation)?;
    if let Some(f) = self.friction {
      non_negative("collider friction", f)?;
    }
    if let Some(r) = self.restitution {
      non_negative("collider restitution", r)?;
    }
    if let Some(d) = self.density {
      positive("collider density", d)?;
    }
    Ok(())
  }

  pub(crate) fn build(&self, body: &Material, mesh: MeshData<'_>) -> Result<Collider, OpError> {
    let sensor = self.sensor.unwrap_or(body.sensor);
    let mut builder = ColliderBuilder::new(self.shape.build(mesh)?)
      .position(Pose::from_parts(Vector::from_array(self.offset), unit_quat(self.rotation)?))
      .friction(self.friction.unwrap_or(body.friction))
      .restitution(self.restitution.unwrap_or(body.restitution))
      .density(self.density.unwrap_or(body.density))
      .sensor(sensor)
      .collision_groups(body.groups.interaction())
      .active_events(ActiveEvents::COLLISION_EVENTS);
    if sensor {
      // A trigger notices kinematic walkers and fixed props too, not only falling bodies.
      builder = builder.active_collision_types(ActiveCollisionTypes::all());
    }
    Ok(builder.build())
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::world::{BodyDesc, BodyKind, PhysicsWorld};

  fn desc(json: serde_json::Value) -> BodyDesc {
    serde_json::from_value(json).unwrap()
  }

  fn down(w: &mut PhysicsWorld, x: f32, z: f32) -> Option<f32> {
    w.step(1.0 / 60.0).unwrap();
    w.raycast([x, 20.0, z], [0.0, -1.0, 0.0], 40.0, true).unwrap().map(|h| 20.0 - h.distance)
  }

  #[test]
  fn every_primitive_collider_has_its_size() {
    for (shape, top) in [
      (serde_json::json!({ "type": "box", "halfExtents": [1.0, 0.5, 1.0] }), 0.5),
      (serde_json::json!({ "type": "sphere", "radius": 0.7 }), 0.7),
      (serde_json::json!({ "type": "capsule", "halfHeight": 0.5, "radius": 0.3 }), 0.8),
      (serde_json::json!({ "type": "cylinder", "halfHeight": 0.9, "radius": 0.3 }), 0.9),
      (serde_json::json!({ "type": "cone", "halfHeight": 0.6, "radius": 0.4 }), 0.6),
    ] {
      let mut w = PhysicsWorld::new();
      w.create_body(&desc(serde_json::json!({ "kind": "static", "shape": shape }))).unwrap();
      let y = down(&mut w, 0.0, 0.0).unwrap();
      assert!((y - top).abs() < 1e-4, "{shape}: top at {y}, expected {top}");
    }
  }

  #[test]
  fn a_compound_body_carries_each_collider_where_it_was_put() {
    let mut w = PhysicsWorld::new();
    w.create_body(&desc(serde_json::json!({ "kind": "static", "position": [0.0, 1.0, 0.0], "colliders": [
      { "shape": { "type": "box", "halfExtents": [0.5, 0.5, 0.5] }, "offset": [-2.0, 0.0, 0.0] },
      { "shape": { "type": "sphere", "radius": 0.5 }, "offset": [2.0, 1.0, 0.0], "sensor": true },
      { "shape": { "type": "cylinder", "halfHeight": 1.0, "radius": 0.5 }, "offset": [0.0, 0.0, 3.0], "rotation": [0.7071068, 0.0, 0.0, 0.7071068] }
    ] }))).unwrap();
    assert!((down(&mut w, -2.0, 0.0).unwrap() - 1.5).abs() < 1e-4);
    assert_eq!(down(&mut w, 2.0, 0.0), None, "a sensor part does not stop rays");
    assert!((down(&mut w, 0.0, 3.8).unwrap() - 1.5).abs() < 1e-3, "the cylinder lies along z");
    assert_eq!(down(&mut w, 0.0, 0.0), None);
  }

  #[test]
  fn mesh_shapes_read_their_vertices_by_range_and_are_checked() {
    let quad = [-5.0, 0.0, -5.0, -5.0, 0.0, 5.0, 5.0, 0.0, -5.0, 5.0, 0.0, 5.0f32];
    let cube: Vec<f32> = (0..8).flat_map(|i| [(i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32]).collect();
    let vertices: Vec<f32> = quad.iter().chain(cube.iter()).copied().collect();
    let triangles = [0u32, 1, 2, 2, 1, 3];
    let mesh = MeshData { vertices: &vertices, triangles: &triangles };
    let mut w = PhysicsWorld::new();
    w.create_body_with_mesh(&desc(serde_json::json!({ "kind": "static", "shape": { "type": "trimesh", "vertices": [0, 4], "triangles": [0, 2] } })), mesh).unwrap();
    let hull = desc(serde_json::json!({ "kind": "dynamic", "position": [0.0, 3.0, 0.0], "shape": { "type": "convexHull", "vertices": [4, 8] } }));
    let h = w.create_body_with_mesh(&hull, mesh).unwrap();
    for _ in 0..180 {
      w.step(1.0 / 60.0).unwrap();
    }
    let y = w.body_state(h).unwrap().position[1];
    assert!(y.abs() < 0.02, "the hull cube rests on the trimesh floor: {y}");
    for (bad, why) in [
      (serde_json::json!({ "kind": "dynamic", "shape": { "type": "trimesh", "vertices": [0, 4], "triangles": [0, 2] } }), "convexHull"),
      (serde_json::json!({ "kind": "static", "shape": { "type": "trimesh", "vertices": [0, 4], "triangles": [0, 9] } }), "outside"),
      (serde_json::json!({ "kind": "static", "shape": { "type": "convexHull", "vertices": [0, 4] } }), "flat"),
      (serde_json::json!({ "kind": "static", "shape": { "type": "convexHull", "vertices": [10, 5] } }), "outside"),
      (serde_json::json!({ "kind": "static", "shape": { "type": "trimesh", "vertices": [0, 2], "triangles": [0, 1] } }), "out of range"),
    ] {
      let e = w.create_body_with_mesh(&desc(bad.clone()), mesh).unwrap_err();
      assert!(e.message.contains(why), "{bad}: {}", e.message);
    }
    assert_eq!(w.body_count(), 2);
  }

  #[test]
  fn a_heightfield_collider_reads_its_heights_by_range_and_is_checked() {
    // A 3×3 grid over 8 m × 8 m rising 0.5 m per metre along x, behind a run of other vertices.
    let mut buffer = vec![9.0f32; 6];
    buffer.extend((0..9).map(|i| ((i % 3) as f32 * 4.0 - 4.0) * 0.5));
    let mesh = MeshData { vertices: &buffer, triangles: &[] };
    let mut w = PhysicsWorld::new();
    let floor = desc(serde_json::json!({ "kind": "static", "position": [0.0, 1.0, 0.0], "shape": { "type": "heightfield", "heights": [6, 9], "rows": 3, "cols": 3, "size": [8.0, 8.0] } }));
    w.create_body_with_mesh(&floor, mesh).unwrap();
    for x in [-3.0f32, 0.0, 2.5] {
      let top = down(&mut w, x, 1.0).unwrap();
      assert!((top - (1.0 + x * 0.5)).abs() < 1e-4, "at x = {x}: {top}");
    }
    let ball = w.create_body(&desc(serde_json::json!({ "kind": "dynamic", "position": [0.0, 4.0, 0.0], "shape": { "type": "sphere", "radius": 0.5 } }))).unwrap();
    for _ in 0..30 {
      w.step(1.0 / 60.0).unwrap();
    }
    assert!(w.body_state(ball).unwrap().position[1] > 1.4, "the ball lands on the slope, not through it");
    let hf = |kind: &str, heights: [u32; 2], rows: u32, size: [f32; 2]| {
      desc(serde_json::json!({ "kind": kind, "shape": { "type": "heightfield", "heights": heights, "rows": rows, "cols": 3, "size": size } }))
    };
    for (bad, why) in [
      (hf("dynamic", [6, 9], 3, [8.0, 8.0]), "static and kinematic"),
      (hf("static", [6, 6], 3, [8.0, 8.0]), "3×3 needs 9, got 6"),
      (hf("static", [6, 3], 1, [8.0, 8.0]), "each at least 2"),
      (hf("static", [10, 9], 3, [8.0, 8.0]), "outside"),
      (hf("static", [6, 9], 3, [0.0, 8.0]), "size x"),
    ] {
      let e = w.create_body_with_mesh(&bad, mesh).unwrap_err();
      assert!(e.message.contains(why), "{why}: {}", e.message);
    }
    let kinematic = w.create_body_with_mesh(&hf("kinematic", [6, 9], 3, [8.0, 8.0]), mesh).unwrap();
    assert!(w.set_body_type(kinematic, BodyKind::Dynamic).unwrap_err().message.contains("heightfield"));
    let restored = PhysicsWorld::restore(&w.snapshot().unwrap()).unwrap();
    assert_eq!(restored.digest_bytes(), w.digest_bytes(), "a snapshot keeps the heightfield collider");
  }

  #[test]
  fn groups_decide_who_meets_whom() {
    let mut w = PhysicsWorld::new();
    w.create_body(&desc(serde_json::json!({ "kind": "static", "position": [0.0, -0.5, 0.0], "shape": { "type": "box", "halfExtents": [5.0, 0.5, 5.0] }, "groups": { "memberships": 1, "filter": 0xffff_ffffu32 } }))).unwrap();
    let ghost = w.create_body(&desc(serde_json::json!({ "kind": "dynamic", "position": [0.0, 2.0, 0.0], "shape": { "type": "sphere", "radius": 0.5 }, "groups": { "memberships": 2, "filter": 2 } }))).unwrap();
    let solid = w.create_body(&desc(serde_json::json!({ "kind": "dynamic", "position": [2.0, 2.0, 0.0], "shape": { "type": "sphere", "radius": 0.5 }, "groups": { "memberships": 2, "filter": 1 } }))).unwrap();
    for _ in 0..120 {
      w.step(1.0 / 60.0).unwrap();
    }
    assert!(w.body_state(ghost).unwrap().position[1] < -2.0);
    assert!((w.body_state(solid).unwrap().position[1] - 0.5).abs() < 0.02);
  }
}
