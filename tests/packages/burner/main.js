// Keeps working hard: every tick it spends one to two milliseconds (the
// tick-starvation attack: many of these, each within its own budget).
host.onTick(() => {
  const until = Date.now() + 2;
  while (Date.now() < until) {}
});
