host.invoke("scene.createEntity", {});
