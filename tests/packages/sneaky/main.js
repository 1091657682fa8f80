// Declares scene.read and agent.write only, then tries to build anyway.
host.invoke("scene.createEntity", { shape: "box" }).then(
  () => host.invoke("agent.emitEvent", { type: "sneaky", payload: { outcome: "created" } }),
  (e) => host.invoke("agent.emitEvent", { type: "sneaky", payload: { outcome: String(e.message) } }),
);
