"""A local HTTP server speaking Ollama's /api/chat and an OpenAI-compatible
/v1/chat/completions, for testing Limina's LLM providers against real HTTP.

The request's model name picks the behaviour:
  tool   - a native tool call to the first tool offered (with valid-looking arguments)
  text   - the call written as JSON in the message content (the fallback path)
  empty  - an empty message
  badjson - a body that is not JSON
  slow   - a tool call after 600 ms
  chat   - a plain text line (for OllamaChat)
Every request body is appended to the file named by --log, one JSON per line.
Prints "port N" once listening.
"""
import argparse
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--log", default=None)
args = parser.parse_args()


def first_tool_call(body):
    tool = body["tools"][0]["function"]
    name = tool["name"]
    if name == "agent__emitEvent":
        arguments = {"type": "hello", "payload": {"from": "llm"}}
    else:
        arguments = {}
    return name, arguments


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
            with open(args.log, "a") as f:
                f.write(json.dumps({"path": self.path, "auth": self.headers.get("Authorization"), "body": body}) + "\n")
        mode = body.get("model", "")
        if mode == "slow":
            time.sleep(0.6)
        if mode == "badjson":
            return self.reply(200, None, raw=b"{not json")
        openai = self.path.endswith("/chat/completions")
        if mode == "chat":
            message = {"role": "assistant", "content": "Hello there, traveller."}
        elif mode == "empty":
            message = {"role": "assistant", "content": ""}
        else:
            name, arguments = first_tool_call(body)
            if mode == "text":
                message = {"role": "assistant", "content": "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"}
            elif openai:
                message = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}
            else:
                message = {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": name, "arguments": arguments}}]}
        if openai:
            self.reply(200, {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "usage": {"total_tokens": 42}})
        elif self.path == "/api/chat":
            self.reply(200, {"model": mode, "message": message, "done": True, "eval_count": 10, "prompt_eval_count": 30})
        else:
            self.reply(404, {"error": "not found"})


server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
print(f"port {server.server_address[1]}", flush=True)
server.serve_forever()
