// The official TypeScript MCP SDK plays a sound through `limina --mcp-stdio`
// whose mix is captured (LIMINA_AUDIO=wav:<file>): audio.play at 440 Hz for
// 1 s, then the connection stays open past its end and closes; js/test/audio.ts
// analyses the file. Usage: node js/test/node/sdk_audio.mjs <limina> <wav>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { allTools } from "./sdk_tools.mjs";

const [limina, wav] = process.argv.slice(2);
const fail = (msg) => {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
};

const env = { ...process.env, LIMINA_AUDIO: `wav:${wav}` };
const transport = new StdioClientTransport({ command: limina, args: ["--mcp-stdio", "--profile", "builder.readWrite"], env, stderr: "inherit" });
const client = new Client({ name: "node-sdk-audio", version: "1.0.0" });
await client.connect(transport);
const { tools } = await allTools(client);
const audio = tools.map((t) => t.name).filter((n) => n.startsWith("audio."));
const want = ["audio.play", "audio.ambient", "audio.playAt", "audio.speak", "audio.stop", "audio.setVolume", "audio.setBusVolume"];
if (JSON.stringify(audio) !== JSON.stringify(want)) fail(`audio tools listed: ${audio}`);
const played = await client.callTool({ name: "audio.play", arguments: { freq: 440, secs: 1 } });
if (played.isError) fail(`audio.play: ${JSON.stringify(played.content)}`);
const handle = played.structuredContent?.handle;
if (typeof handle !== "string" || handle.length === 0) fail(`handle ${JSON.stringify(played.structuredContent)}`);
const bogus = await client.callTool({ name: "audio.stop", arguments: { handle: "not-a-handle" } });
if (bogus.isError || bogus.structuredContent?.ok !== false) fail(`audio.stop of an unknown handle: ${JSON.stringify(bogus)}`);
await new Promise((resolve) => setTimeout(resolve, 1600));
await client.close();
console.log(JSON.stringify({ ok: true, handle }));
