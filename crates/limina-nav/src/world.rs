//! One world session's navigation: its navmesh (if baked), its crowd and
//! the search state they share — and the snapshot of what a world file
//! must hold to carry them (the bake's parameters and revisions, the crowd;
//! the mesh itself is baked again from the same static geometry).

use limina_ops::OpError;
use limina_physics::PhysicsWorld;

use crate::crowd::Crowd;
use crate::math::V3;
use crate::navmesh::{Located, NavMesh};
use crate::params::NavParams;
use crate::query::{self, PathResult, Search};

/// Bumped whenever the encoding below changes; older snapshots are refused by name.
const SNAPSHOT_VERSION: u32 = 1;

#[derive(Default)]
pub struct NavWorld {
  pub mesh: Option<NavMesh>,
  pub crowd: Crowd,
  pub search: Search,
}

/// The bake (with its resolved bounds) and its revision counters.
type SavedMesh = Option<(NavParams, u64, Vec<u64>)>;

#[derive(serde::Serialize)]
struct SnapshotRef<'a> {
  version: u32,
  mesh: SavedMesh,
  crowd: &'a Crowd,
}

#[derive(serde::Deserialize)]
struct Snapshot {
  version: u32,
  mesh: SavedMesh,
  crowd: Crowd,
}

/// How far (x/z, y) a query point may be from the mesh and still be placed on it.
pub fn query_reach(mesh: &NavMesh) -> [f32; 3] {
  let p = &mesh.params;
  [p.agent_radius * 2.0 + p.cell_size * 4.0, p.agent_height.max(2.0), p.agent_radius * 2.0 + p.cell_size * 4.0]
}

impl NavWorld {
  /// Bakes the navmesh over `physics`'s static colliders, replacing any earlier one.
  pub fn build(&mut self, physics: &PhysicsWorld, params: NavParams) -> Result<&NavMesh, OpError> {
    let mesh = NavMesh::bake(physics, params)?;
    let revision = self.mesh.as_ref().map_or(0, |m| m.revision);
    let mut mesh = mesh;
    // Revisions only grow, so agents planned on an earlier mesh plan again.
    mesh.revision = revision + 1;
    mesh.tile_revision.iter_mut().for_each(|r| *r = revision + 1);
    self.mesh = Some(mesh);
    Ok(self.mesh.as_ref().unwrap())
  }

  pub fn mesh(&self) -> Result<&NavMesh, OpError> {
    self.mesh.as_ref().ok_or_else(|| OpError::unavailable("no navmesh: build one first (nav.build)"))
  }

  pub fn locate(&self, p: V3) -> Result<Option<Located>, OpError> {
    let mesh = self.mesh()?;
    Ok(mesh.locate(p, query_reach(mesh)))
  }

  /// A path from `from` to `to`; `None` when either is off the mesh.
  pub fn find_path(&mut self, from: V3, to: V3) -> Result<Option<PathResult>, OpError> {
    let mesh = self.mesh.as_ref().ok_or_else(|| OpError::unavailable("no navmesh: build one first (nav.build)"))?;
    let r = query_reach(mesh);
    let (Some(a), Some(b)) = (mesh.locate(from, r), mesh.locate(to, r)) else { return Ok(None) };
    Ok(Some(query::find_path(mesh, &mut self.search, &a, &b)))
  }

  /// Whether a walk from `from` to `to` exists: islands first, then a search.
  pub fn reachable(&mut self, from: V3, to: V3) -> Result<Option<bool>, OpError> {
    let mesh = self.mesh.as_ref().ok_or_else(|| OpError::unavailable("no navmesh: build one first (nav.build)"))?;
    let r = query_reach(mesh);
    let (Some(a), Some(b)) = (mesh.locate(from, r), mesh.locate(to, r)) else { return Ok(None) };
    if !mesh.same_island(a.poly, b.poly) {
      return Ok(Some(false));
    }
    Ok(Some(self.search.corridor(mesh, &a, &b).0))
  }

  /// Whether `from` and `to` lie on connected parts of the mesh (cheap: no search).
  pub fn connected(&self, from: V3, to: V3) -> Option<bool> {
    let mesh = self.mesh.as_ref()?;
    let r = query_reach(mesh);
    let (a, b) = (mesh.locate(from, r)?, mesh.locate(to, r)?);
    Some(mesh.same_island(a.poly, b.poly))
  }

  /// Rebuilds tiles under changed static geometry; returns how many.
  pub fn refresh(&mut self, physics: &PhysicsWorld) -> u32 {
    self.mesh.as_mut().map_or(0, |m| m.refresh(physics).len() as u32)
  }

  pub fn snapshot(&self) -> Result<Vec<u8>, OpError> {
    let mesh = self.mesh.as_ref().map(|m| {
      let mut params = m.params.clone();
      params.bounds = Some(m.bounds);
      (params, m.revision, m.tile_revision.clone())
    });
    let snap = SnapshotRef { version: SNAPSHOT_VERSION, mesh, crowd: &self.crowd };
    bincode::serialize(&snap).map_err(|e| OpError::internal(format!("cannot serialise navigation: {e}")))
  }

  /// Navigation as a snapshot saved it, its mesh baked again over `physics` (the restored world).
  pub fn restore(bytes: &[u8], physics: &PhysicsWorld) -> Result<NavWorld, OpError> {
    let snap: Snapshot = bincode::deserialize(bytes).map_err(|e| OpError::invalid_input(format!("not a navigation snapshot: {e}")))?;
    if snap.version != SNAPSHOT_VERSION {
      return Err(OpError::invalid_input(format!(
        "navigation snapshot version {} is not supported (this engine reads version {SNAPSHOT_VERSION})",
        snap.version
      )));
    }
    let mesh = match snap.mesh {
      None => None,
      Some((params, revision, tile_revision)) => {
        let mut mesh = NavMesh::bake(physics, params)?;
        if tile_revision.len() != mesh.tiles.len() {
          return Err(OpError::invalid_input("navigation snapshot's tiles do not match its bake"));
        }
        mesh.revision = revision;
        mesh.tile_revision = tile_revision;
        Some(mesh)
      }
    };
    Ok(NavWorld { mesh, crowd: snap.crowd, search: Search::default() })
  }

  /// What the world digest hashes: the mesh's polygons and floors, then the crowd.
  pub fn digest_bytes(&self) -> Vec<u8> {
    let mut out = Vec::new();
    // Nothing to navigate adds nothing to the digest.
    if self.mesh.is_none() && self.crowd.agents.is_empty() {
      return out;
    }
    match &self.mesh {
      Some(m) => {
        out.push(1);
        m.digest_into(&mut out);
      }
      None => out.push(0),
    }
    self.crowd.digest_into(&mut out);
    out
  }
}
