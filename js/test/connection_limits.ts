// limina: waits
// The network servers under attacks on their connections (--mcp-http and
// --mcp-ws with a token and --max-clients 4): each attack is refused or
// timed out precisely, and a well-behaved client from another address is
// served throughout. The driver is js/test/node/http_limits.mjs.
import { assert, test } from "limina/testing";
import { drive } from "./support/drivers.ts";

const attack = async (name: string, least: number) => {
  const out = await drive("node", "js/test/node/http_limits.mjs", name);
  assert((out.checks as number) >= least, JSON.stringify(out));
};

test("slow bodies (complete headers, one byte of body) get 408 after the request timeout; past half the unfinished slots one address is refused with 503", () => attack("slow bodies", 4));
test("slow headers (unauthenticated, never finished) are closed after the request timeout; past half the unfinished slots one address is refused with 503", () => attack("slow headers", 3));
test("idle keep-alive connections in every slot: the longest-idle one is closed so a new client is served, not reset", () => attack("idle keep-alive connections", 3));
test("concurrent initializes against --max-clients 4: exactly 4 sessions, the rest 503, counted when granted", () => attack("concurrent initializes", 3));
test("GET and stateless listen stream floods take at most half the connection slots; requests keep the other half", () => attack("stream floods", 6));
test("a stopped server's backlog: requests already whole are served however many come from one address, beside slow bodies from it", () => attack("a stopped server's backlog", 2));
test("a stopped server's handshake backlog: WebSocket handshakes already whole are answered however many come from one address, beside silent connections from it", () => attack("a stopped server's handshake backlog", 1));
test("WebSocket connections that never handshake: past half the handshake slots one address is refused with 503, the rest dropped after the handshake timeout", () => attack("websocket handshakes", 3));
