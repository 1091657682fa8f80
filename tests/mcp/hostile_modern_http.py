"""Hostile input on the stateless (2026-07-28) path of `limina --mcp-http`, raw HTTP.

Each rung of the validation ladder answers with its exact JSON-RPC code and HTTP status and
changes nothing; well-formed requests are served with no session; the 2025-11-25 session path
is unchanged beside it; a token, when set, guards the stateless path too.
Prints one JSON line; exits 1 at the first failed check.
Usage: python tests/mcp/hostile_modern_http.py <path-to-limina>
"""
import http.client
import json
import re
import subprocess
import sys

MODERN = "2026-07-28"
PV = "io.modelcontextprotocol/protocolVersion"
CAPS = "io.modelcontextprotocol/clientCapabilities"
INFO = "io.modelcontextprotocol/clientInfo"
ENVELOPE = {PV: MODERN, CAPS: {}, INFO: {"name": "hostile", "version": "1"}}
checks = []


def check(cond, msg):
    if not cond:
        print(f"FAIL: {msg}", file=sys.stderr)
        sys.exit(1)
    checks.append(msg)


def start(limina, *args):
    server = subprocess.Popen([limina, "--mcp-http", "--port", "0", *args], stderr=subprocess.PIPE, text=True)
    for line in server.stderr:
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/mcp", line)
        if m:
            return server, int(m.group(1))
    check(False, f"the server exited {server.wait()} before listening")


class Endpoint:
    def __init__(self, port):
        self.port = port

    def send(self, body, headers=(), method="POST"):
        """One request; `headers` is a list of (name, value) pairs (a name may repeat). Returns (status, headers, json or None)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        conn.putrequest(method, "/mcp")
        sent = {"content-type": "application/json", "accept": "application/json, text/event-stream", "content-length": str(len(data))}
        for name, value in sent.items():
            if not any(h[0].lower() == name for h in headers):
                conn.putheader(name, value)
        for name, value in headers:
            conn.putheader(name, value)
        conn.endheaders(data)
        r = conn.getresponse()
        text = r.read().decode()
        conn.close()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, (json.loads(text) if text else None)

    def modern(self, rid, method, params, extra=(), version=MODERN, routing=True):
        """A stateless request with the routing headers a conforming client sends (unless `routing` is off)."""
        headers = [("mcp-protocol-version", version)]
        if routing:
            headers.append(("mcp-method", method))
            if method == "tools/call" and isinstance(params.get("name"), str):
                headers.append(("mcp-name", params["name"]))
        return self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}, headers + list(extra))


def rejected(reply, status, code, rid, words=""):
    s, h, body = reply
    return s == status and body is not None and body.get("id") == rid and body["error"]["code"] == code and words in body["error"]["message"] and "mcp-session-id" not in h


def entities(ep):
    s, _, body = ep.modern(900, "tools/call", {"name": "scene.queryEntities", "arguments": {}, "_meta": ENVELOPE})
    check(s == 200 and body["result"]["isError"] is False, f"scene.queryEntities: {s} {body}")
    return [e["entity"] for e in body["result"]["structuredContent"]["entities"]]


def ladder(ep):
    create = {"name": "scene.createEntity", "arguments": {"shape": "box"}}
    before = entities(ep)

    r = ep.modern(1, "tools/call", dict(create))
    check(rejected(r, 400, -32602, 1, "params._meta must be an object"), f"no _meta → 400 -32602: {r}")
    r = ep.modern(2, "tools/call", {**create, "_meta": {PV: MODERN}})
    check(rejected(r, 400, -32602, 2, CAPS), f"_meta without client capabilities → 400 -32602 naming the key: {r}")
    r = ep.modern(3, "tools/call", {**create, "_meta": {CAPS: {}}})
    check(rejected(r, 400, -32602, 3, PV), f"_meta without the protocol version → 400 -32602 naming the key: {r}")
    r = ep.send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {**create, "_meta": ENVELOPE}}, [("mcp-protocol-version", MODERN), ("mcp-method", "tools/list"), ("mcp-name", "scene.createEntity")])
    check(rejected(r, 400, -32020, 4, "mcp-method"), f"Mcp-Method disagreeing with the body → 400 -32020: {r}")
    r = ep.modern(5, "tools/call", {**create, "_meta": ENVELOPE}, routing=False)
    check(rejected(r, 400, -32020, 5, "mcp-method"), f"no Mcp-Method → 400 -32020: {r}")
    r = ep.send({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {**create, "_meta": ENVELOPE}}, [("mcp-protocol-version", MODERN), ("mcp-method", "tools/call"), ("mcp-name", "scene.destroyEntity")])
    check(rejected(r, 400, -32020, 6, "mcp-name"), f"Mcp-Name naming another tool → 400 -32020: {r}")
    r = ep.send({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {**create, "_meta": ENVELOPE}}, [("mcp-protocol-version", MODERN), ("mcp-method", "tools/call")])
    check(rejected(r, 400, -32020, 7, "mcp-name"), f"no Mcp-Name on tools/call → 400 -32020: {r}")
    r = ep.modern(8, "tools/call", {**create, "_meta": ENVELOPE}, extra=[("mcp-method", "tools/call")])
    check(rejected(r, 400, -32020, 8, "appears more than once"), f"a repeated Mcp-Method → 400 -32020: {r}")
    r = ep.modern(9, "tools/call", {**create, "_meta": {**ENVELOPE, PV: "2025-11-25"}})
    check(rejected(r, 400, -32020, 9, "protocol-version"), f"MCP-Protocol-Version disagreeing with _meta → 400 -32020: {r}")
    r = ep.modern(10, "tools/call", {**create, "_meta": {**ENVELOPE, PV: "2099-01-01"}}, version="2099-01-01")
    check(rejected(r, 400, -32022, 10) and r[2]["error"]["data"] == {"supported": [MODERN], "requested": "2099-01-01"}, f"an unsupported version → 400 -32022 with the supported list: {r}")
    r = ep.modern(11, "tools/call", {**create, "context": {"agentId": "mallory"}, "_meta": {**ENVELOPE, INFO: {"name": "mallory", "version": "1"}}})
    check(rejected(r, 400, -32602, 11, "context.agentId"), f"a call claiming another identity → 400 -32602: {r}")
    check(entities(ep) == before, "no rejected request changed the world")

    r = ep.modern(12, "ping", {"_meta": ENVELOPE})
    check(rejected(r, 404, -32601, 12, "ping"), f"ping is gone in 2026-07-28 → 404 -32601: {r}")
    r = ep.modern(13, "logging/setLevel", {"level": "debug", "_meta": ENVELOPE})
    check(rejected(r, 404, -32601, 13), f"logging/setLevel is not served statelessly → 404 -32601: {r}")
    r = ep.modern(14, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}, "_meta": ENVELOPE})
    check(rejected(r, 400, -32022, 14, "initialize"), f"initialize on the stateless path → 400 -32022: {r}")
    r = ep.send(b"{not json", [("mcp-protocol-version", MODERN)])
    check(r[0] == 400 and r[2]["error"]["code"] == -32700, f"a body that is not JSON → 400 -32700: {r}")
    r = ep.send({"jsonrpc": "2.0", "id": 15, "result": {}}, [("mcp-protocol-version", MODERN)])
    check(r[0] == 400 and r[2]["error"]["code"] == -32600, f"a posted response → 400 -32600: {r}")
    r = ep.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}, [("mcp-protocol-version", MODERN)])
    check(r[0] == 202 and r[2] is None, f"a notification → 202: {r}")
    r = ep.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}, [("mcp-protocol-version", "2099-01-01")])
    check(r[0] == 400 and r[2]["error"]["code"] == -32022, f"a notification at an unsupported version → 400 -32022: {r}")
    r = ep.send({"jsonrpc": "2.0", "id": 16, "method": "tools/list", "params": {"_meta": ENVELOPE}}, [("mcp-protocol-version", MODERN), ("mcp-method", "tools/list"), ("accept", "text/event-stream")])
    check(r[0] == 406, f"a stateless POST that does not accept JSON → 406: {r[0]}")
    r = ep.send(b"", [("mcp-protocol-version", MODERN)], method="GET")
    check(r[0] == 405 and r[1].get("allow") == "POST", f"GET under 2026-07-28 → 405 Allow: POST: {r[0]} {r[1]}")

    # Served: discover, the tool list, a call whose Mcp-Name travels base64-wrapped; never a session.
    s, h, body = ep.modern(20, "server/discover", {"_meta": ENVELOPE})
    res = body["result"]
    check(s == 200 and res["supportedVersions"] == [MODERN] and res["resultType"] == "complete" and res["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "limina", f"server/discover: {body}")
    check("logging" not in res["capabilities"] and "tools" in res["capabilities"], f"discover's capabilities: {res['capabilities']}")
    s, h, body = ep.modern(21, "tools/list", {"_meta": ENVELOPE})
    check(s == 200 and "mcp-session-id" not in h and body["result"]["cacheScope"] == "private" and body["result"]["ttlMs"] == 0, f"tools/list: {s} {h}")
    check(all(t["inputSchema"]["type"] == "object" and "$schema" not in t["inputSchema"] for t in body["result"]["tools"]), "tools/list gives 2020-12 inputSchema (MCP's default dialect)")
    r = ep.send({"jsonrpc": "2.0", "id": 22, "method": "tools/call", "params": {**create, "_meta": ENVELOPE}}, [("mcp-protocol-version", MODERN), ("mcp-method", "tools/call"), ("mcp-name", "=?base64?c2NlbmUuY3JlYXRlRW50aXR5?=")])
    check(r[0] == 200 and r[2]["result"]["isError"] is False and "mcp-session-id" not in r[1], f"tools/call with a base64-wrapped Mcp-Name: {r}")
    made = r[2]["result"]["structuredContent"]["entity"]
    check(entities(ep) == before + [made], "the call's entity is in the world")
    r = ep.modern(23, "tools/call", {"name": "scene.createEntity", "arguments": {"size": 0}, "_meta": ENVELOPE})
    check(r[0] == 200 and r[2]["result"]["isError"] is True and r[2]["result"]["content"][0]["text"].startswith("invalid_input"), f"a failed call is a tool error with status 200: {r}")
    check(entities(ep) == before + [made], "the failed call built nothing")


def legacy_beside(ep):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "legacy", "version": "1"}}}
    s, h, body = ep.send(init)
    session = h.get("mcp-session-id")
    check(s == 200 and session and body["result"]["protocolVersion"] == "2025-11-25", f"initialize still opens a session: {s} {h}")
    S = [("mcp-session-id", session), ("mcp-protocol-version", "2025-11-25")]
    s, _, body = ep.send({"jsonrpc": "2.0", "id": 2, "method": "ping"}, S)
    check(s == 200 and body["result"] == {}, "ping in the session")
    s, _, body = ep.send({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": ENVELOPE}}, S)
    check(body["error"]["code"] == -32600 and "envelope" in body["error"]["message"], f"an enveloped request inside a session → -32600: {body}")
    s, _, body = ep.send({"jsonrpc": "2.0", "id": 4, "method": "ping"}, [("mcp-session-id", session), ("mcp-protocol-version", MODERN)])
    check(s == 400 and body["error"]["code"] == -32600, f"a session request naming 2026-07-28 → 400 -32600: {s} {body}")
    s, _, body = ep.send({"jsonrpc": "2.0", "id": 5, "method": "ping"}, [("mcp-protocol-version", "2025-11-25")])
    check(s == 400 and "Mcp-Session-Id" in body["error"]["message"], f"a 2025-11-25 request without a session is still 400: {s}")
    s, _, _ = ep.send(b"", [("mcp-session-id", session)], method="DELETE")
    check(s == 200, "DELETE ends the session")


def with_token(limina):
    token = "modern-token-0123456789"
    server, port = start(limina, "--token", token)
    try:
        ep = Endpoint(port)
        r = ep.modern(1, "tools/list", {"_meta": ENVELOPE})
        check(r[0] == 401 and r[1].get("www-authenticate") == "Bearer", f"a stateless POST without the token → 401: {r[0]}")
        r = ep.modern(2, "tools/list", {"_meta": ENVELOPE}, extra=[("authorization", f"Bearer {token}")])
        check(r[0] == 200 and r[2]["result"]["tools"], f"with the token → 200: {r[0]}")
    finally:
        server.terminate()
        server.wait()


def listen_http(limina):
    """A listen stream over SSE: acknowledged, told of a tool-list change another request causes, ended by closing it."""
    server, port = start(limina, "--dev")
    try:
        ep = Endpoint(port)
        params = {"notifications": {"toolsListChanged": True}, "_meta": ENVELOPE}
        listen = {"jsonrpc": "2.0", "id": "l1", "method": "subscriptions/listen", "params": params}
        routing = [("mcp-protocol-version", MODERN), ("mcp-method", "subscriptions/listen")]
        r = ep.send(listen, routing + [("accept", "application/json")])
        check(r[0] == 406, f"a listen request that does not accept SSE → 406: {r[0]}")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        data = json.dumps(listen).encode()
        conn.request("POST", "/mcp", data, {"content-type": "application/json", "accept": "application/json, text/event-stream", **dict(routing)})
        stream = conn.getresponse()
        check(stream.status == 200 and stream.getheader("content-type") == "text/event-stream" and stream.getheader("mcp-session-id") is None, f"listen → an SSE stream: {stream.status}")

        def event():
            while True:
                line = stream.readline().decode()
                if line.startswith("data: "):
                    return json.loads(line[6:])

        tag = {"io.modelcontextprotocol/subscriptionId": "l1"}
        ack = event()
        check(ack == {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {"notifications": {"toolsListChanged": True}, "_meta": tag}}, f"the stream opens with its acknowledgement: {ack}")
        r = ep.modern(2, "tools/call", {"name": "dev.reload", "arguments": {"target": "skill", "name": "scene.createEntity"}, "_meta": ENVELOPE})
        check(r[0] == 200 and r[2]["result"]["isError"] is False, f"dev.reload: {r}")
        told = event()
        check(told == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": tag}}, f"the change reaches the stream: {told}")
        conn.close()
        r = ep.modern(3, "tools/call", {"name": "dev.reload", "arguments": {"target": "skill", "name": "scene.createEntity"}, "_meta": ENVELOPE})
        check(r[0] == 200 and r[2]["result"]["isError"] is False, "the server goes on after the listener left")
    finally:
        server.terminate()
        server.wait()


def main(limina):
    server, port = start(limina)
    try:
        ep = Endpoint(port)
        ladder(ep)
        legacy_beside(ep)
    finally:
        server.terminate()
        server.wait()
    with_token(limina)
    listen_http(limina)
    print(json.dumps({"ok": True, "checks": len(checks)}))


main(sys.argv[1])
