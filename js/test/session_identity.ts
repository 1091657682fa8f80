// Who a network client can be: session ids are the server's, reserved and
// confusable agent ids are refused wherever a client names one (initialize,
// package.load), and no client can spend another's quota — or the
// operator's — by naming its session. The driver is js/test/node/identity.mjs.
import { assert, test } from "limina/testing";
import { drive } from "./support/drivers.ts";

test("a client naming another session's id (or the operator's) gets its own; reserved and confusable ids are refused at initialize and in package.load", async () => {
  const out = await drive("node", "js/test/node/identity.mjs");
  assert((out.checks as number) >= 24, JSON.stringify(out));
});
