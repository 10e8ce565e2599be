/**
 * The opening handshake: headers and subprotocol on the upgrade request, and what each way of
 * failing to upgrade becomes.
 */
import { describe, expect, it } from "vitest";
import { McpClient, McpTransportError, WebSocketTransport, type WebSocketHeadersContext } from "../../src/index.js";
import { refusedPort } from "../fixtures/ws-server.js";
import { NOT_HTTP_MARKER, startNotHttpServer } from "../fixtures/not-http-server.js";
import { closedAfterEach, failure, openRaw, rejection, until } from "./helpers.js";

const { fixture, connect } = closedAfterEach();

describe("the upgrade request", () => {
  it("offers the subprotocol mcp", async () => {
    const server = await fixture();
    await connect(new WebSocketTransport(server.url));
    expect(server.upgrades[0]!["sec-websocket-protocol"]).toBe("mcp");
  });

  it("carries static headers", async () => {
    const server = await fixture();
    await connect(new WebSocketTransport(server.url, { headers: { Authorization: "Bearer static", "X-Tenant": "t1" } }));
    expect(server.upgrades[0]!.authorization).toBe("Bearer static");
    expect(server.upgrades[0]!["x-tenant"]).toBe("t1");
  });

  it("sends the static headers as they were when the transport was made", async () => {
    const server = await fixture();
    const headers: Record<string, string> = { authorization: "Bearer first" };
    const transport = new WebSocketTransport(server.url, { headers });
    headers.authorization = "Bearer changed";
    await connect(transport);
    expect(server.upgrades[0]!.authorization).toBe("Bearer first");
  });

  it("calls a headers function once per connection attempt, with the attempt number", async () => {
    const server = await fixture();
    const seen: WebSocketHeadersContext[] = [];
    const transport = new WebSocketTransport(server.url, {
      headers: async (context) => {
        seen.push(context);
        return { authorization: `Bearer token-${context.attempt}` };
      },
    });
    await (await connect(transport)).close();
    await connect(transport);
    expect(server.upgrades.map((headers) => headers.authorization)).toEqual(["Bearer token-1", "Bearer token-2"]);
    expect(seen).toEqual([
      { url: server.url, attempt: 1 },
      { url: server.url, attempt: 2 },
    ]);
  });

  it("a headers function that throws fails with UNAVAILABLE and nothing is attempted", async () => {
    const server = await fixture();
    const problem = new Error("token service down");
    const transport = new WebSocketTransport(server.url, {
      headers: () => {
        throw problem;
      },
    });
    const error = await failure(McpClient.connect(transport));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.cause).toBe(problem);
    expect(error.message).not.toContain("token service down");
    expect(server.upgrades).toHaveLength(0);
  });

  it("a headers function that returns a handshake header is refused before anything is sent", async () => {
    const server = await fixture();
    const transport = new WebSocketTransport(server.url, { headers: () => ({ "Sec-WebSocket-Protocol": "other" }) });
    const error = await rejection(McpClient.connect(transport));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain("Sec-WebSocket-Protocol");
    expect(server.upgrades).toHaveLength(0);
  });

  it("does not show the URL's userinfo or query in its description or its errors", async () => {
    const port = await refusedPort();
    const transport = new WebSocketTransport(`ws://user:s3cret@127.0.0.1:${port}/mcp?token=s3cret`);
    expect(transport.description).toBe(`websocket: ws://127.0.0.1:${port}/mcp`);
    const error = await failure(McpClient.connect(transport));
    expect(error.message).not.toContain("s3cret");
  });
});

describe("an upgrade that fails", () => {
  it("a refused port is UNAVAILABLE", async () => {
    const transport = new WebSocketTransport(`ws://127.0.0.1:${await refusedPort()}/mcp`);
    const error = await failure(openRaw(transport));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("ECONNREFUSED");
  });

  it("a port where something else than HTTP answers is PROTOCOL naming the URL, not unreachable", async () => {
    const server = await startNotHttpServer();
    try {
      const error = await failure(openRaw(new WebSocketTransport(`ws://127.0.0.1:${server.port}/mcp`)));
      expect(error.reason).toBe("PROTOCOL");
      expect(error.retryable).toBe(false);
      expect(error.message).toContain(`ws://127.0.0.1:${server.port}/mcp did not answer in HTTP: something else listens on that port`);
      expect(error.message).not.toContain(NOT_HTTP_MARKER);
    } finally {
      await server.close();
    }
  });

  it("a server that does not select the subprotocol mcp is PROTOCOL", async () => {
    const server = await fixture({ selectSubprotocol: false });
    const error = await failure(openRaw(new WebSocketTransport(server.url)));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain('subprotocol "mcp"');
    await server.allClosed();
  });

  it.each<{ status: number; headers: Record<string, string>; reason: string; kept: Record<string, string> | undefined }>([
    { status: 401, headers: { "WWW-Authenticate": 'Bearer realm="mcp"' }, reason: "PROTOCOL", kept: { "www-authenticate": 'Bearer realm="mcp"' } },
    { status: 403, headers: {}, reason: "PROTOCOL", kept: undefined },
    { status: 404, headers: {}, reason: "PROTOCOL", kept: undefined },
    { status: 429, headers: { "Retry-After": "7" }, reason: "PROTOCOL", kept: { "retry-after": "7" } },
    { status: 200, headers: {}, reason: "PROTOCOL", kept: undefined },
    { status: 500, headers: {}, reason: "UNAVAILABLE", kept: undefined },
    { status: 503, headers: { "Retry-After": "30" }, reason: "UNAVAILABLE", kept: { "retry-after": "30" } },
  ])("HTTP $status on the upgrade is $reason with httpStatus", async ({ status, headers, reason, kept }) => {
    const server = await fixture({ refuseUpgrade: { status, headers } });
    const error = await failure(openRaw(new WebSocketTransport(server.url)));
    expect(error.reason).toBe(reason);
    expect(error.retryable).toBe(reason === "UNAVAILABLE");
    expect(error.httpStatus).toBe(status);
    expect(error.httpHeaders).toEqual(kept);
    expect(error.message).toContain(`HTTP ${status}`);
    await server.allClosed();
  });

  it("a redirect is not followed: PROTOCOL with the status and the location, one request only", async () => {
    const elsewhere = await fixture();
    const server = await fixture({ refuseUpgrade: { status: 307, headers: { Location: elsewhere.url } } });
    const transport = new WebSocketTransport(server.url, { headers: { authorization: "Bearer secret" } });
    const error = await failure(openRaw(transport));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.httpStatus).toBe(307);
    expect(error.httpHeaders).toEqual({ location: elsewhere.url });
    expect(server.upgrades).toHaveLength(1);
    expect(elsewhere.upgrades).toHaveLength(0);
  });

  it("an upgrade that is never answered fails with TIMEOUT after upgradeTimeoutMs and closes the TCP connection", async () => {
    const server = await fixture({ stallUpgrade: true });
    const error = await failure(openRaw(new WebSocketTransport(server.url, { upgradeTimeoutMs: 200 })));
    expect(error.reason).toBe("TIMEOUT");
    expect(error.timeoutMs).toBe(200);
    expect(error.message).toContain("upgradeTimeoutMs");
    expect(server.upgrades).toHaveLength(1);
    await server.allClosed();
  });

  it("a headers function that never settles is bounded by upgradeTimeoutMs too", async () => {
    const server = await fixture();
    const transport = new WebSocketTransport(server.url, { upgradeTimeoutMs: 200, headers: () => new Promise(() => {}) });
    const error = await failure(openRaw(transport));
    expect(error.reason).toBe("TIMEOUT");
    expect(error.timeoutMs).toBe(200);
    expect(server.upgrades).toHaveLength(0);
  });

  it("aborting the signal during the upgrade rejects with its reason and closes the TCP connection", async () => {
    const server = await fixture({ stallUpgrade: true });
    const controller = new AbortController();
    const opening = openRaw(new WebSocketTransport(server.url), {}, controller.signal);
    await until(() => server.upgrades.length === 1);
    const reason = new Error("the user gave up");
    controller.abort(reason);
    expect(await rejection(opening)).toBe(reason);
    await server.allClosed();
  });

  it("an already aborted signal rejects with its reason and attempts nothing", async () => {
    const server = await fixture();
    const reason = new Error("too late");
    expect(await rejection(openRaw(new WebSocketTransport(server.url), {}, AbortSignal.abort(reason)))).toBe(reason);
    expect(server.upgrades).toHaveLength(0);
  });

  it("a failed upgrade is an McpTransportError, never a raw ws error", async () => {
    const server = await fixture({ refuseUpgrade: { status: 404 } });
    const error = await rejection(McpClient.connect(new WebSocketTransport(server.url)));
    expect(error).toBeInstanceOf(McpTransportError);
  });
});
