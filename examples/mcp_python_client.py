"""The official Python MCP SDK talking to `limina --mcp-stdio`.

Run (after scripts/setup.sh created .venv): .venv/bin/python examples/mcp_python_client.py [path-to-limina]
Standard MCP clients run under the profile given by --profile (default builder.readWrite).
"""
import asyncio
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(limina):
    params = StdioServerParameters(command=limina, args=["--mcp-stdio", "--profile", "builder.readWrite"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            print(f"connected to {init.server_info.name} {init.server_info.version}")
            tools = (await session.list_tools()).tools
            print(f"{len(tools)} tools; searching for lighting tools:")
            found = await session.call_tool("skills.search", {"query": "lighting shadows", "limit": 3})
            for r in found.structured_content["results"]:
                print(f"  {r['name']}: {r['description'][:70]}")
            made = await session.call_tool("scene.createEntity", {"shape": "box", "size": 2, "position": [0, 1, 0], "static": True})
            print("created", made.structured_content["entity"])
            lit = await session.call_tool("three.setLighting", {"castShadow": True})
            print("lighting:", "ok" if not lit.is_error else lit.content[0].text)


asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "target/release/limina"))
