// A world module whose building fails: what js/test/mcp_start.ts serves to
// show a stdio server answers its handshake without the world, and reports
// the failure to each request that needs the world.
export default function build(): void {
  throw new Error("this world cannot be built");
}
