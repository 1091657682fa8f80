//! The world's static geometry, read in place by whatever bakes from it
//! (navigation): every solid collider of a fixed body, in collider order.

use rapier3d::prelude::{Collider, ColliderHandle};

use crate::world::PhysicsWorld;

impl PhysicsWorld {
  /// Solid colliders on fixed bodies or on no body, in Rapier's collider order.
  pub fn static_colliders(&self) -> impl Iterator<Item = (ColliderHandle, &Collider)> {
    let bodies = &self.rapier.bodies;
    self.rapier.colliders.iter().filter(move |(_, c)| {
      !c.is_sensor() && c.parent().is_none_or(|b| bodies.get(b).is_some_and(|rb| rb.is_fixed()))
    })
  }
}
