"""The official Python MCP SDK against `limina --mcp-stdio` with paginated, compact tool listings.

Pages through `tools/list` with `nextCursor` (pages of 50), checks the pages join into exactly the
registered skills, validates a sample input of every skill against its listed schema (compact, and
exact when asked with `_meta`) with the validator the SDK itself uses (`jsonschema`'s
`validator_for`), shows the exact schemas refuse what the server refuses, reads the core listing a
small context window asks for, calls tools found through `skills.search` / `skills.describe`
outside it, and has a stale and a forged cursor refused.
Usage: python tests/mcp/python_listing_client.py <path-to-limina> <samples.json>
"""
import asyncio
import json
import os
import subprocess
import sys

from jsonschema.validators import validator_for
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from paging import tool_pages

PAGE = 50


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def validator(schema, checked=False):
    """The validator the SDK builds for a schema; `checked`: first hold the schema to its dialect's meta-schema (raises on a bad one)."""
    cls = validator_for(schema)
    if checked:
        cls.check_schema(schema)
    return cls(schema)


async def main(limina, samples_file):
    samples = json.load(open(samples_file))
    registered = [line.split("\t")[0] for line in subprocess.run([limina, "skills"], capture_output=True, text=True, check=True).stdout.splitlines() if line]
    params = StdioServerParameters(command=limina, args=["--mcp-stdio", "--dev", "--tools-page-size", str(PAGE)], env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listing = await tool_pages(session)
            tools = [t for page in listing for t in page.tools]
            names = [t.name for t in tools]
            if any(len(p.tools) > PAGE for p in listing) or any(len(p.tools) != PAGE for p in listing[:-1]):
                fail(f"page sizes {[len(p.tools) for p in listing]}")
            if names != registered:
                fail(f"the pages do not join into the registered skills: {len(names)} listed, {len(registered)} registered")
            listed_bytes = sum(len(json.dumps(t.model_dump(by_alias=True, exclude_none=True), separators=(",", ":"))) for t in tools)

            exact = {t.name: t for p in await tool_pages(session, {"io.limina/schemas": "exact"}) for t in p.tools}
            outlined = 0
            for t in tools:
                sample = samples.get(t.name)
                for kind, schema in (("listed", t.input_schema), ("exact", exact[t.name].input_schema)):
                    if "$schema" in schema:
                        fail(f"{t.name}: {kind} schema declares $schema (2020-12 is MCP's default)")
                    # What clients are sent is held to the 2020-12 meta-schema; the exact forms are compiled.
                    v = validator(schema, checked=kind == "listed")
                    if sample is not None and not v.is_valid(sample):
                        fail(f"{t.name}: the {kind} schema refuses a valid input {sample}: {next(v.iter_errors(sample)).message}")
                if t.input_schema != exact[t.name].input_schema:
                    outlined += 1
                    if len(json.dumps(exact[t.name].model_dump(by_alias=True, exclude_none=True), separators=(",", ":"))) <= 300:
                        fail(f"{t.name} is outlined though its exact entry is small")
            checked = sum(1 for n in names if n in samples)

            # What the exact schemas refuse, the server refuses too.
            for name, bad in (("scene.createEntity", {"size": 99999}), ("camera.set", {"position": [0, 0, 0], "target": [0, 1, 0], "fov": 500}), ("scene.queryEntities", {"bogus": 1})):
                if validator(exact[name].input_schema).is_valid(bad):
                    fail(f"{name}: the exact schema accepts {bad}")
                r = await session.call_tool(name, bad)
                if not r.is_error or not r.content[0].text.startswith("invalid_input"):
                    fail(f"{name} {bad}: {r}")

            # The core listing a small context window asks for, and the rest found through it.
            core = (await session.list_tools(params=types.PaginatedRequestParams(_meta={"io.limina/listing": "core"})))
            core_bytes = len(json.dumps({"tools": [t.model_dump(by_alias=True, exclude_none=True) for t in core.tools]}, separators=(",", ":")))
            core_names = {t.name for t in core.tools}
            if core.next_cursor is not None or not {"skills.search", "skills.describe"} <= core_names or len(core_names) > 16:
                fail(f"core listing {sorted(core_names)}")
            if core_bytes > 8192:
                fail(f"the core listing is {core_bytes} bytes")
            found = await session.call_tool("skills.search", {"query": "label billboard"})
            hit = found.structured_content["results"][0]["name"]
            described = (await session.call_tool("skills.describe", {"name": hit})).structured_content
            if hit in core_names or described["input_schema"]["properties"]["anchor"] is None:
                fail(f"skills.search found {hit}: {described}")
            made = await session.call_tool("scene.createEntity", {"shape": "box", "position": [0, 1, 0]})
            labelled = await session.call_tool(hit, {"anchor": {"type": "world", "entity": made.structured_content["entity"]}, "text": "found by search"})
            if labelled.is_error:
                fail(f"{hit}: {labelled.content}")

            # Cursors: a forged one, and one from before the tools changed, are refused.
            for cursor, why in (("not-a-cursor", "must be a nextCursor"), (listing[0].next_cursor, "is stale")):
                if cursor == listing[0].next_cursor:
                    reload = await session.call_tool("dev.reload", {"target": "skill", "name": "camera.get"})
                    if reload.is_error:
                        fail(f"dev.reload: {reload.content}")
                try:
                    await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
                    fail(f"cursor {cursor!r} was accepted")
                except MCPError as e:
                    if e.error.code != -32602 or why not in e.error.message:
                        fail(f"cursor {cursor!r}: {e.error.code} {e.error.message}")
            again = await tool_pages(session)
            if [t.name for p in again for t in p.tools] != registered:
                fail("listing again from the start")
    print(json.dumps({"ok": True, "sdk": "mcp (python)", "tools": len(names), "pages": len(listing), "checked": checked, "outlined": outlined, "bytesPerTool": round(listed_bytes / len(names)), "coreTools": len(core_names), "coreBytes": core_bytes}))


asyncio.run(main(sys.argv[1], sys.argv[2]))
