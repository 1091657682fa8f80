"""Every tool a server lists, page by page: the SDK's `list_tools` returns one page and its `next_cursor`."""
from mcp import types


async def tool_pages(session, meta=None):
    """Every page of a listing, in order (`meta`: the request's `_meta`)."""
    pages, cursor = [], None
    while True:
        page = await session.list_tools(params=types.PaginatedRequestParams(cursor=cursor, _meta=meta))
        pages.append(page)
        cursor = page.next_cursor
        if cursor is None:
            return pages
        if len(pages) > 100:
            raise RuntimeError("more than 100 pages of tools")


async def all_tools(session, meta=None):
    """Every tool of a listing, in order."""
    return [tool for page in await tool_pages(session, meta) for tool in page.tools]
