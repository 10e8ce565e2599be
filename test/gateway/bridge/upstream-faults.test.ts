/**
 * The remote going wrong under a legacy host, through the built bridge: killed mid-call (the call
 * gets an error answer in the host's id, no hang), back on the same address (the next call works
 * on a new session the bridge opens by replaying the host's initialize), forgetting the session
 * (404: initialized again, the call answered), forgetting it for good (bounded: an error answer),
 * unreachable from the start, and too slow (`--timeout`, with `notifications/cancelled` sent).
 */
import { afterEach, describe, expect, it } from "vitest";
import { startEverything, type EverythingServer } from "../../helpers/everything-fixture.js";
import { startHttpContractServer } from "../../fixtures/http-contract-server.js";
import { startEndpoint, SESSION } from "../../fixtures/http-endpoint.js";
import { closedPort } from "../../helpers/ports.js";
import { MAX_SESSION_RENEWALS } from "../../../src/gateway/bridge/bridge-options.js";
import { openLegacy, startBridge, type BridgeProcess } from "./bridge-process.js";
import { startTcpForwarder, type TcpForwarder } from "./tcp-forwarder.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
function owned(bridge: BridgeProcess): BridgeProcess {
  cleanups.push(() => bridge.stop());
  return bridge;
}

const call = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

describe("the remote killed and restarted", () => {
  it("answers the call in flight with an error, then serves the next call on the restarted remote", { timeout: 60_000 }, async () => {
    let server: EverythingServer = await startEverything("streamableHttp");
    cleanups.push(() => server.stop());
    const forwarder: TcpForwarder = await startTcpForwarder(Number(new URL(server.origin).port));
    cleanups.push(() => forwarder.close());
    const bridge = owned(startBridge(`http://127.0.0.1:${forwarder.port}/mcp`));
    await openLegacy(bridge);

    bridge.send({ ...call(1, "trigger-long-running-operation", { duration: 60, steps: 60 }), params: { name: "trigger-long-running-operation", arguments: { duration: 60, steps: 60 }, _meta: { progressToken: "long" } } });
    // The progress token comes back as the host sent it.
    await bridge.next((message) => message.method === "notifications/progress" && (message.params as { progressToken?: unknown }).progressToken === "long", "progress of the long call");
    await server.stop();
    await forwarder.cut();
    const failed = await bridge.answer(1);
    expect(failed.error?.message).toMatch(/^mcpwire gateway: tools\/call was not answered: /);
    expect(["DISCONNECTED", "UNAVAILABLE"]).toContain(failed.error?.data?.reason);

    server = await startEverything("streamableHttp");
    await forwarder.forwardTo(Number(new URL(server.origin).port));
    bridge.send(call(2, "echo", { message: "after the restart" }));
    const answered = await bridge.answer(2);
    expect(answered.result?.content).toEqual([{ type: "text", text: "Echo: after the restart" }]);
    expect(bridge.stderr()).toContain('"event":"session_renewed"');
  });
});

describe("a legacy session the remote forgot (404)", () => {
  it("initializes again with the host's own initialize and answers the call", async () => {
    const server = await startHttpContractServer({ replies: "sse", stateful: true });
    cleanups.push(() => server.close());
    const bridge = owned(startBridge(server.url));
    await openLegacy(bridge);
    bridge.send(call(1, "echo", { text: "first" }));
    expect((await bridge.answer(1)).result?.content).toEqual([{ type: "text", text: "first" }]);

    await server.forgetSessions();
    bridge.send(call(2, "echo", { text: "after the 404" }));
    expect((await bridge.answer(2)).result?.content).toEqual([{ type: "text", text: "after the 404" }]);
    expect(server.sessions).toBe(1);
    expect(bridge.stderr()).toContain('"event":"session_renewed"');
    // The replayed initialize's answer is the bridge's own: the host saw one answer per request.
    expect(bridge.messages.filter((message) => "result" in message && (message.result as { protocolVersion?: string }).protocolVersion)).toHaveLength(1);
  });

  it(`gives up after ${MAX_SESSION_RENEWALS} renewals for one request, with an error answer`, async () => {
    // Every call is refused with 404 on the session, however often it was initialized again.
    const endpoint = await startEndpoint((request, res) => {
      if (request.body?.method !== "tools/call") return false;
      expect(request.headers["mcp-session-id"]).toBe(SESSION);
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "SECRET-404-TEXT" } }));
      return true;
    });
    cleanups.push(() => endpoint.close());
    const bridge = owned(startBridge(endpoint.url));
    await openLegacy(bridge);
    bridge.send(call(7, "echo", { text: "never" }));
    const answer = await bridge.answer(7);
    expect(answer.error?.message).toContain(`initialized ${MAX_SESSION_RENEWALS} times`);
    expect(answer.error?.data?.kind).toBe("session_expired");
    expect(JSON.stringify(bridge.messages)).not.toContain("SECRET-404-TEXT");
    expect(endpoint.count("initialize")).toBe(1 + MAX_SESSION_RENEWALS);
    expect(endpoint.count("tools/call")).toBe(1 + MAX_SESSION_RENEWALS);
  });
});

describe("failed forwards get an error answer, never a hang", () => {
  it("answers the host's initialize when the remote cannot be reached", async () => {
    const bridge = owned(startBridge(`http://127.0.0.1:${await closedPort()}/mcp`));
    bridge.send({ jsonrpc: "2.0", id: "open", method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "h", version: "1" } } });
    const answer = await bridge.answer("open");
    expect(answer.error?.data).toMatchObject({ reason: "UNAVAILABLE", retryable: true });
    // The bridge stays up: the next request tries again (and fails the same way).
    bridge.send({ jsonrpc: "2.0", id: "again", method: "ping" });
    expect((await bridge.answer("again")).error?.data?.reason).toBe("UNAVAILABLE");
  });

  it("answers a call the remote sits on with TIMEOUT after --timeout, and tells the remote", async () => {
    const endpoint = await startEndpoint((request) => request.body?.method === "tools/call" && (request.body.params as { name?: string }).name === "silent");
    cleanups.push(() => endpoint.close());
    const bridge = owned(startBridge(endpoint.url, ["--timeout", "300ms"]));
    await openLegacy(bridge);
    bridge.send(call(3, "silent", {}));
    const answer = await bridge.answer(3);
    expect(answer.error?.data).toMatchObject({ reason: "TIMEOUT", timeoutMs: 300 });
    await expect.poll(() => endpoint.count("notifications/cancelled")).toBe(1);
    const cancel = endpoint.requests.find((request) => request.body?.method === "notifications/cancelled");
    expect((cancel?.body?.params as { requestId?: unknown }).requestId).toBe(3);
    // The bridge still serves the host.
    bridge.send(call(4, "echo", { text: "still here" }));
    expect((await bridge.answer(4)).result?.content).toEqual([{ type: "text", text: "still here" }]);
  });

  it("answers a line that is not JSON-RPC with -32700 and goes on", async () => {
    const endpoint = await startEndpoint();
    cleanups.push(() => endpoint.close());
    const bridge = owned(startBridge(endpoint.url));
    bridge.child.stdin!.write("this is not json\n");
    const refused = await bridge.next((message) => message.id === null, "the parse error");
    expect(refused.error?.code).toBe(-32700);
    await openLegacy(bridge);
    bridge.send(call(1, "echo", { text: "then this" }));
    expect((await bridge.answer(1)).result?.content).toEqual([{ type: "text", text: "then this" }]);
  });
});
