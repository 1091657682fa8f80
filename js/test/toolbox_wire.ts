// limina: waits
// The builder's toolbox over MCP on a fresh binary: the official TypeScript
// SDK drives `limina --mcp-stdio` in an empty directory holding only the
// user's asset manifest and a glTF floor (js/test/node/toolbox_sdk.mjs).
import { assert, assertEquals, test } from "limina/testing";
import { drive } from "./support/drivers.ts";

test("over MCP (stdio): a non-cubic box, a cylinder, a glTF trimesh floor, a motor-turned door, a sensor, a prefab ×3, looks in inspector.snapshot, the kill plane", async () => {
  const out = await drive("node", "js/test/node/toolbox_sdk.mjs");
  assertEquals(out.sdk, "@modelcontextprotocol/sdk");
  assertEquals((out.box as { size: number[] }).size, [2, 0.5, 1]);
  assertEquals((out.cylinder as { shape: string }).shape, "cylinder");
  assert((out.doorAngle as number) > 1, `the door turned (${out.doorAngle})`);
  assertEquals((out.sensor as { started: boolean }).started, true);
  assertEquals(out.prefab, ["ins_1", "ins_2", "ins_3"]);
  assertEquals((out.killPlane as { action: string }).action, "removed");
});
