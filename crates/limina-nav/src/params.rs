//! What a navmesh is baked for: the agent it must carry, the grid it is
//! sampled on, its extent, costed or blocked areas and off-mesh links.

use limina_ops::OpError;

use crate::math::V3;

/// The largest extent on any axis (the world's: ±100 km).
const WORLD_EXTENT: f32 = 1e5;
/// Tiles are addressed by 16 bits.
pub const MAX_TILES: usize = 65535;

/// An axis-aligned box of the world.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
  pub min: V3,
  pub max: V3,
}

impl Bounds {
  pub fn contains_xz(&self, p: V3) -> bool {
    p[0] >= self.min[0] && p[0] <= self.max[0] && p[2] >= self.min[2] && p[2] <= self.max[2]
  }

  pub fn contains(&self, p: V3) -> bool {
    self.contains_xz(p) && p[1] >= self.min[1] && p[1] <= self.max[1]
  }
}

/// A box whose floor costs `cost` times its length to cross (area costs), or
/// that agents never enter (`cost` absent: blocked).
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct AreaVolume {
  pub min: V3,
  pub max: V3,
  /// Multiplier of the length walked inside (1 = normal ground); absent: blocked.
  pub cost: Option<f32>,
}

/// A connection the floor does not show (a jump, a ladder, a door): agents
/// may go from `from` to `to` (and back when `bidirectional`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OffMeshLink {
  pub from: V3,
  pub to: V3,
  #[serde(default = "yes")]
  pub bidirectional: bool,
  /// What taking the link costs (default: its length).
  pub cost: Option<f32>,
}

fn yes() -> bool {
  true
}

/// Everything one bake depends on besides the static geometry.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NavParams {
  /// The agent's radius: floors are eroded this far from walls and ledges (m).
  #[serde(default = "d_radius")]
  pub agent_radius: f32,
  /// Headroom the agent needs (m).
  #[serde(default = "d_height")]
  pub agent_height: f32,
  /// The steepest walkable floor, degrees from horizontal.
  #[serde(default = "d_slope")]
  pub max_slope: f32,
  /// The highest step the agent climbs (m).
  #[serde(default = "d_climb")]
  pub max_climb: f32,
  /// The sampling grid's cell, in x and z (m).
  #[serde(default = "d_cell")]
  pub cell_size: f32,
  /// A tile's side in cells: the unit of local rebuilds.
  #[serde(default = "d_tile")]
  pub tile_size: u32,
  /// The region baked; absent: the static geometry's bounds.
  pub bounds: Option<Bounds>,
  #[serde(default)]
  pub areas: Vec<AreaVolume>,
  #[serde(default)]
  pub links: Vec<OffMeshLink>,
}

fn d_radius() -> f32 {
  0.4
}
fn d_height() -> f32 {
  1.8
}
fn d_slope() -> f32 {
  45.0
}
fn d_climb() -> f32 {
  0.4
}
fn d_cell() -> f32 {
  0.25
}
fn d_tile() -> u32 {
  64
}

impl Default for NavParams {
  fn default() -> Self {
    Self {
      agent_radius: d_radius(),
      agent_height: d_height(),
      max_slope: d_slope(),
      max_climb: d_climb(),
      cell_size: d_cell(),
      tile_size: d_tile(),
      bounds: None,
      areas: Vec::new(),
      links: Vec::new(),
    }
  }
}

fn in_range(name: &str, v: f32, lo: f32, hi: f32) -> Result<(), OpError> {
  if v.is_finite() && v >= lo && v <= hi {
    Ok(())
  } else {
    Err(OpError::invalid_input(format!("{name} must be in [{lo}, {hi}], got {v}")))
  }
}

fn point(name: &str, p: V3) -> Result<(), OpError> {
  if p.iter().all(|c| c.is_finite() && c.abs() <= WORLD_EXTENT) {
    Ok(())
  } else {
    Err(OpError::invalid_input(format!("{name} must be finite and within ±{WORLD_EXTENT} m, got {p:?}")))
  }
}

fn boxed(name: &str, min: V3, max: V3) -> Result<(), OpError> {
  point(&format!("{name}.min"), min)?;
  point(&format!("{name}.max"), max)?;
  if (0..3).all(|k| min[k] < max[k]) {
    Ok(())
  } else {
    Err(OpError::invalid_input(format!("{name}.min must be below {name}.max on every axis, got {min:?} and {max:?}")))
  }
}

impl NavParams {
  pub fn validate(&self) -> Result<(), OpError> {
    in_range("agentRadius", self.agent_radius, 0.05, 10.0)?;
    in_range("agentHeight", self.agent_height, 0.1, 20.0)?;
    in_range("maxSlope", self.max_slope, 0.0, 89.0)?;
    in_range("maxClimb", self.max_climb, 0.0, 10.0)?;
    in_range("cellSize", self.cell_size, 0.05, 5.0)?;
    if !(8..=256).contains(&self.tile_size) {
      return Err(OpError::invalid_input(format!("tileSize must be 8–256 cells, got {}", self.tile_size)));
    }
    if let Some(b) = &self.bounds {
      boxed("bounds", b.min, b.max)?;
    }
    if self.areas.len() > 250 {
      return Err(OpError::invalid_input(format!("at most 250 areas, got {}", self.areas.len())));
    }
    for (i, a) in self.areas.iter().enumerate() {
      boxed(&format!("areas[{i}]"), a.min, a.max)?;
      if let Some(c) = a.cost {
        in_range(&format!("areas[{i}].cost"), c, 0.01, 1e4)?;
      }
    }
    if self.links.len() > 4096 {
      return Err(OpError::invalid_input(format!("at most 4096 off-mesh links, got {}", self.links.len())));
    }
    for (i, l) in self.links.iter().enumerate() {
      point(&format!("links[{i}].from"), l.from)?;
      point(&format!("links[{i}].to"), l.to)?;
      if let Some(c) = l.cost {
        in_range(&format!("links[{i}].cost"), c, 0.0, 1e6)?;
      }
    }
    Ok(())
  }

  /// How many cells the floor is eroded from walls and ledges.
  pub fn erode_cells(&self) -> u32 {
    (self.agent_radius / self.cell_size).ceil() as u32
  }

  /// Extra cells rasterised round a tile, so its erosion and connections at
  /// the edge are what a bake of the whole world would give.
  pub fn border_cells(&self) -> u32 {
    self.erode_cells() + 1
  }

  /// The multiplier of walking inside area `id` (0 = ordinary floor).
  pub fn area_cost(&self, id: u8) -> f32 {
    if id == 0 {
      1.0
    } else {
      self.areas.get(id as usize - 1).and_then(|a| a.cost).unwrap_or(1.0)
    }
  }

  /// The cheapest multiplier anywhere: what keeps A*'s estimate admissible.
  pub fn min_area_cost(&self) -> f32 {
    self.areas.iter().filter_map(|a| a.cost).fold(1.0f32, f32::min)
  }
}
