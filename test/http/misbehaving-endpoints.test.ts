/**
 * The endpoint policy against endpoints that misbehave: each rule of the policy, one fault.
 */
import { describe, expect, it } from "vitest";
import { SESSION, startEndpoint } from "../fixtures/http-endpoint.js";
import { NOT_HTTP_MARKER, startNotHttpServer } from "../fixtures/not-http-server.js";
import {
  HTML_MARKER,
  closedWithRetry,
  htmlPageOnCall,
  oversizedBody,
  oversizedEvent,
  redirectEverything,
  silentStream,
  slowDrip,
  unavailableOnce,
} from "../fixtures/http-misbehaving.js";
import { connectHttp, failure, owned } from "./helpers.js";

describe("status and content type", () => {
  it("an HTML 502 from a proxy is UNAVAILABLE with the status, and its page is never read into the message", async () => {
    const endpoint = owned(await startEndpoint(htmlPageOnCall(502)));
    const client = await connectHttp(endpoint.url);
    const error = await failure(client.callTool("echo", { text: "hi" }));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.retryable).toBe(true);
    expect(error.httpStatus).toBe(502);
    expect(error.message).not.toContain(HTML_MARKER);
  });

  it("an HTML page with 200 is PROTOCOL and is not parsed", async () => {
    const endpoint = owned(await startEndpoint(htmlPageOnCall(200)));
    const client = await connectHttp(endpoint.url);
    const error = await failure(client.callTool("echo", { text: "hi" }));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.httpStatus).toBe(200);
    expect(error.kind).toBe("content_type");
    expect(error.message).toContain('content type "text/html"');
    expect(error.message).not.toContain(HTML_MARKER);
  });

  it("a 503 fails that request only (UNAVAILABLE, not retried by the transport); the next one succeeds", async () => {
    const endpoint = owned(await startEndpoint(unavailableOnce()));
    const client = await connectHttp(endpoint.url);
    const error = await failure(client.callTool("echo", { text: "first" }));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.httpStatus).toBe(503);
    expect(error.message).not.toContain(HTML_MARKER);
    expect(endpoint.count("tools/call")).toBe(1);
    const result = await client.callTool("echo", { text: "second" });
    expect(result.content).toEqual([{ type: "text", text: "second" }]);
  });

  it("a 4xx with a JSON-RPC error body gives its code, text and data, never in the message", async () => {
    const endpoint = owned(
      await startEndpoint((request, res) => {
        if (request.body?.method !== "tools/call") return false;
        const error = { code: -32020, message: `Header mismatch: ${HTML_MARKER}`, data: { header: "Mcp-Name" } };
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: request.body.id, error }));
        return true;
      }),
    );
    const client = await connectHttp(endpoint.url);
    const error = await failure(client.callTool("echo", { text: "hi" }));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.httpStatus).toBe(400);
    expect(error.code).toBe(-32020);
    expect(error.serverMessage).toBe(`Header mismatch: ${HTML_MARKER}`);
    expect(error.serverData).toEqual({ header: "Mcp-Name" });
    expect(error.message).not.toContain(HTML_MARKER);
  });

  it("a 401 is PROTOCOL and carries WWW-Authenticate for an auth layer", async () => {
    const challenge = 'Bearer realm="mcp", error="invalid_token"';
    const endpoint = owned(
      await startEndpoint((request, res) => {
        if (request.body?.method !== "tools/call") return false;
        res.writeHead(401, { "www-authenticate": challenge, "content-type": "text/plain" }).end(HTML_MARKER);
        return true;
      }),
    );
    const client = await connectHttp(endpoint.url);
    const error = await failure(client.callTool("echo", { text: "hi" }));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.httpStatus).toBe(401);
    expect(error.httpHeaders).toEqual({ "www-authenticate": challenge });
    expect(error.message).not.toContain(HTML_MARKER);
  });
});

describe("redirects", () => {
  it("refuses a redirect to another origin, naming it, and sends nothing there", async () => {
    const elsewhere = owned(await startEndpoint());
    const endpoint = owned(
      await startEndpoint(redirectEverything(307, (request) => (request.method === "POST" ? `${elsewhere.url}?from=proxy` : undefined))),
    );
    const error = await failure(connectHttp(endpoint.url, { headers: { authorization: "Bearer secret" } }));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.httpStatus).toBe(307);
    expect(error.message).toContain(`redirected to ${elsewhere.url}?… (HTTP 307)`);
    expect(error.message).not.toContain("from=proxy");
    expect(error.message).toContain("configure");
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("follows a 308 to the same origin with the user's headers, and goes there directly afterwards", async () => {
    const endpoint = owned(
      await startEndpoint(redirectEverything(308, (request) => (request.path === "/mcp" ? "/mcp/" : undefined))),
    );
    const client = await connectHttp(endpoint.url, { headers: { Authorization: "Bearer secret" } });
    // Output checks off: they would list the tools after this first call.
    await client.callTool("echo", { text: "through" }, { validateOutput: false });
    const atTarget = endpoint.requests.filter((request) => request.path === "/mcp/");
    const posts = atTarget.filter((request) => request.method === "POST").map((request) => request.body?.method);
    expect(posts).toEqual(["initialize", "notifications/initialized", "tools/call"]);
    expect(atTarget.every((request) => request.headers.authorization === "Bearer secret")).toBe(true);
    // Only the first POST met the redirect: the permanent one is remembered.
    expect(endpoint.requests.filter((request) => request.path === "/mcp")).toHaveLength(1);
  });

  it('refuses even a same-origin redirect with redirect: "none"', async () => {
    const endpoint = owned(await startEndpoint(redirectEverything(308, (request) => (request.path === "/mcp" ? "/mcp/" : undefined))));
    const error = await failure(connectHttp(endpoint.url, { redirect: "none" }));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain('redirect: "none"');
    expect(endpoint.requests).toHaveLength(1);
  });
});

describe("ceilings at the wire", () => {
  it("readTimeoutMs: any byte restarts the count, so a slow drip completes", async () => {
    const endpoint = owned(await startEndpoint(slowDrip(60)));
    const client = await connectHttp(endpoint.url, {}, { readTimeoutMs: 1_000 });
    const result = await client.callTool("echo", { text: "x" });
    expect(result.content).toEqual([{ type: "text", text: "dripped" }]);
  });

  it("timeoutMs bounds a drip that takes too long, and its exchange is aborted", async () => {
    const endpoint = owned(await startEndpoint(slowDrip(200, 1)));
    const client = await connectHttp(endpoint.url, {}, { readTimeoutMs: 5_000 });
    const error = await failure(client.callTool("echo", { text: "x" }, { timeoutMs: 500 }));
    expect(error.reason).toBe("TIMEOUT");
    expect(error.timeoutMs).toBe(500);
    await expect.poll(() => endpoint.clientClosed, { timeout: 10_000 }).toBe(1);
  });

  it("readTimeoutMs: a stream that stays silent without closing fails with TIMEOUT and is closed", async () => {
    const endpoint = owned(await startEndpoint(silentStream()));
    const client = await connectHttp(endpoint.url, {}, { readTimeoutMs: 300, timeoutMs: 20_000 });
    const error = await failure(client.callTool("echo", { text: "x" }));
    expect(error.reason).toBe("TIMEOUT");
    expect(error.timeoutMs).toBe(300);
    await expect.poll(() => endpoint.clientClosed, { timeout: 10_000 }).toBe(1);
    await expect(client.ping()).resolves.toBeUndefined();
  });

  it("maxMessageBytes: a Content-Length above the ceiling fails early, before the body is read", async () => {
    const endpoint = owned(await startEndpoint(oversizedBody(4 * 1024 * 1024, true)));
    const client = await connectHttp(endpoint.url, {}, { maxMessageBytes: 64 * 1024 });
    const error = await failure(client.callTool("echo", { text: "x" }));
    expect(error.reason).toBe("LIMIT");
    expect(error.limitBytes).toBe(64 * 1024);
    await expect.poll(() => endpoint.clientClosed, { timeout: 10_000 }).toBe(1);
    await expect(client.ping()).resolves.toBeUndefined();
  });

  it("maxMessageBytes: a body without Content-Length fails as soon as it passes the ceiling", async () => {
    const endpoint = owned(await startEndpoint(oversizedBody(4 * 1024 * 1024, false)));
    const client = await connectHttp(endpoint.url, {}, { maxMessageBytes: 64 * 1024 });
    expect((await failure(client.callTool("echo", { text: "x" }))).reason).toBe("LIMIT");
    await expect.poll(() => endpoint.clientClosed, { timeout: 10_000 }).toBe(1);
  });

  it("maxMessageBytes: an SSE event past the ceiling fails while it is being read", async () => {
    const endpoint = owned(await startEndpoint(oversizedEvent(4 * 1024 * 1024)));
    const client = await connectHttp(endpoint.url, {}, { maxMessageBytes: 64 * 1024 });
    expect((await failure(client.callTool("echo", { text: "x" }))).reason).toBe("LIMIT");
    await expect.poll(() => endpoint.clientClosed, { timeout: 10_000 }).toBe(1);
    await expect(client.ping()).resolves.toBeUndefined();
  });
});

describe("resumption", () => {
  it("a stream the server closes with `retry` is resumed with GET and Last-Event-ID after that wait (SEP-1699)", async () => {
    const behaviour = closedWithRetry(400);
    const endpoint = owned(await startEndpoint(behaviour));
    const client = await connectHttp(endpoint.url);
    const result = await client.callTool("echo", { text: "x" });
    expect(result.content).toEqual([{ type: "text", text: "resumed" }]);
    expect(behaviour.lastEventId).toBe("call-1");
    expect(behaviour.resumedAt! - behaviour.closedAt!).toBeGreaterThanOrEqual(400 - 50);
    const resume = endpoint.requests.find((request) => request.headers["last-event-id"] !== undefined)!;
    expect(resume.headers["mcp-session-id"]).toBe(SESSION);
    expect(resume.headers.accept).toBe("text/event-stream");
  });

  it("a stream primed with an event of an id alone (no data field) is resumed from that id, as the SSE standard keeps it", async () => {
    const behaviour = closedWithRetry(10, false);
    const endpoint = owned(await startEndpoint(behaviour));
    const client = await connectHttp(endpoint.url);
    const result = await client.callTool("echo", { text: "x" });
    expect(result.content).toEqual([{ type: "text", text: "resumed" }]);
    expect(behaviour.lastEventId).toBe("call-1");
  });

  it("a stream that ends before its answer with no event id fails its request with DISCONNECTED", async () => {
    const endpoint = owned(
      await startEndpoint((request, res) => {
        if (request.body?.method !== "tools/call") return false;
        res.writeHead(200, { "content-type": "text/event-stream" }).end();
        return true;
      }),
    );
    const client = await connectHttp(endpoint.url);
    const error = await failure(client.callTool("echo", { text: "x" }));
    expect(error.reason).toBe("DISCONNECTED");
    // The endpoint is still there: the connection stays usable.
    await expect(client.ping()).resolves.toBeUndefined();
  });

  it("a stream whose server reset its event id (an empty id) is not resumed with an empty Last-Event-ID, and fails DISCONNECTED", async () => {
    const endpoint = owned(
      await startEndpoint((request, res) => {
        if (request.body?.method !== "tools/call") return false;
        res.writeHead(200, { "content-type": "text/event-stream" }).end("id: e1\ndata: \n\nid:\nretry: 10\ndata: \n\n");
        return true;
      }),
    );
    const client = await connectHttp(endpoint.url);
    const error = await failure(client.callTool("echo", { text: "x" }));
    expect(error.reason).toBe("DISCONNECTED");
    expect(error.message).toContain("gave no event id");
    expect(endpoint.requests.filter((request) => request.headers["last-event-id"] !== undefined)).toHaveLength(0);
  });

  it("a stream that is resumed and dropped again and again gives up within its budget", async () => {
    let gets = 0;
    const endpoint = owned(
      await startEndpoint((request, res) => {
        if (request.body?.method === "tools/call" || (request.method === "GET" && request.headers["last-event-id"])) {
          if (request.method === "GET") gets++;
          res.writeHead(200, { "content-type": "text/event-stream" }).end(`id: e${gets}\nretry: 10\ndata: \n\n`);
          return true;
        }
        return false;
      }),
    );
    const client = await connectHttp(endpoint.url);
    const error = await failure(client.callTool("echo", { text: "x" }));
    expect(error.reason).toBe("DISCONNECTED");
    expect(gets).toBe(5);
  });
});

describe("unreachable endpoints", () => {
  it("a refused port is tried three times in all, then fails once with UNAVAILABLE", async () => {
    const endpoint = await startEndpoint();
    const url = endpoint.url;
    await endpoint.close();
    let calls = 0;
    const counting = ((input: string, init: RequestInit) => {
      calls++;
      return fetch(input, init);
    }) as never;
    const error = await failure(connectHttp(url, { fetch: counting }, { timeoutMs: 20_000 }));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("after 3 attempts");
    expect(calls).toBe(3);
  });

  it("the default client reports a refused port the same way", async () => {
    const endpoint = await startEndpoint();
    await endpoint.close();
    const error = await failure(connectHttp(endpoint.url, {}, { timeoutMs: 20_000 }));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.message).toContain("after 3 attempts");
  });

  it("a port where something else than HTTP answers is PROTOCOL at once, not a lost connection tried again", async () => {
    const server = await startNotHttpServer();
    const url = `http://127.0.0.1:${server.port}/mcp`;
    try {
      for (const transportOptions of [{}, { fetch: ((input: string, init: RequestInit) => fetch(input, init)) as never }]) {
        const before = server.connections();
        const error = await failure(connectHttp(url, transportOptions, { timeoutMs: 20_000 }));
        expect(error.reason).toBe("PROTOCOL");
        expect(error.message).toContain("the endpoint did not answer in HTTP: something else listens on that port");
        expect(error.message).not.toContain(NOT_HTTP_MARKER);
        expect(server.connections() - before).toBe(1);
      }
    } finally {
      await server.close();
    }
  });
});
