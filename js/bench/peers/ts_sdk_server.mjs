// The peer the stdio bench measures Limina against: the official TypeScript
// MCP SDK's server over stdio, answering one trivial tool (no world, no
// policy, no log) — what a server that does nothing costs per call.
// Run by js/bench/mcp_stdio.mjs: node js/bench/peers/ts_sdk_server.mjs
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const server = new McpServer({ name: "ts-sdk-peer", version: "1.0.0" });
server.registerTool("peer.read", { description: "Answers at once: the cheapest read a server can make." }, async () => ({
  content: [{ type: "text", text: '{"entities":[]}' }],
}));
await server.connect(new StdioServerTransport());
