"""The official Python MCP SDK's `Client` against `limina` under the stateless revision 2026-07-28.

Over Streamable HTTP and over stdio, in the SDK's default mode ('auto': it probes
`server/discover` and adopts 2026-07-28) and pinned to '2026-07-28': lists the tools, creates an
entity, and finds it in the world from a separate request; a `listen()` stream hears the tool list
change that a `dev.reload` causes. Over HTTP a 2025-11-25 session of the
same server (the SDK's legacy mode) sees the entity too, and the SDK's 'legacy' mode still
negotiates an initialize session.
Usage: python tests/mcp/python_modern_client.py <path-to-limina>
"""
import asyncio
import json
import os
import re
import subprocess
import sys

import anyio
from mcp import StdioServerParameters
from mcp.client.client import Client
from mcp.client.subscriptions import ToolsListChanged

MODERN = "2026-07-28"


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def start_http(limina):
    server = subprocess.Popen([limina, "--mcp-http", "--port", "0", "--dev"], stderr=subprocess.PIPE, text=True)
    for line in server.stderr:
        m = re.search(r"listening on (http://127\.0\.0\.1:\d+/mcp)", line)
        if m:
            return server, m.group(1)
    fail(f"the server exited {server.wait()} before listening")


def entities_near(result, position):
    """The ids of the entities a scene.queryEntities result lists at `position`."""
    if result.is_error:
        fail(f"scene.queryEntities failed: {result.content}")
    return {e["entity"] for e in result.structured_content["entities"] if e["position"] == position}


async def build_and_look(client, label, position, probed):
    """Lists the tools, creates an entity at `position` and finds it with a second request; returns its id.

    `probed`: the client ran server/discover ('auto'); a pinned client sends its first request straight away.
    """
    if client.protocol_version != MODERN or client.session.initialize_result is not None:
        fail(f"{label}: negotiated {client.protocol_version}, expected {MODERN} without initialize")
    if probed and (client.session.discover_result is None or client.server_info is None or client.server_info.name != "limina"):
        fail(f"{label}: server/discover gave {client.session.discover_result}")
    tools = (await client.list_tools()).tools
    names = {t.name for t in tools}
    if not {"scene.createEntity", "scene.queryEntities"} <= names:
        fail(f"{label}: tools {sorted(names)}")
    create = next(t for t in tools if t.name == "scene.createEntity")
    if "shape" not in create.input_schema.get("properties", {}):
        fail(f"{label}: scene.createEntity has no inputSchema")
    made = await client.call_tool("scene.createEntity", {"shape": "box", "position": position, "static": True})
    if made.is_error:
        fail(f"{label}: createEntity failed: {made.content}")
    entity = made.structured_content["entity"]
    if not re.fullmatch(r"ent_\d+", entity) or json.loads(made.content[0].text)["entity"] != entity:
        fail(f"{label}: createEntity answered {made}")
    seen = entities_near(await client.call_tool("scene.queryEntities", {"near": position, "radius": 0.01}), position)
    if entity not in seen:
        fail(f"{label}: {entity} is not in the world ({seen})")
    return entity, len(tools)


async def hears_tool_changes(client, label):
    """Listens for tool-list changes, reloads a skill, and hears of it."""
    async with client.listen(tools_list_changed=True) as sub:
        if sub.honored.tools_list_changed is not True:
            fail(f"{label}: listen honoured {sub.honored}")
        reloaded = await client.call_tool("dev.reload", {"target": "skill", "name": "scene.createEntity"})
        if reloaded.is_error:
            fail(f"{label}: dev.reload failed: {reloaded.content}")
        with anyio.fail_after(20):
            async for event in sub:
                if not isinstance(event, ToolsListChanged):
                    fail(f"{label}: listen told {event}")
                break


async def over_http(limina):
    server, url = start_http(limina)
    try:
        made = {}
        async with Client(url) as client:  # mode='auto', the SDK's default
            made["http-auto"], tools = await build_and_look(client, "http auto", [3, 0.5, 0], True)
            await hears_tool_changes(client, "http auto")
        async with Client(url, mode=MODERN) as client:
            made["http-pinned"], _ = await build_and_look(client, "http 2026-07-28", [4, 0.5, 0], False)
            # The stateless requests see each other's entities: one world.
            seen = entities_near(await client.call_tool("scene.queryEntities", {"near": [3, 0.5, 0], "radius": 0.01}), [3, 0.5, 0])
            if made["http-auto"] not in seen:
                fail(f"the pinned client does not see {made['http-auto']}")
        async with Client(url, mode="legacy") as client:
            if client.protocol_version != "2025-11-25" or client.session.initialize_result is None:
                fail(f"legacy mode negotiated {client.protocol_version}")
            seen = entities_near(await client.call_tool("scene.queryEntities", {"near": [4, 0.5, 0], "radius": 0.01}), [4, 0.5, 0])
            if made["http-pinned"] not in seen:
                fail(f"a 2025-11-25 session does not see {made['http-pinned']}")
        return made, tools
    finally:
        server.terminate()
        server.wait()


async def over_stdio(limina):
    made = {}
    for mode, label in (("auto", "stdio-auto"), (MODERN, "stdio-pinned")):
        params = StdioServerParameters(command=limina, args=["--mcp-stdio", "--dev"], env=dict(os.environ))
        async with Client(params, mode=mode) as client:
            made[label], _ = await build_and_look(client, label, [5, 0.5, 0], mode == "auto")
            await hears_tool_changes(client, label)
    # Under a read-only operator profile the stateless client may look but not build.
    reader = StdioServerParameters(command=limina, args=["--mcp-stdio", "--profile", "system.readonly"], env=dict(os.environ))
    async with Client(reader) as client:
        if client.protocol_version != MODERN:
            fail(f"stdio read-only: negotiated {client.protocol_version}")
        looked = await client.call_tool("scene.queryEntities", {})
        if looked.is_error:
            fail(f"scene.queryEntities under system.readonly: {looked}")
        denied = await client.call_tool("scene.createEntity", {})
        if not denied.is_error or not denied.content[0].text.startswith("forbidden: missing permission: scene.write"):
            fail(f"scene.createEntity under system.readonly: {denied}")
    return made


async def main(limina):
    made, tools = await over_http(limina)
    made.update(await over_stdio(limina))
    print(json.dumps({"ok": True, "sdk": "mcp (python)", "protocol": MODERN, "tools": tools, "entities": made}))


asyncio.run(main(sys.argv[1]))
