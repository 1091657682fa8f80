// Loads fine, then every tick runs far past any per-tick budget.
host.onTick(() => {
  for (;;) {}
});
