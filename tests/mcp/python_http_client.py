"""The official Python MCP SDK's Streamable HTTP client against `limina --mcp-http`.

Initializes, lists the tools, creates an entity and captures it as image content.
Usage: python tests/mcp/python_http_client.py <path-to-limina>
"""
import asyncio
import base64
import json
import re
import subprocess
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from paging import all_tools


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def start(limina):
    server = subprocess.Popen([limina, "--mcp-http", "--port", "0"], stderr=subprocess.PIPE, text=True)
    for line in server.stderr:
        m = re.search(r"listening on (http://127\.0\.0\.1:\d+/mcp)", line)
        if m:
            return server, m.group(1)
    fail(f"the server exited {server.wait()} before listening")


async def main(limina):
    server, url = start(limina)
    try:
        async with streamable_http_client(url) as (read, write, *_):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                if init.server_info.name != "limina":
                    fail(f"server {init.server_info}")
                tools = await all_tools(session)
                names = {t.name for t in tools}
                if not {"scene.createEntity", "render.capture"} <= names:
                    fail(f"tools {sorted(names)}")
                made = await session.call_tool("scene.createEntity", {"shape": "box", "position": [0, 0.5, 0], "color": 0xFF0000, "static": True})
                if made.is_error:
                    fail(f"createEntity failed: {made.content}")
                entity = made.structured_content["entity"]
                shot = await session.call_tool("render.capture", {"width": 32, "height": 32, "entity": entity})
                if shot.is_error:
                    fail(f"render.capture failed: {shot.content}")
                image = next((c for c in shot.content if c.type == "image"), None)
                if image is None or image.mime_type != "image/png":
                    fail(f"no image content: {shot.content}")
                png = base64.b64decode(image.data)
                if png[1:4] != b"PNG" or int.from_bytes(png[16:20], "big") != 32:
                    fail("not a 32-pixel-wide PNG")
        print(json.dumps({"ok": True, "sdk": "mcp (python)", "transport": "streamable-http", "tools": len(tools), "entity": entity}))
    finally:
        server.terminate()
        server.wait()


asyncio.run(main(sys.argv[1]))
