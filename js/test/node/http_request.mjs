// One raw HTTP request to a local server, with nothing in between: the
// status, headers and body as they came, the body parsed as JSON where it
// is JSON. A connection error resolves with its code as the status, so a
// refusal reads like any other outcome.
import http from "node:http";

/** `body` goes as is when a string, as JSON otherwise; `from` is the local address; `agent` false opens a fresh connection. */
export function httpRequest(port, method, { path = "/mcp", headers = {}, body, from, agent = false } = {}) {
  const data = body === undefined || typeof body === "string" ? body : JSON.stringify(body);
  return new Promise((resolve) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, localAddress: from, agent, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => {
        let json = null;
        try {
          json = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode, headers: res.headers, text, json });
      });
    });
    req.on("error", (e) => resolve({ status: e.code, error: e }));
    // Node sends a Content-Length for a body given to end(), unless the caller chose chunked transfer.
    if ("transfer-encoding" in headers && data !== undefined) req.write(data);
    req.end("transfer-encoding" in headers ? undefined : data);
  });
}

/** The headers a Streamable HTTP client sends with a JSON-RPC POST. */
export const MCP_POST_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
