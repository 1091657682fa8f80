// An in-world player's policy: push away from the nearest thing it sees.
// It reads the world from host.perception, the snapshot the host injects
// before each decision (the same envelope decide is given).
function decide() {
  const perception = host.perception;
  const near = perception.nearby[0];
  if (!near || !perception.selfEntity) return [];
  const [x, , z] = perception.position;
  const away = [x - near.position[0], 0, z - near.position[2]];
  return [{ tool: "physics.applyImpulse", input: { entity: perception.selfEntity, impulse: away } }];
}
