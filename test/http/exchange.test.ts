/**
 * The Streamable HTTP exchange (basic/transports, 2025-03-26 to 2025-11-25): headers, sessions,
 * whole reply streams, the GET stream, per-request abort, close.
 */
import { getEventListeners } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { McpClient } from "../../src/client/client.js";
import { TransportSession } from "../../src/session/session.js";
import { setCancelNoticeTimeoutForTests } from "../../src/transport/http/cancel-notice.js";
import { RESPONSE_STREAM_LINGER_MS, StreamableHttpTransport } from "../../src/transport/http/streamable-http.js";
import { SESSION, initializeResult, jsonRpcResult, startEndpoint } from "../fixtures/http-endpoint.js";
import { connectHttp, failure, owned } from "./helpers.js";
import { rejection } from "../helpers/failure.js";

describe("headers", () => {
  it("sends Accept and Content-Type on every POST, the session id and the negotiated revision after initialize", async () => {
    const endpoint = owned(await startEndpoint());
    const client = await connectHttp(endpoint.url);
    // Output checks off: they would list the tools after this first call.
    await client.callTool("echo", { text: "x" }, { validateOutput: false });
    await client.close();
    const [initialize, ...later] = endpoint.requests;
    expect(initialize!.headers.accept).toBe("application/json, text/event-stream");
    expect(initialize!.headers["content-type"]).toBe("application/json");
    expect(initialize!.headers["mcp-session-id"]).toBeUndefined();
    expect(initialize!.headers["mcp-protocol-version"]).toBeUndefined();
    expect(later.map((request) => request.method)).toEqual(["POST", "GET", "POST", "DELETE"]);
    for (const request of later) {
      expect(request.headers["mcp-session-id"]).toBe(SESSION);
      expect(request.headers["mcp-protocol-version"]).toBe("2025-11-25");
    }
    expect(later[1]!.headers.accept).toBe("text/event-stream");
  });

  it("passes the user's headers on every request; a function is called per request (rotating tokens)", async () => {
    const endpoint = owned(await startEndpoint());
    let token = 0;
    const client = await connectHttp(endpoint.url, {
      headers: () => ({ Authorization: `Bearer token-${++token}`, "X-Tenant": "blue" }),
    });
    await client.callTool("echo", { text: "x" });
    await client.close();
    const tokens = endpoint.requests.map((request) => request.headers.authorization);
    expect(new Set(tokens).size).toBe(endpoint.requests.length);
    expect(endpoint.requests.every((request) => request.headers["x-tenant"] === "blue")).toBe(true);
    expect(endpoint.requests.slice(1).every((request) => request.headers["mcp-session-id"] === SESSION)).toBe(true);
  });

  it("refuses a header the protocol sets itself, from a headers function too, before sending it", async () => {
    const endpoint = owned(await startEndpoint());
    const error = await failure(connectHttp(endpoint.url, { headers: () => ({ "Mcp-Session-Id": "forged" }) }));
    expect(error.message).toContain('"Mcp-Session-Id" is a header the protocol sets itself');
    expect(endpoint.requests.some((request) => request.headers["mcp-session-id"] === "forged")).toBe(false);
  });

  it("refuses a header of the HTTP connection, fixed or from a headers function, before sending anything", async () => {
    for (const name of ["Connection", "Content-Length", "Transfer-Encoding", "Keep-Alive", "Upgrade", "Expect"]) {
      expect(() => new StreamableHttpTransport("http://127.0.0.1:1/mcp", { headers: { [name]: "x" } })).toThrow(
        `"headers": "${name}" is a header of the HTTP connection, which the HTTP client sets itself; remove it`,
      );
    }
    const endpoint = owned(await startEndpoint());
    const error = await failure(connectHttp(endpoint.url, { headers: () => ({ expect: "100-continue" }) }));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain('"expect" is a header of the HTTP connection');
    expect(endpoint.requests).toHaveLength(0);
  });

  it("refuses a value the HTTP client cannot send (outside Latin-1, a control character) as a bad header, never as a lost connection", async () => {
    for (const value of ["\u65e5\u672c", "a\u0001b", "tab\u007f"]) {
      expect(() => new StreamableHttpTransport("http://127.0.0.1:1/mcp", { headers: { "X-Team": value } })).toThrow(
        '"headers": the value of "X-Team" holds a control character or a character outside Latin-1',
      );
    }
    const endpoint = owned(await startEndpoint());
    const error = await failure(connectHttp(endpoint.url, { headers: () => ({ "X-Team": "\u65e5\u672c" }) }));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain('the value of "X-Team" holds a control character or a character outside Latin-1');
    expect(endpoint.requests).toHaveLength(0);
    // Latin-1 and a tab are what the client sends as they are.
    const client = await connectHttp(endpoint.url, { headers: { "X-Team": "caf\u00e9\tbar" } });
    await client.ping();
    expect(endpoint.requests.length).toBeGreaterThan(0);
  });

  it("validates fixed headers when the transport is made", () => {
    expect(() => new StreamableHttpTransport("http://127.0.0.1:1/mcp", { headers: { "bad name": "x" } })).toThrow(TypeError);
    expect(() => new StreamableHttpTransport("http://127.0.0.1:1/mcp", { headers: { ok: "line\nbreak" } })).toThrow(TypeError);
    expect(() => new StreamableHttpTransport("ftp://127.0.0.1/mcp")).toThrow(/http: or https:/);
    expect(() => new StreamableHttpTransport("http://user:pass@127.0.0.1/mcp")).toThrow(/credentials/);
    expect(() => new StreamableHttpTransport("http://127.0.0.1/mcp", { redirect: "all" as never })).toThrow(/redirect/);
  });

  it("a user-supplied fetch carries every request", async () => {
    const endpoint = owned(await startEndpoint());
    const seen: string[] = [];
    const client = await connectHttp(endpoint.url, {
      fetch: ((input: string, init: RequestInit) => {
        seen.push(init.method!);
        expect(init.redirect).toBe("manual");
        return fetch(input, init);
      }) as never,
    });
    // Output checks off: they would list the tools after this first call.
    await client.callTool("echo", { text: "through fetch" }, { validateOutput: false });
    await client.close();
    expect(seen).toEqual(["POST", "POST", "GET", "POST", "DELETE"]);
  });
});

describe("sessions", () => {
  it("refuses a session id that is not visible ASCII", async () => {
    const endpoint = owned(
      await startEndpoint((request, res) => {
        if (request.body?.method !== "initialize") return false;
        res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "has space" }).end(initializeResult(request.body.id));
        return true;
      }),
    );
    const error = await failure(connectHttp(endpoint.url));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain("visible ASCII");
  });

  it("works without a session when the server assigns none", async () => {
    const endpoint = owned(await startEndpoint(undefined, { sessions: false }));
    const client = await connectHttp(endpoint.url);
    expect(client.session.sessionId).toBeUndefined();
    await client.callTool("echo", { text: "x" });
    await client.close();
    expect(endpoint.requests.some((request) => request.headers["mcp-session-id"] !== undefined)).toBe(false);
    expect(endpoint.count("DELETE")).toBe(0);
  });

  it("close() ends the session with DELETE; 405 is accepted", async () => {
    const endpoint = owned(
      await startEndpoint((request, res) => {
        if (request.method !== "DELETE") return false;
        res.writeHead(405).end();
        return true;
      }),
    );
    const client = await connectHttp(endpoint.url);
    expect(client.session.sessionId).toBe(SESSION);
    await client.close();
    expect(endpoint.count("DELETE")).toBe(1);
    expect((await client.ended).error).toBeUndefined();
  });

  it("close() does not wait more than DELETE_TIMEOUT_MS for a DELETE nobody answers", async () => {
    const endpoint = owned(await startEndpoint((request) => request.method === "DELETE"));
    const client = await connectHttp(endpoint.url);
    const started = Date.now();
    await client.close();
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(endpoint.count("DELETE")).toBe(1);
  }, 30_000);

  it("the cancel notice of a request given up is aborted within CANCEL_NOTICE_TIMEOUT_MS when the server never answers it; the connection goes on", async () => {
    // STYLE: "Best-effort traffic gets its own deadline": nothing else ends the notice but close().
    let noticeClosed!: () => void;
    const closed = new Promise<void>((resolve) => (noticeClosed = resolve));
    const endpoint = owned(
      await startEndpoint((request, res) => {
        const args = (request.body?.params as { arguments?: { text?: string } } | undefined)?.arguments;
        if (request.body?.method === "notifications/cancelled") {
          // Never answered: only the client can end this POST, and the server sees its socket close.
          res.on("close", () => noticeClosed());
          return true;
        }
        // Never answered either: its caller gives up.
        return request.body?.method === "tools/call" && args?.text === "never";
      }),
    );
    // The cap shortened, so that this does not wait out 5 s: the test waits for the server's close
    // event, not for a time. Without the deadline only close() would end the POST (a hang here).
    const restore = setCancelNoticeTimeoutForTests(200);
    try {
      const client = await connectHttp(endpoint.url, { listen: false });
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

describe("reply streams", () => {
  it("reads the whole SSE reply: server requests and notifications before the response are delivered", async () => {
    const endpoint = owned(
      await startEndpoint((request, res) => {
        if (request.body?.method === "tools/call") {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "working" } })}\n\n`);
          res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: "srv-1", method: "roots/list" })}\n\n`);
          // The response waits for the client's answer to roots/list.
          pendingCall = { id: request.body.id, res };
          return true;
        }
        if (request.body && "result" in request.body && request.body.id === "srv-1") {
          res.writeHead(202).end();
          const roots = (request.body.result as { roots: unknown[] }).roots;
          pendingCall!.res.end(`data: ${jsonRpcResult(pendingCall!.id, { content: [{ type: "text", text: JSON.stringify(roots) }] })}\n\n`);
          return true;
        }
        return false;
      }),
    );
    let pendingCall: { id: unknown; res: ServerResponse } | undefined;
    const client = await connectHttp(endpoint.url, {}, { handlers: { roots: [{ uri: "file:///w", name: "w" }] } });
    const logs: unknown[] = [];
    client.onLoggingMessage((entry) => logs.push(entry.data));
    const result = await client.callTool("echo", { text: "x" });
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify([{ uri: "file:///w", name: "w" }]) }]);
    expect(logs).toEqual(["working"]);
  });

  it("a reply stream the server keeps open after its response: the call resolves at once, the stream is cut after RESPONSE_STREAM_LINGER_MS", async () => {
    const endpoint = owned(
      await startEndpoint((request, res) => {
        if (request.body?.method !== "tools/call") return false;
        res.writeHead(200, { "content-type": "text/event-stream" });
        // The response, and then nothing: the stream is never ended by the server.
        res.write(`data: ${jsonRpcResult(request.body.id, { content: [{ type: "text", text: "answered" }] })}\n\n`);
        return true;
      }),
    );
    const client = await connectHttp(endpoint.url, { listen: false });
    const sentAt = performance.now();
    // No output check: a tools/list first would put a round trip between the answer and this check.
    await expect(client.callTool("echo", { text: "x" }, { validateOutput: false })).resolves.toEqual({ content: [{ type: "text", text: "answered" }] });
    expect(endpoint.clientClosed).toBe(0); // the answer did not wait for the stream to end
    // Cut by the client, so the connection is not held per finished request.
    await expect.poll(() => endpoint.clientClosed, { timeout: 20_000 }).toBe(1);
    expect(performance.now() - sentAt).toBeGreaterThanOrEqual(RESPONSE_STREAM_LINGER_MS - 50);
    // The connection is free again: the next call is answered as usual.
    await expect(client.callTool("echo", { text: "next" })).resolves.toEqual({ content: [{ type: "text", text: "answered" }] });
  });

  it("accepts a JSON-RPC batch only from a server that negotiated 2025-03-26", async () => {
    const batch = (id: unknown) =>
      JSON.stringify([
        { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "batched" } },
        { jsonrpc: "2.0", id, result: { content: [] } },
      ]);
    for (const [revision, ok] of [["2025-03-26", true], ["2025-06-18", false]] as const) {
      const endpoint = owned(
        await startEndpoint((request, res) => {
          const json = { "content-type": "application/json" };
          if (request.body?.method === "initialize") return void res.writeHead(200, json).end(initializeResult(request.body.id, revision)), true;
          if (request.body?.method === "tools/call") return void res.writeHead(200, json).end(batch(request.body.id)), true;
          return false;
        }),
      );
      const client = await connectHttp(endpoint.url);
      expect(client.protocolVersion).toBe(revision);
      const call = client.callTool("echo", { text: "x" });
      if (ok) await expect(call).resolves.toEqual({ content: [] });
      else expect((await failure(call)).reason).toBe("PROTOCOL");
    }
  });

  it("an abandoned request aborts its own exchange only", async () => {
    const endpoint = owned(
      await startEndpoint((request, res) => {
        if (request.body?.method !== "tools/call") return false;
        const text = (request.body.params as { arguments: { text: string } }).arguments.text;
        const answer = () => res.writeHead(200, { "content-type": "application/json" }).end(jsonRpcResult(request.body!.id, { content: [{ type: "text", text }] }));
        if (text === "slow") setTimeout(answer, 400);
        // "abandoned" is never answered.
        return true;
      }),
    );
    const client = await connectHttp(endpoint.url);
    const controller = new AbortController();
    const abandoned = client.callTool("echo", { text: "abandoned" }, { signal: controller.signal });
    const slow = client.callTool("echo", { text: "slow" });
    setTimeout(() => controller.abort(new Error("gave up")), 50);
    await expect(abandoned).rejects.toThrow("gave up");
    await expect.poll(() => endpoint.clientClosed, { timeout: 10_000 }).toBe(1);
    await expect(slow).resolves.toEqual({ content: [{ type: "text", text: "slow" }] });
    // The server was told, as the specification asks (a dropped connection is not a cancellation).
    await expect.poll(() => endpoint.count("notifications/cancelled")).toBe(1);
  });

  it("many requests with one long-lived signal leave no listener and print no warning", async () => {
    const endpoint = owned(await startEndpoint());
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const client = await connectHttp(endpoint.url);
      const signal = new AbortController().signal;
      for (let i = 0; i < 200; i++) await client.callTool("echo", { text: `${i}` }, { signal });
      expect(getEventListeners(signal, "abort")).toHaveLength(0);
      // Many exchanges at once: each has its own signal underneath, none is shared.
      await Promise.all(Array.from({ length: 100 }, (_, i) => client.callTool("echo", { text: `c${i}` })));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
  });
});

describe("the GET stream", () => {
  it("delivers server-initiated messages after initialization", async () => {
    const endpoint = owned(
      await startEndpoint((request, res) => {
        if (request.method !== "GET") return false;
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed" })}\n\n`);
        return true;
      }),
    );
    const client = new McpClient(new TransportSession(new StreamableHttpTransport(endpoint.url)));
    const changed = new Promise<void>((resolve) => client.onToolsListChanged(resolve));
    await client.connect();
    try {
      await changed;
      expect(endpoint.requests.find((request) => request.method === "GET")!.headers["mcp-session-id"]).toBe(SESSION);
    } finally {
      await client.close();
    }
  });

  it("is not opened with listen: false, and a 405 is fine", async () => {
    const endpoint = owned(await startEndpoint());
    const quiet = await connectHttp(endpoint.url, { listen: false });
    await quiet.ping();
    expect(endpoint.count("GET")).toBe(0);
    const listening = await connectHttp(endpoint.url);
    await listening.ping();
    await expect.poll(() => endpoint.count("GET")).toBe(1);
    await expect(listening.ping()).resolves.toBeUndefined();
  });

  it("an HTML page answering the GET with 200 ends the connection with PROTOCOL (fail closed)", async () => {
    const endpoint = owned(
      await startEndpoint((request, res) => {
        if (request.method !== "GET") return false;
        res.writeHead(200, { "content-type": "text/html" }).end("<html>proxy</html>");
        return true;
      }),
    );
    const client = await connectHttp(endpoint.url);
    const ending = await client.ended;
    expect(ending.error?.reason).toBe("PROTOCOL");
    expect(ending.error?.message).not.toContain("proxy</html>");
  });
});
