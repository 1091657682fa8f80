// Keeps working: every 10th tick it signals how many ticks it has seen.
let seen = 0;
host.onTick(({ tick }) => {
  seen++;
  if (seen % 10 === 0) return host.invoke("agent.emitEvent", { type: "ticked", payload: { seen, tick } });
});
