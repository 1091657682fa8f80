// Allocates 64 MiB at load, twice the host's 32 MiB limit for a package.
const held = [];
for (let i = 0; i < 64; i++) held.push(new Uint8Array(1 << 20).fill(i));
globalThis.held = held;
