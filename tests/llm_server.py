"""A local HTTP server speaking Ollama's /api/chat and an OpenAI-compatible
/v1/chat/completions, for testing Limina's LLM providers against real HTTP.

The request's model name picks the behaviour:
  tool   - a native tool call to the first tool offered (with valid-looking arguments)
  text   - the call written as JSON in the message content (the fallback path)
  empty  - an empty message
  badjson - a body that is not JSON
  slow   - a tool call after 600 ms
  chat   - a plain text line (for OllamaChat)
  prose  - a sentence that is neither a tool call nor the JSON action grammar
  badargs - a native tool call whose arguments are not JSON
  call:SKILL[:JSON] - a native tool call to SKILL with those arguments
      (default {}), offered or not
  discover:SKILL[:JSON] - progressive discovery as a model does it: a tool
      call to SKILL when the request offers it as a tool, else read_skill
  grammar:SKILL[:JSON] - SKILL in the JSON action grammar, as message text
  play:SKILL[:JSON] - like discover, but in a conversation's turn (end_conversation
      is offered) a line said with social.say
  status:CODE:N[:RETRY-AFTER][:tag] - the first N requests of this model name
      are answered HTTP CODE (with that Retry-After), then like `tool`
  huge-json - a well-formed reply padded to 40 MiB
or, as a hostile or broken server, writes raw HTTP (see HOSTILE below).
Every request body is appended to the file named by --log, one JSON per line,
with the server's monotonic time of arrival.
--tls CERT KEY serves HTTPS instead (tests/fixtures/tls: a CA and a
127.0.0.1/localhost certificate it signed, valid 2000-2999, made once with
Python's cryptography package). Prints "port N" once listening, then
"silent N" (a port that accepts connections and never says a word) and
"full N" (a port whose accept queue is full: connecting never completes);
exits after 5 minutes in any case.
"""
import argparse
import json
import os
import socket
import ssl
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--log", default=None)
parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
args = parser.parse_args()

# Every endless writer stops by itself: at the client's hang-up, or at these.
MAX_BYTES = 64 << 20
MAX_SECONDS = 10


def flood(out, head, block):
    """Writes head, then block after block, until the client hangs up (or a bound)."""
    sent, until = 0, time.monotonic() + MAX_SECONDS
    try:
        out.write(head)
        while sent < MAX_BYTES and time.monotonic() < until:
            out.write(block)
            sent += len(block)
    except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
        pass


def drip(out):
    """A valid head promising 1000 bytes, then one byte every 50 ms."""
    try:
        out.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
        for _ in range(int(MAX_SECONDS / 0.05)):
            out.write(b" ")
            time.sleep(0.05)
    except (BrokenPipeError, ConnectionResetError):
        pass


def reset(handler):
    """Half a response, then a TCP reset (SO_LINGER 0) instead of a close."""
    handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"message\"")
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.connection.close()


CHUNKED = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
HOSTILE = {
    # a chunk size past 2**64 after a first chunk
    "chunk-overflow": lambda h: h.wfile.write(CHUNKED + b"5\r\nhello\r\n10000000000000000\r\n"),
    # the size that overflowed the old client's arithmetic, then that many bytes, for real
    "chunk-huge": lambda h: flood(h.wfile, CHUNKED + b"5\r\nhello\r\nfffffffffffffffb\r\n", b"x" * 65536),
    # a chunk-size line that never ends (an endless extension)
    "endless-chunk-line": lambda h: flood(h.wfile, CHUNKED + b"5;", b"a" * 65536),
    # a header line that never ends
    "endless-header": lambda h: flood(h.wfile, b"HTTP/1.1 200 OK\r\nX-Endless: ", b"a" * 65536),
    "drip": lambda h: drip(h.wfile),
    "bad-utf8": lambda h: h.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"a\": \"\xff\xfe\"}"),
    # a declared length past the cap, then nothing
    "huge-length": lambda h: h.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1099511627776\r\n\r\n"),
    # no declared length: bytes until the client hangs up
    "huge-stream": lambda h: flood(h.wfile, b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", b"x" * 65536),
    "reset": reset,
    # a redirect to itself, for ever
    "redirect": lambda h: h.wfile.write(f"HTTP/1.1 302 Found\r\nLocation: {h.path}\r\nContent-Length: 0\r\n\r\n".encode()),
}


def first_tool_call(body):
    tool = body.get("tools", [{"function": {"name": "agent__emitEvent"}}])[0]["function"]
    name = tool["name"]
    if name == "agent__emitEvent":
        arguments = {"type": "hello", "payload": {"from": "llm"}}
    else:
        arguments = {}
    return name, arguments


LOG_LOCK = threading.Lock()
# Requests seen per `status:` model name.
STATUS_SEEN = {}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def reply(self, status, payload, raw=None):
        data = raw if raw is not None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if args.log:
            with LOG_LOCK, open(args.log, "a") as f:
                f.write(json.dumps({"path": self.path, "auth": self.headers.get("Authorization"), "at": time.monotonic(), "body": body}) + "\n")
        mode = body.get("model", "")
        if mode in HOSTILE:
            self.close_connection = True
            return HOSTILE[mode](self)
        if mode == "slow":
            time.sleep(0.6)
        if mode == "badjson":
            return self.reply(200, None, raw=b"{not json")
        if mode.startswith("status:"):
            _, code, n, *rest = mode.split(":")
            with LOG_LOCK:
                seen = STATUS_SEEN.get(mode, 0)
                STATUS_SEEN[mode] = seen + 1
            if seen < int(n):
                self.send_response(int(code))
                if rest and rest[0]:
                    self.send_header("Retry-After", rest[0])
                data = json.dumps({"error": {"message": f"status {code}"}}).encode()
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                return
            mode = "tool"
        openai = self.path.endswith("/chat/completions")

        def call(name, arguments):
            name = name.replace(".", "__")
            if openai:
                return {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}
            return {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": name, "arguments": arguments}}]}

        def skill_and_args(spec):
            skill, _, raw = spec.partition(":")
            return skill, json.loads(raw) if raw else {}

        if mode == "chat":
            message = {"role": "assistant", "content": "Hello there, traveller."}
        elif mode == "empty":
            message = {"role": "assistant", "content": ""}
        elif mode == "prose":
            message = {"role": "assistant", "content": "I think I will wave at the traveller and then look around."}
        elif mode == "badargs":
            message = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "agent__emitEvent", "arguments": "{type: hello"}}]}
        elif mode == "huge-json":
            message = {"role": "assistant", "content": "", "padding": "x" * (40 << 20)}
        elif mode.startswith("call:"):
            message = call(*skill_and_args(mode[len("call:"):]))
        elif mode.startswith("grammar:"):
            skill, arguments = skill_and_args(mode[len("grammar:"):])
            message = {"role": "assistant", "content": json.dumps({"actions": [{"tool": skill, "input": arguments}]})}
        elif mode.startswith("discover:") or mode.startswith("play:"):
            skill, arguments = skill_and_args(mode.partition(":")[2])
            offered = {t["function"]["name"] for t in body.get("tools", [])}
            if mode.startswith("play:") and "end_conversation" in offered:
                message = call("social.say", {"text": "Well met; tell me of these ruins."})
            else:
                message = call(skill, arguments) if skill.replace(".", "__") in offered else call("read_skill", {"id": skill})
        else:
            name, arguments = first_tool_call(body)
            if mode == "text":
                message = {"role": "assistant", "content": "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"}
            else:
                message = call(name, arguments)
        if openai:
            self.reply(200, {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "usage": {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42}})
        elif self.path == "/api/chat":
            self.reply(200, {"model": mode, "message": message, "done": True, "eval_count": 10, "prompt_eval_count": 30})
        else:
            self.reply(404, {"error": "not found"})


# A suite that dies before it stops the server cannot leave it running.
threading.Timer(300, os._exit, [0]).start()
# The tests open a dozen connections at once; socketserver's backlog of 5
# would drop the rest's SYNs and cost them a one-second retransmit.
ThreadingHTTPServer.request_queue_size = 64
server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
if args.tls:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*args.tls)
    # The handshake runs in the request's thread, so a client that never
    # finishes one cannot stall the accept loop.
    server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
print(f"port {server.server_address[1]}", flush=True)


def silent_acceptor(sock):
    """Accepts connections and keeps them open without a word (until the client hangs up)."""
    held = []
    while True:
        conn, _ = sock.accept()
        held.append(conn)


silent = socket.socket()
silent.bind(("127.0.0.1", 0))
silent.listen(64)
threading.Thread(target=silent_acceptor, args=(silent,), daemon=True).start()
print(f"silent {silent.getsockname()[1]}", flush=True)
# A listener that never accepts, its one-slot queue taken: further SYNs go unanswered.
full = socket.socket()
full.bind(("127.0.0.1", 0))
full.listen(0)
filler = socket.create_connection(full.getsockname())
print(f"full {full.getsockname()[1]}", flush=True)
server.serve_forever()
