/** A ws:// URL is reached over mcpwire's WebSocket transport, the bridge otherwise the same. */
import { afterEach, describe, expect, it } from "vitest";
import { startWsFixture, type WsFixture } from "../../fixtures/ws-server.js";
import { exitOf, openLegacy, startBridge, type BridgeProcess } from "./bridge-process.js";

let server: WsFixture | undefined;
let bridge: BridgeProcess | undefined;
afterEach(async () => {
  await bridge?.stop();
  await server?.close();
});

describe("the bridge to a WebSocket remote", () => {
  it("relays a legacy host's session over ws://, and closes the socket on stdin EOF", async () => {
    server = await startWsFixture();
    bridge = startBridge(server.url);
    const opened = await openLegacy(bridge);
    expect((opened.result as { serverInfo?: { name?: string } }).serverInfo?.name).toBe("contract-server");
    bridge.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "over ws" } } });
    expect((await bridge.answer(1)).result?.content).toEqual([{ type: "text", text: "over ws" }]);
    bridge.closeStdin();
    expect((await exitOf(bridge)).code).toBe(0);
    expect(server.connections).toHaveLength(1);
    await server.allClosed();
  });
});
