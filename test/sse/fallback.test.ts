/**
 * The automatic fallback (basic/transports, "Backwards Compatibility"): an http(s) target is
 * tried with Streamable HTTP; an `initialize` POST refused with 400, 404 or 405 (and no modern
 * error) sends the client to the legacy HTTP+SSE transport at the same URL. Never on 401, 5xx
 * or a refused port. A URL ending in /sse goes to the legacy transport directly.
 */
import { describe, expect, it } from "vitest";
import { connect, forgetEras, type McpClient } from "../../src/index.js";
import { TransportSession } from "../../src/session/session.js";
import { HttpTransport } from "../../src/transport/http/http-fallback.js";
import { SseTransport } from "../../src/transport/http/sse.js";
import { StreamableHttpTransport } from "../../src/transport/http/streamable-http.js";
import { startEndpoint } from "../fixtures/http-endpoint.js";
import { startSseEndpoint } from "../fixtures/sse-endpoint.js";
import { closedPort, failure, owned, ownedClient, ownedSession } from "./helpers.js";

const HTML_MARKER = "Intercepted by the corporate proxy";
const INITIALIZE = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "fallback-test", version: "1.0.0" },
};

async function connected(target: Parameters<typeof connect>[0]): Promise<McpClient> {
  forgetEras();
  return ownedClient(await connect(target, { timeoutMs: 20_000 }));
}

/** Where each POST of `method` went, in order. */
function pathsOf(endpoint: { requests: { method: string; path: string; body?: Record<string, unknown> }[] }, method: string): string[] {
  return endpoint.requests.filter((request) => request.method === "POST" && request.body?.method === method).map((request) => request.path);
}

/** Streamable HTTP attempts (POSTs at the URL) and legacy stream openings (GETs at it). */
function attempts(endpoint: { count(what: string): number }, path = "/mcp") {
  return { posts: endpoint.count(`POST ${path}`), gets: endpoint.count(`GET ${path}`) };
}

describe("fallback from Streamable HTTP to legacy HTTP+SSE", () => {
  it.each([
    [400, "application/json", JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: HTML_MARKER } })],
    [404, "text/html", `<html>${HTML_MARKER}</html>`],
    [405, undefined, ""],
  ])("is taken when initialize is answered %i", async (status, contentType, body) => {
    const endpoint = owned(await startSseEndpoint({ streamPath: "/mcp", streamPost: { status, contentType, body } }));
    const client = await connected(endpoint.url);
    expect(client.session.transport.kind).toBe("streamable-http");
    expect(client.transportKind).toBe("sse");
    expect(client.era).toBe("legacy");
    expect((await client.callTool("echo", { text: "over sse" })).content).toEqual([{ type: "text", text: "over sse" }]);
    // The era probe and initialize were refused on the POST; the legacy stream was then opened at the same URL.
    expect(endpoint.requests.find((request) => request.method === "GET")?.path).toBe("/mcp");
    // initialize: refused at the URL (Streamable HTTP), then sent to the legacy endpoint.
    expect(pathsOf(endpoint, "initialize")).toEqual(["/mcp", "/messages?session=1"]);
  });

  it.each([
    [401, "PROTOCOL"],
    [403, "PROTOCOL"],
    [500, "UNAVAILABLE"],
    [503, "UNAVAILABLE"],
  ])("is not taken when initialize is answered %i: the failure stands", async (status, reason) => {
    const endpoint = owned(await startSseEndpoint({ streamPath: "/mcp", streamPost: { status } }));
    const session = ownedSession(new TransportSession(new HttpTransport(endpoint.url), { timeoutMs: 10_000 }));
    await session.open();
    const error = await failure(session.request("initialize", INITIALIZE));
    expect(error.reason).toBe(reason);
    expect(error.httpStatus).toBe(status);
    expect(session.wireKind).toBe("streamable-http");
    expect(attempts(endpoint)).toEqual({ posts: 1, gets: 0 });
  });

  it("is not taken through connect() on 401 or 500 either", async () => {
    for (const [status, reason] of [
      [401, "PROTOCOL"],
      [500, "UNAVAILABLE"],
    ] as const) {
      const endpoint = owned(await startSseEndpoint({ streamPath: "/mcp", streamPost: { status } }));
      const error = await failure(connected(endpoint.url));
      expect(error.reason).toBe(reason);
      expect(error.httpStatus).toBe(status);
      expect(attempts(endpoint).gets).toBe(0);
    }
  });

  it("is not taken when the port is refused: UNAVAILABLE, with no legacy attempt", async () => {
    const port = await closedPort();
    const session = ownedSession(new TransportSession(new HttpTransport(`http://127.0.0.1:${port}/mcp`), { timeoutMs: 10_000 }));
    await session.open();
    const error = await failure(session.request("initialize", INITIALIZE));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.message).toContain("after 3 attempts");
    expect(session.wireKind).toBe("streamable-http");
    const viaConnect = await failure(connected(`http://127.0.0.1:${port}/mcp`));
    expect(viaConnect.reason).toBe("UNAVAILABLE");
  });

  it("is not taken on a 400 that carries a modern JSON-RPC error: the server is modern", async () => {
    const modernError = JSON.stringify({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2026-07-28"] } },
    });
    const endpoint = owned(
      await startSseEndpoint({ streamPath: "/mcp", streamPost: { status: 400, contentType: "application/json", body: modernError } }),
    );
    const session = ownedSession(new TransportSession(new HttpTransport(endpoint.url), { timeoutMs: 10_000 }));
    await session.open();
    const error = await failure(session.request("initialize", INITIALIZE));
    expect(error).toMatchObject({ reason: "PROTOCOL", httpStatus: 400, code: -32022 });
    expect(attempts(endpoint)).toEqual({ posts: 1, gets: 0 });
  });

  it("is not taken on a 404 with -32601 Method not found: a server of revision 2026-07-28 only, which has no initialize", async () => {
    // streamable-http, "Protocol Version Header": a modern server answers a method it does not
    // implement with 404 and -32601; "The JSON-RPC error body distinguishes this case from a 404
    // returned by a legacy HTTP+SSE server". A legacy stream is offered at the URL all the same.
    const methodNotFound = JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } });
    const endpoint = owned(
      await startSseEndpoint({ streamPath: "/mcp", streamPost: { status: 404, contentType: "application/json", body: methodNotFound } }),
    );
    const session = ownedSession(new TransportSession(new HttpTransport(endpoint.url), { timeoutMs: 10_000 }));
    await session.open();
    const error = await failure(session.request("initialize", INITIALIZE));
    expect(error).toMatchObject({ reason: "PROTOCOL", httpStatus: 404, code: -32601 });
    expect(session.wireKind).toBe("streamable-http");
    expect(attempts(endpoint)).toEqual({ posts: 1, gets: 0 });
  });

  it("is still taken on a 404 whose JSON-RPC error is not -32601 (not a modern server's answer)", async () => {
    const other = JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "No such endpoint" } });
    const endpoint = owned(await startSseEndpoint({ streamPath: "/mcp", streamPost: { status: 404, contentType: "application/json", body: other } }));
    const session = ownedSession(new TransportSession(new HttpTransport(endpoint.url), { timeoutMs: 10_000 }));
    await session.open();
    expect((await session.request("initialize", INITIALIZE)).protocolVersion).toBe("2025-11-25");
    expect(session.wireKind).toBe("sse");
  });

  it("is decided per connection on its initialize POST, not on another request", async () => {
    const endpoint = owned(await startSseEndpoint({ streamPath: "/mcp", streamPost: { status: 404 } }));
    const session = ownedSession(new TransportSession(new HttpTransport(endpoint.url), { timeoutMs: 10_000 }));
    await session.open();
    const probe = await failure(session.request("server/discover", {}));
    expect(probe.httpStatus).toBe(404);
    expect(attempts(endpoint).gets).toBe(0);
    const result = await session.request("initialize", INITIALIZE);
    expect(result.protocolVersion).toBe("2025-11-25");
    expect(session.wireKind).toBe("sse");
    expect(attempts(endpoint)).toEqual({ posts: 2, gets: 1 });
  });

  it("stays on Streamable HTTP when initialize succeeds there", async () => {
    const endpoint = owned(await startEndpoint());
    const client = await connected(endpoint.url);
    expect(client.transportKind).toBe("streamable-http");
    expect(endpoint.count("GET")).toBe(0);
  });

  it("tries <url>/sse when the URL itself has no stream (a base URL)", async () => {
    const endpoint = owned(await startSseEndpoint({ streamPath: "/sse" }));
    const client = await connected(`${endpoint.origin}/`);
    expect(client.transportKind).toBe("sse");
    expect(endpoint.requests.filter((request) => request.method === "GET").map((request) => request.path)).toEqual(["/", "/sse"]);
  });

  it("fails with PROTOCOL and the first status when no legacy stream answers either", async () => {
    // Nothing at /nothing: the POST, the GET and the GET of /nothing/sse all get 404.
    const endpoint = owned(await startSseEndpoint({ streamPath: "/mcp" }));
    const session = ownedSession(new TransportSession(new HttpTransport(`${endpoint.origin}/nothing`), { timeoutMs: 10_000 }));
    await session.open();
    const error = await failure(session.request("initialize", INITIALIZE));
    expect(error).toMatchObject({ reason: "PROTOCOL", httpStatus: 404 });
    expect(error.message).toContain("no legacy HTTP+SSE stream answered");
    expect(endpoint.requests.filter((request) => request.method === "GET").map((request) => request.path)).toEqual([
      "/nothing",
      "/nothing/sse",
    ]);
  });

  it("keeps the legacy failure when a stream was there but failed (endpoint on another origin)", async () => {
    const endpoint = owned(
      await startSseEndpoint({
        streamPath: "/mcp",
        streamPost: { status: 404 },
        onStream(res) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write("event: endpoint\ndata: http://203.0.113.9/messages\n\n");
          return true;
        },
      }),
    );
    const error = await failure(connected(endpoint.url));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain("another origin");
  });

  it("a reconnection falls back again on its new connection", async () => {
    let dropped = false;
    const endpoint = owned(
      await startSseEndpoint({
        streamPath: "/mcp",
        streamPost: { status: 405 },
        onMessage(request, res, stream) {
          if (request.body?.method !== "tools/call" || dropped) return false;
          dropped = true;
          res.writeHead(202).end();
          stream.res.destroy();
          return true;
        },
      }),
    );
    forgetEras();
    const client = ownedClient(await connect(endpoint.url, { timeoutMs: 20_000, reconnect: { maxAttempts: 3, initialDelayMs: 10 } }));
    expect((await failure(client.callTool("echo", { text: "lost" }))).reason).toBe("DISCONNECTED");
    expect((await client.callTool("echo", { text: "back" })).content).toEqual([{ type: "text", text: "back" }]);
    expect(client.transportKind).toBe("sse");
    // Each connection tried Streamable HTTP, fell back and initialized its own legacy session.
    expect(pathsOf(endpoint, "initialize")).toEqual(["/mcp", "/messages?session=1", "/mcp", "/messages?session=2"]);
    expect(attempts(endpoint).gets).toBe(2);
  });
});

describe("which transport a target picks", () => {
  it("a URL ending in /sse goes to the legacy transport directly, with no POST first", async () => {
    const endpoint = owned(await startSseEndpoint());
    const client = await connected(endpoint.url);
    expect(client.session.transport).toBeInstanceOf(SseTransport);
    expect(client.transportKind).toBe("sse");
    expect(endpoint.requests[0]?.method).toBe("GET");
    expect(endpoint.count("POST /sse")).toBe(0);
  });

  it("a declaration with fallback: false keeps plain Streamable HTTP, and its 404 stands", async () => {
    const endpoint = owned(await startSseEndpoint({ streamPath: "/mcp", streamPost: { status: 404 } }));
    forgetEras();
    const error = await failure(connect({ url: endpoint.url, fallback: false }, { timeoutMs: 10_000, protocolVersion: "legacy" }));
    expect(error.httpStatus).toBe(404);
    expect(attempts(endpoint).gets).toBe(0);
  });

  it("an http declaration is Streamable HTTP with the fallback; an sse one the legacy transport", async () => {
    const { transportFor } = await import("../../src/config/transport-for.js");
    expect(transportFor({ name: "a", transport: "http", url: "http://127.0.0.1:1/mcp" })).toBeInstanceOf(HttpTransport);
    expect(transportFor({ name: "b", transport: "http", url: "http://127.0.0.1:1/mcp", fallback: false })).toBeInstanceOf(StreamableHttpTransport);
    expect(transportFor({ name: "c", transport: "sse", url: "http://127.0.0.1:1/events" })).toBeInstanceOf(SseTransport);
  });
});

describe("the switch to the legacy transport, interrupted", () => {
  /** Refuses the POST, then opens a stream that never names its endpoint. */
  async function stuckLegacy() {
    return owned(
      await startSseEndpoint({
        streamPath: "/mcp",
        streamPost: { status: 404 },
        onStream(res) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.flushHeaders();
          return true;
        },
      }),
    );
  }

  it("close() while the legacy stream opens: initialize fails with DISCONNECTED, no socket is left", async () => {
    const endpoint = await stuckLegacy();
    const session = ownedSession(new TransportSession(new HttpTransport(endpoint.url), { timeoutMs: 20_000 }));
    await session.open();
    const initialize = failure(session.request("initialize", INITIALIZE));
    await expect.poll(() => attempts(endpoint).gets, { timeout: 10_000 }).toBe(1);
    await session.close();
    expect((await initialize).reason).toBe("DISCONNECTED");
    expect((await session.ended).error).toBeUndefined();
    await expect.poll(() => endpoint.connections(), { timeout: 10_000 }).toBe(0);
  });

  it("an initialize abandoned while the legacy stream opens stops the switch and ends the connection", async () => {
    const endpoint = await stuckLegacy();
    const session = ownedSession(new TransportSession(new HttpTransport(endpoint.url), { timeoutMs: 20_000 }));
    await session.open();
    const error = await failure(session.request("initialize", INITIALIZE, { timeoutMs: 300 }));
    expect(error.reason).toBe("TIMEOUT");
    expect((await session.ended).error?.reason).toBe("DISCONNECTED");
    await expect.poll(() => endpoint.connections(), { timeout: 10_000 }).toBe(0);
  });
});
