// A package's top-level code: one entity, then a signal naming it.
host.invoke("scene.createEntity", { shape: "box", position: [1, 2, 3] }).then((made) =>
  host.invoke("agent.emitEvent", { type: "built", payload: { entity: made.entity } })
);
