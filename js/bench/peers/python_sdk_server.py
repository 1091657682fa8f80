"""The Python MCP SDK's server over stdio answering one trivial tool: the
second peer js/bench/mcp_stdio.mjs measures Limina against.
Run by the bench: .venv/bin/python js/bench/peers/python_sdk_server.py"""

from mcp.server.mcpserver import MCPServer

server = MCPServer("python-sdk-peer")


@server.tool(name="peer.read", description="Answers at once: the cheapest read a server can make.")
def peer_read() -> str:
    return '{"entities":[]}'


server.run("stdio")
