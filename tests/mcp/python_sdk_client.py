"""The official Python MCP SDK against `limina --mcp-stdio`.

Usage: python tests/mcp/python_sdk_client.py <path-to-limina> <number of registered skills>
"""
import asyncio
import json
import os
import re
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from paging import all_tools


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


async def main(limina, expected):
    params = StdioServerParameters(command=limina, args=["--mcp-stdio", "--profile", "builder.readWrite"], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            if init.server_info.name != "limina":
                fail(f"server {init.server_info}")
            # Every registered skill, page by page (100 a page).
            tools = await all_tools(session)
            if len(tools) != expected:
                fail(f"{len(tools)} tools, expected the {expected} registered skills")
            create = next(t for t in tools if t.name == "scene.createEntity")
            if create.input_schema.get("type") != "object" or "shape" not in create.input_schema.get("properties", {}):
                fail("scene.createEntity has no inputSchema")
            made = await session.call_tool("scene.createEntity", {"shape": "box", "position": [1, 1, 1], "static": True})
            if made.is_error:
                fail(f"createEntity failed: {made.content}")
            entity = made.structured_content["entity"]
            if not re.fullmatch(r"ent_\d+", entity):
                fail(f"structuredContent {made.structured_content}")
            if json.loads(made.content[0].text)["entity"] != entity:
                fail("text content disagrees with structuredContent")
            unknown = await session.call_tool("social.shout", {"text": "hi"})
            if not unknown.is_error or unknown.content[0].text != "not_found: unknown skill: social.shout":
                fail(f"social.shout: {unknown}")
            denied = await session.call_tool("social.say", {"text": "hi"})
            if not denied.is_error or not denied.content[0].text.startswith("forbidden"):
                fail(f"social.say without social.act: {denied}")
    # A server whose standard clients run read-only: looking is allowed, building is not.
    reader = StdioServerParameters(command=limina, args=["--mcp-stdio", "--profile", "system.readonly"], env=dict(os.environ))
    async with stdio_client(reader) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            looked = await session.call_tool("scene.queryEntities", {})
            if looked.is_error:
                fail(f"scene.queryEntities under system.readonly: {looked}")
            denied = await session.call_tool("scene.createEntity", {})
            if not denied.is_error or not denied.content[0].text.startswith("forbidden: missing permission: scene.write"):
                fail(f"scene.createEntity under system.readonly: {denied}")
    print(json.dumps({"ok": True, "sdk": "mcp (python)", "tools": len(tools), "entity": entity}))


asyncio.run(main(sys.argv[1], int(sys.argv[2])))
