/**
 * The legacy HTTP+SSE transport against endpoints that misbehave, one rule each: where the
 * endpoint event may point, how long it may take, what a stream that drops, lies about its
 * content type, floods or stays silent becomes, and what reconnecting means.
 */
import { describe, expect, it } from "vitest";
import { TransportSession } from "../../src/session/session.js";
import { setCancelNoticeTimeoutForTests } from "../../src/transport/http/cancel-notice.js";
import { SseTransport } from "../../src/transport/http/sse.js";
import { startSseEndpoint } from "../fixtures/sse-endpoint.js";
import { closedPort, connectWith, failure, owned, ownedSession } from "./helpers.js";
import { rejection } from "../helpers/failure.js";

const HTML_MARKER = "Intercepted by the corporate proxy";

describe("legacy SSE: the endpoint event", () => {
  it("refuses an endpoint on another origin, and posts nothing there", async () => {
    const foreign = owned(await startSseEndpoint());
    const endpoint = owned(
      await startSseEndpoint({
        onStream(res) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(`event: endpoint\ndata: ${foreign.origin}/messages?session=1\n\n`);
          return true;
        },
      }),
    );
    const error = await failure(connectWith(new SseTransport(endpoint.url)));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain("another origin");
    expect(foreign.requests).toHaveLength(0);
    expect(endpoint.requests.filter((request) => request.method === "POST")).toHaveLength(0);
  });

  it("resolves a relative endpoint against the SSE URL", async () => {
    const endpoint = owned(
      await startSseEndpoint({
        streamPath: "/legacy/sse",
        onStream(res) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          // Relative to /legacy/sse, as a URL is: /legacy/messages (the fixture answers it with 404).
          res.write(`event: endpoint\ndata: messages?session=1\n\n`);
          return true;
        },
      }),
    );
    const session = ownedSession(new TransportSession(new SseTransport(endpoint.url), { timeoutMs: 5_000 }));
    await session.open();
    const refused = await failure(session.notify("notifications/initialized"));
    expect(refused.httpStatus).toBe(404);
    expect(endpoint.requests.at(-1)?.path).toBe("/legacy/messages?session=1");
  });

  it("fails with TIMEOUT when no endpoint event comes within timeoutMs", async () => {
    const endpoint = owned(
      await startSseEndpoint({
        onStream(res) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(": a comment, and then nothing\n\n");
          return true;
        },
      }),
    );
    const session = new TransportSession(new SseTransport(endpoint.url), { timeoutMs: 300 });
    const error = await failure(session.open());
    expect(error.reason).toBe("TIMEOUT");
    expect(error.timeoutMs).toBe(300);
    expect(error.message).toContain("no endpoint event");
    // The stream was given up: no socket is left to the server.
    await expect.poll(() => endpoint.connections(), { timeout: 10_000 }).toBe(0);
  });

  it("refuses a message sent before the endpoint event", async () => {
    const endpoint = owned(
      await startSseEndpoint({
        onStream(res) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(`event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n`);
          return true;
        },
      }),
    );
    const error = await failure(connectWith(new SseTransport(endpoint.url)));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain("before its endpoint event");
  });

  it("ends the connection when a second, different endpoint is named", async () => {
    const endpoint = owned(
      await startSseEndpoint({
        onMessage(request, res, stream) {
          if (request.body?.method !== "tools/call") return false;
          res.writeHead(202).end();
          stream.event("/messages?session=99", "endpoint");
          return true;
        },
      }),
    );
    const client = await connectWith(new SseTransport(endpoint.url));
    const error = await failure(client.callTool("echo", { text: "x" }));
    expect(error.reason).toBe("PROTOCOL");
    expect((await client.ended).error?.reason).toBe("PROTOCOL");
  });
});

describe("legacy SSE: the endpoint policy", () => {
  it("refuses a stream answered with an HTML page, without reading it into the message", async () => {
    const endpoint = owned(
      await startSseEndpoint({
        onStream(res) {
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(`<html><body>${HTML_MARKER}</body></html>`);
          return true;
        },
      }),
    );
    const error = await failure(connectWith(new SseTransport(endpoint.url)));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.httpStatus).toBe(200);
    expect(error.message).toContain('"text/html"');
    expect(error.message).not.toContain(HTML_MARKER);
  });

  it("maps the stream's statuses: 401 PROTOCOL with its challenge, 503 UNAVAILABLE", async () => {
    const locked = owned(
      await startSseEndpoint({
        onStream(res) {
          res.writeHead(401, { "www-authenticate": 'Bearer realm="mcp"' }).end();
          return true;
        },
      }),
    );
    const refused = await failure(connectWith(new SseTransport(locked.url)));
    expect(refused).toMatchObject({ reason: "PROTOCOL", httpStatus: 401, httpHeaders: { "www-authenticate": 'Bearer realm="mcp"' } });
    const failing = owned(
      await startSseEndpoint({
        onStream(res) {
          res.writeHead(503).end();
          return true;
        },
      }),
    );
    const unavailable = await failure(connectWith(new SseTransport(failing.url)));
    expect(unavailable).toMatchObject({ reason: "UNAVAILABLE", httpStatus: 503, retryable: true });
  });

  it("follows a same-origin 308 to the stream and refuses one to another origin, naming it", async () => {
    const elsewhere = owned(await startSseEndpoint());
    const endpoint = owned(
      await startSseEndpoint({
        onStream(res, request) {
          if (!request.path.includes("hop")) return false;
          const to = request.headers["x-to"] === "elsewhere" ? elsewhere.url : "/sse";
          res.writeHead(308, { location: to }).end();
          return true;
        },
      }),
    );
    // Same origin: /sse?hop -> /sse, whose default stream then opens.
    const client = await connectWith(new SseTransport(`${endpoint.url}?hop=1`));
    expect((await client.callTool("echo", { text: "moved" })).content).toEqual([{ type: "text", text: "moved" }]);
    const error = await failure(connectWith(new SseTransport(`${endpoint.url}?hop=1`, { headers: { "x-to": "elsewhere" } })));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain(elsewhere.url);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("passes the user's headers on the GET and on every POST, a function being called per request", async () => {
    const endpoint = owned(await startSseEndpoint());
    let calls = 0;
    const client = await connectWith(new SseTransport(endpoint.url, { headers: () => ({ authorization: `Bearer t${++calls}` }) }));
    await client.callTool("echo", { text: "a" });
    const seen = endpoint.requests.map((request) => request.headers.authorization);
    expect(seen.every((value) => typeof value === "string" && value.startsWith("Bearer t"))).toBe(true);
    expect(new Set(seen).size).toBe(seen.length);
    expect(endpoint.requests.find((request) => request.method === "POST")?.headers["content-type"]).toBe("application/json");
  });

  it("fails one request on a refused POST (500 UNAVAILABLE, 400 PROTOCOL) and stays usable", async () => {
    let calls = 0;
    const endpoint = owned(
      await startSseEndpoint({
        onMessage(request, res) {
          if (request.body?.method !== "tools/call") return false;
          calls++;
          if (calls === 1) res.writeHead(500).end(HTML_MARKER);
          else if (calls === 2) res.writeHead(400, { "content-type": "text/plain" }).end(HTML_MARKER);
          else return false;
          return true;
        },
      }),
    );
    const client = await connectWith(new SseTransport(endpoint.url));
    const first = await failure(client.callTool("echo", { text: "1" }));
    expect(first).toMatchObject({ reason: "UNAVAILABLE", httpStatus: 500 });
    const second = await failure(client.callTool("echo", { text: "2" }));
    expect(second).toMatchObject({ reason: "PROTOCOL", httpStatus: 400 });
    expect(second.message).not.toContain(HTML_MARKER);
    expect((await client.callTool("echo", { text: "3" })).content).toEqual([{ type: "text", text: "3" }]);
  });

  it("maxMessageBytes: an event past the ceiling fails with LIMIT and ends the connection", async () => {
    const endpoint = owned(
      await startSseEndpoint({
        onMessage(request, res, stream) {
          if (request.body?.method !== "tools/call") return false;
          res.writeHead(202).end();
          stream.message({ id: request.body.id, result: { content: [{ type: "text", text: "x".repeat(100_000) }] } });
          return true;
        },
      }),
    );
    const client = await connectWith(new SseTransport(endpoint.url), { maxMessageBytes: 64 * 1024 });
    const error = await failure(client.callTool("echo", { text: "big" }));
    expect(error.reason).toBe("LIMIT");
    expect(error.limitBytes).toBe(64 * 1024);
    expect((await client.ended).error?.reason).toBe("LIMIT");
  });

  it("maxMessageBytes: an event that never ends is cut at the ceiling, not buffered", async () => {
    const endpoint = owned(
      await startSseEndpoint({
        onMessage(request, res, stream) {
          if (request.body?.method !== "tools/call") return false;
          res.writeHead(202).end();
          // One data line, never terminated: only the ceiling can end it.
          stream.res.write("event: message\ndata: ");
          const chunk = "y".repeat(16 * 1024);
          const timer = setInterval(() => {
            if (stream.res.destroyed) return clearInterval(timer);
            stream.res.write(chunk);
          }, 5);
          return true;
        },
      }),
    );
    const client = await connectWith(new SseTransport(endpoint.url), { maxMessageBytes: 64 * 1024 });
    const error = await failure(client.callTool("echo", { text: "never ends" }));
    expect(error.reason).toBe("LIMIT");
  });

  it("a message event that is not JSON-RPC ends the connection with PROTOCOL", async () => {
    const endpoint = owned(
      await startSseEndpoint({
        onMessage(request, res, stream) {
          if (request.body?.method !== "tools/call") return false;
          res.writeHead(202).end();
          stream.event(`<html>${HTML_MARKER}</html>`, "message");
          return true;
        },
      }),
    );
    const client = await connectWith(new SseTransport(endpoint.url));
    const error = await failure(client.callTool("echo", { text: "x" }));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).not.toContain(HTML_MARKER);
    expect((await client.ended).error?.reason).toBe("PROTOCOL");
  });

  it("readTimeoutMs: a silent stream fails the waiting request with TIMEOUT and stays usable", async () => {
    const endpoint = owned(
      await startSseEndpoint({
        onMessage(request, res) {
          if (request.body?.method !== "tools/call" || (request.body.params as { arguments: { text: string } }).arguments.text !== "silence") {
            return false;
          }
          res.writeHead(202).end();
          return true;
        },
      }),
    );
    const client = await connectWith(new SseTransport(endpoint.url), { readTimeoutMs: 300 });
    const error = await failure(client.callTool("echo", { text: "silence" }));
    expect(error).toMatchObject({ reason: "TIMEOUT", timeoutMs: 300, retryable: true });
    expect((await client.callTool("echo", { text: "after" })).content).toEqual([{ type: "text", text: "after" }]);
  });

  it("a server that cannot be reached is tried three times, then fails once with UNAVAILABLE", async () => {
    const error = await failure(connectWith(new SseTransport(`http://127.0.0.1:${await closedPort()}/sse`)));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.message).toContain("after 3 attempts");
  });
});

describe("legacy SSE: the cancel notice", () => {
  it("a cancel notice the server never accepts is aborted within CANCEL_NOTICE_TIMEOUT_MS, not timeoutMs; the connection goes on", async () => {
    // STYLE: "Best-effort traffic gets its own deadline", shorter than the connection's timeoutMs.
    let noticeClosed!: () => void;
    const closed = new Promise<void>((resolve) => (noticeClosed = resolve));
    const endpoint = owned(
      await startSseEndpoint({
        onMessage(request, res) {
          const args = (request.body?.params as { arguments?: { text?: string } } | undefined)?.arguments;
          if (request.body?.method === "notifications/cancelled") {
            // Never accepted: only the client can end this POST, and the server sees its socket close.
            res.on("close", () => noticeClosed());
            return true;
          }
          if (request.body?.method !== "tools/call" || args?.text !== "never") return false;
          res.writeHead(202).end(); // accepted, never answered: its caller gives up
          return true;
        },
      }),
    );
    // The cap shortened, so that this does not wait out 5 s: the test waits for the server's close
    // event, not for a time; without the cap, the POST would stay open for the connection's
    // timeoutMs (ten minutes here).
    const restore = setCancelNoticeTimeoutForTests(200);
    try {
      const client = await connectWith(new SseTransport(endpoint.url), { timeoutMs: 600_000 });
      const gaveUp = new AbortController();
      const call = rejection(client.callTool("echo", { text: "never" }, { signal: gaveUp.signal, validateOutput: false }));
      await expect.poll(() => endpoint.count("tools/call"), { timeout: 10_000 }).toBe(1);
      gaveUp.abort(new Error("the caller gave up"));
      await call;
      await expect.poll(() => endpoint.count("notifications/cancelled"), { timeout: 10_000 }).toBe(1);
      await closed;
      const after = await client.callTool("echo", { text: "still usable" }, { validateOutput: false });
      expect(after.content).toEqual([{ type: "text", text: "still usable" }]);
    } finally {
      restore();
    }
  });
});

describe("legacy SSE: the stream is the connection", () => {
  it("a stream that drops mid-call fails the pending request with DISCONNECTED at once", async () => {
    const endpoint = owned(
      await startSseEndpoint({
        onMessage(request, res, stream) {
          if (request.body?.method !== "tools/call") return false;
          res.writeHead(202).end();
          stream.res.destroy();
          return true;
        },
      }),
    );
    const client = await connectWith(new SseTransport(endpoint.url), { timeoutMs: 60_000 });
    const error = await failure(client.callTool("echo", { text: "dropped" }));
    expect(error.reason).toBe("DISCONNECTED");
    expect((await client.ended).error?.reason).toBe("DISCONNECTED");
    const after = await failure(client.callTool("echo", { text: "too late" }));
    expect(after.reason).toBe("DISCONNECTED");
  });

  it("a stream the server ends cleanly ends the connection with DISCONNECTED too", async () => {
    const endpoint = owned(await startSseEndpoint());
    const client = await connectWith(new SseTransport(endpoint.url));
    endpoint.streams.get(1)!.res.end();
    expect((await client.ended).error?.reason).toBe("DISCONNECTED");
  });

  it("reconnecting opens a new stream on a new endpoint and initializes again", async () => {
    let dropped = false;
    const endpoint = owned(
      await startSseEndpoint({
        onMessage(request, res, stream) {
          if (request.body?.method !== "tools/call" || dropped) return false;
          dropped = true;
          res.writeHead(202).end();
          stream.res.destroy();
          return true;
        },
      }),
    );
    const client = await connectWith(new SseTransport(endpoint.url), { reconnect: { maxAttempts: 3, initialDelayMs: 10 } });
    const first = await failure(client.callTool("echo", { text: "lost" }));
    expect(first.reason).toBe("DISCONNECTED");
    // The next call waits for the reconnection, which made a second stream and handshake.
    expect((await client.callTool("echo", { text: "again" })).content).toEqual([{ type: "text", text: "again" }]);
    expect(endpoint.count("GET /sse")).toBe(2);
    expect(endpoint.count("initialize")).toBe(2);
    const posts = endpoint.requests.filter((request) => request.method === "POST");
    expect(posts.at(-1)?.path).toBe("/messages?session=2");
    expect(posts.filter((request) => request.body?.method === "tools/call").map((request) => request.path)).toEqual([
      "/messages?session=1",
      "/messages?session=2",
    ]);
  });

  it("close() ends the stream and every socket, and reports no error", async () => {
    const endpoint = owned(await startSseEndpoint());
    const client = await connectWith(new SseTransport(endpoint.url));
    await client.callTool("echo", { text: "x" });
    await Promise.all([client.close(), client.close()]);
    expect((await client.ended).error).toBeUndefined();
    await expect.poll(() => endpoint.connections(), { timeout: 10_000 }).toBe(0);
  });
});
