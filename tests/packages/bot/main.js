// An in-world player's policy: push away from the nearest thing it sees.
function decide(perception) {
  const near = perception.nearby[0];
  if (!near || !perception.selfEntity) return [];
  const [x, , z] = perception.position;
  const away = [x - near.position[0], 0, z - near.position[2]];
  return [{ tool: "physics.applyImpulse", input: { entity: perception.selfEntity, impulse: away } }];
}
