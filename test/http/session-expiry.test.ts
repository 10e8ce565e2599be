/**
 * basic/transports, Session Management: "When a client receives HTTP 404 in response to a
 * request containing an MCP-Session-Id, it MUST start a new session by sending a new
 * InitializeRequest without a session ID attached."
 */
import { describe, expect, it } from "vitest";
import { McpTransportError } from "../../src/errors.js";
import type { JsonRpcMessage } from "../../src/protocol/jsonrpc.js";
import { DEFAULT_LIMITS } from "../../src/transport/limits.js";
import { StreamableHttpTransport } from "../../src/transport/http/streamable-http.js";
import { startEndpoint } from "../fixtures/http-endpoint.js";
import { expiringSession } from "../fixtures/http-misbehaving.js";
import { connectHttp, owned } from "./helpers.js";

const initialize = (id: number): JsonRpcMessage => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});
const call = (id: number): JsonRpcMessage => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text: `${id}` } } });

describe("an expired session at the transport", () => {
  it("fails the request with sessionExpired and 404, forgets the session, and fails later requests at once until a new initialize", async () => {
    const endpoint = owned(await startEndpoint(expiringSession(0)));
    const received: JsonRpcMessage[] = [];
    const connection = await new StreamableHttpTransport(endpoint.url, { listen: false }).open(
      { message: (message) => received.push(message), requestFailed: () => {}, closed: () => {} },
      { limits: DEFAULT_LIMITS },
    );
    try {
      await connection.send(initialize(1));
      await expect.poll(() => received.length).toBe(1);
      expect(connection.sessionId).toBe("session-1");
      connection.setProtocolVersion!("2025-11-25");

      const expired = (await connection.send(call(2)).catch((e: unknown) => e)) as McpTransportError;
      expect(expired).toBeInstanceOf(McpTransportError);
      expect(expired.reason).toBe("PROTOCOL");
      expect(expired.httpStatus).toBe(404);
      expect(expired.sessionExpired).toBe(true);
      expect(expired.kind).toBe("session_expired");
      expect(connection.sessionId).toBeUndefined();

      const posts = endpoint.count("tools/call");
      const fast = (await connection.send(call(3)).catch((e: unknown) => e)) as McpTransportError;
      expect(fast.sessionExpired).toBe(true);
      expect(fast.kind).toBe("session_expired");
      expect(endpoint.count("tools/call")).toBe(posts); // nothing was sent

      await connection.send(initialize(4));
      const reinitialize = endpoint.requests.filter((request) => request.body?.method === "initialize").at(-1)!;
      expect(reinitialize.headers["mcp-session-id"]).toBeUndefined();
      expect(reinitialize.headers["mcp-protocol-version"]).toBeUndefined();
      await expect.poll(() => connection.sessionId).toBe("session-2");
    } finally {
      await connection.close();
    }
  });
});

describe("an expired session at the client", () => {
  // Needs the client's part: it initializes again once and retries the request once.
  it("re-initializes once and retries the request once, transparently", async () => {
    const endpoint = owned(await startEndpoint(expiringSession(1)));
    const client = await connectHttp(endpoint.url);
    await client.callTool("echo", { text: "before" });
    const result = await client.callTool("echo", { text: "after" });
    expect(result.content).toEqual([{ type: "text", text: "after" }]);
    expect(endpoint.count("initialize")).toBe(2);
    expect(endpoint.count("tools/call")).toBe(3);
    expect(client.session.sessionId).toBe("session-2");
    const retried = endpoint.requests.filter((request) => request.body?.method === "tools/call").at(-1)!;
    expect(retried.headers["mcp-session-id"]).toBe("session-2");
  });
});
