host.invoke("agent.emitEvent", { type: "never" });
