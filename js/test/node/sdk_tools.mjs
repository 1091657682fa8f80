// Every tool a server lists, page by page: the official TypeScript SDK's
// listTools returns one page and its nextCursor.
export async function allTools(client, meta) {
  const tools = [];
  let pages = 0;
  let cursor;
  do {
    const page = await client.listTools({ cursor, ...(meta ? { _meta: meta } : {}) });
    tools.push(...page.tools);
    cursor = page.nextCursor;
    if (++pages > 100) throw new Error("more than 100 pages of tools");
  } while (cursor !== undefined);
  return { tools, pages };
}
