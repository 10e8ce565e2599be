/**
 * How the built bridge ends: on stdin EOF (the portable way, Windows included) and on SIGTERM, it
 * ends the remote's legacy session with DELETE, closes its connections, and exits 0; a call
 * still in flight when stdin ends gets its answer first.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startHttpContractServer, type HttpContractServer } from "../../fixtures/http-contract-server.js";
import { exitOf, openLegacy, startBridge, type BridgeProcess } from "./bridge-process.js";

let server: HttpContractServer | undefined;
let bridge: BridgeProcess | undefined;
afterEach(async () => {
  await bridge?.stop();
  await server?.close();
  bridge = server = undefined;
});

async function openSession(): Promise<{ server: HttpContractServer; bridge: BridgeProcess }> {
  server = await startHttpContractServer({ replies: "sse", stateful: true });
  bridge = startBridge(server.url);
  await openLegacy(bridge);
  bridge.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "hello" } } });
  await bridge.answer(1);
  expect(server.sessions).toBe(1);
  return { server, bridge };
}

describe("the end of the bridge", () => {
  it("on stdin EOF: DELETEs the session, leaves no connection, exits 0", async () => {
    const { server, bridge } = await openSession();
    bridge.closeStdin();
    expect(await exitOf(bridge)).toEqual({ code: 0, signal: null });
    expect(server.requests.DELETE).toBe(1);
    expect(server.sessions).toBe(0);
    await expect.poll(() => server.connections()).toBe(0);
  });

  it("on SIGTERM: the same", async () => {
    const { server, bridge } = await openSession();
    bridge.child.kill("SIGTERM");
    expect(await exitOf(bridge)).toEqual({ code: 0, signal: null });
    expect(server.requests.DELETE).toBe(1);
    await expect.poll(() => server.connections()).toBe(0);
  });

  it("answers a call still in flight when stdin ends, then ends", async () => {
    const { server, bridge } = await openSession();
    bridge.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "sleep", arguments: { ms: 300 } } });
    await expect.poll(() => server.requests.POST).toBeGreaterThanOrEqual(4);
    bridge.closeStdin();
    const answer = await bridge.answer(2);
    expect(answer.result).toBeDefined();
    expect(await exitOf(bridge)).toEqual({ code: 0, signal: null });
    expect(server.requests.DELETE).toBe(1);
  });
});
