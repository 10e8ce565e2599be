/**
 * What the endpoint answers, per the Streamable HTTP transport of both eras: JSON or an SSE
 * stream per request (a request whose child reports progress gets a stream carrying it, then the
 * answer), 202 for notifications and responses, 400 for a body that is not one JSON-RPC message
 * or a modern request whose headers do not match its body (-32020), 404 off the endpoint's path,
 * 405 for GET and DELETE without a session, 415 for a body that is not JSON.
 */
import { describe, expect, it } from "vitest";
import { connect } from "../../../src/index.js";
import { closedAfterEach } from "../../helpers/owned.js";
import { EVERYTHING_TARGET, MINI_TARGET, MODERN_TARGET, startGateway } from "../helpers/gateway-fixture.js";
import { inProcessChildren } from "../helpers/in-process-children.js";
import { modernCall } from "../helpers/modern-post.js";
import { JSON_POST, initializeBody, rawRequest } from "../helpers/raw-http.js";

const own = closedAfterEach(30_000);

describe("replies", () => {
  it("streams a request's progress on its SSE reply, then the answer (legacy session)", async () => {
    const { url } = own(await startGateway({ target: EVERYTHING_TARGET, poolMin: 0 }));
    const client = own(await connect(url, { protocolVersion: "legacy" }));
    const progress: number[] = [];
    const result = await client.callTool("trigger-long-running-operation", { duration: 0.3, steps: 3 }, { onProgress: ({ progress: value }) => progress.push(value) });
    expect(JSON.stringify(result.content)).toMatch(/completed/i);
    expect(progress).toEqual([1, 2, 3]);
  }, 60_000);

  it("answers a request whose child says nothing else as one JSON object", async () => {
    const children = inProcessChildren();
    const { port } = own(await startGateway({ target: MINI_TARGET }, { children: children.factory }));
    const answer = await rawRequest({ port, headers: JSON_POST, body: initializeBody(5) });
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(answer.json()).toMatchObject({ jsonrpc: "2.0", id: 5, result: { serverInfo: { name: "fake" } } });
  });

  it("answers 202 to a notification and to a response", async () => {
    const children = inProcessChildren();
    const { port } = own(await startGateway({ target: MINI_TARGET }, { children: children.factory }));
    const sessionId = (await rawRequest({ port, headers: JSON_POST, body: initializeBody() })).headers["mcp-session-id"] as string;
    const headers = { ...JSON_POST, "mcp-session-id": sessionId };
    const notified = await rawRequest({ port, headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
    expect([notified.status, notified.text]).toEqual([202, ""]);
    const answered = await rawRequest({ port, headers, body: JSON.stringify({ jsonrpc: "2.0", id: "s1", result: {} }) });
    expect(answered.status).toBe(202);
  });
});

describe("bad requests", () => {
  it("answers 400 with a JSON-RPC error to a body that is not one JSON-RPC message", async () => {
    const children = inProcessChildren();
    const { port } = own(await startGateway({ target: MINI_TARGET }, { children: children.factory }));
    const notJson = await rawRequest({ port, headers: JSON_POST, body: "{not json" });
    expect(notJson.status).toBe(400);
    expect(notJson.json()).toMatchObject({ id: null, error: { code: -32700 } });
    const batch = await rawRequest({ port, headers: JSON_POST, body: JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]) });
    expect(batch.status).toBe(400);
    expect(batch.json()).toMatchObject({ error: { code: -32600 } });
    const notRpc = await rawRequest({ port, headers: JSON_POST, body: JSON.stringify({ hello: "world" }) });
    expect(notRpc.status).toBe(400);
    const wrongType = await rawRequest({ port, headers: { ...JSON_POST, "content-type": "text/plain" }, body: initializeBody() });
    expect(wrongType.status).toBe(415);
  });

  it("refuses a modern request whose headers do not match its body: 400 and HeaderMismatch (-32020), nothing forwarded", async () => {
    const running = own(await startGateway({ target: MODERN_TARGET }));
    const { port } = running;
    const call = modernCall(3, "tools/call", { name: "echo", arguments: { text: "x" } });
    const cases: Array<[string, Record<string, string | undefined>]> = [
      ["no protocol version header", { "mcp-protocol-version": undefined }],
      ["another version in the header", { "mcp-protocol-version": "2025-11-25" }],
      ["no Mcp-Method", { "mcp-method": undefined }],
      ["another method", { "mcp-method": "tools/list" }],
      ["no Mcp-Name", { "mcp-name": undefined }],
      ["another name", { "mcp-name": "sleep" }],
      ["a Base64 name that is another", { "mcp-name": `=?base64?${Buffer.from("sleep").toString("base64")}?=` }],
    ];
    for (const [what, change] of cases) {
      const headers: Record<string, string> = { ...call.headers };
      for (const [name, value] of Object.entries(change)) {
        if (value === undefined) delete headers[name];
        else headers[name] = value;
      }
      const answer = await rawRequest({ port, headers, body: call.body });
      expect(answer.status, what).toBe(400);
      expect(answer.json(), what).toMatchObject({ id: 3, error: { code: -32020 } });
    }
    const encoded = await rawRequest({ port, headers: { ...call.headers, "mcp-name": `=?base64?${Buffer.from("echo").toString("base64")}?=` }, body: call.body });
    expect(encoded.status).toBe(200);
    // Each refusal is reported as a rejected request; only the one that matched reached a child.
    const requests = running.logs.filter((line) => line.event === "request");
    expect(requests.filter((line) => line.outcome === "rejected" && line.status === 400)).toHaveLength(cases.length);
    expect(requests.filter((line) => line.outcome !== "rejected")).toHaveLength(1);
  }, 60_000);

  it("answers 404 off the endpoint's path, 405 to GET and DELETE from a 2026-07-28 caller", async () => {
    const { port } = own(await startGateway({ target: MODERN_TARGET }));
    expect((await rawRequest({ port, path: "/other", headers: JSON_POST, body: "{}" })).status).toBe(404);
    expect((await rawRequest({ port, method: "GET", headers: { accept: "text/event-stream", "mcp-protocol-version": "2026-07-28" } })).status).toBe(405);
    expect((await rawRequest({ port, method: "DELETE", headers: { "mcp-protocol-version": "2026-07-28" } })).status).toBe(405);
  }, 30_000);

  it("in stateless mode, mints no session id and answers GET with 405", async () => {
    const { port } = own(await startGateway({ target: EVERYTHING_TARGET, legacy: "stateless" }));
    const answer = await rawRequest({ port, headers: JSON_POST, body: initializeBody() });
    expect(answer.status).toBe(200);
    expect(answer.headers["mcp-session-id"]).toBeUndefined();
    expect((await rawRequest({ port, method: "GET", headers: { accept: "text/event-stream" } })).status).toBe(405);
  }, 60_000);
});

describe("a caller that goes away", () => {
  it("cancels its request: the closed stream aborts it at the child, and its slot is freed", async () => {
    const running = own(await startGateway({ target: MODERN_TARGET }));
    await expect.poll(() => running.gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    const caller = new AbortController();
    const call = modernCall(11, "tools/call", { name: "sleep", arguments: { ms: 600_000 } });
    const pending = fetch(running.url, { method: "POST", headers: call.headers, body: call.body, signal: caller.signal }).catch(() => undefined);
    await expect.poll(() => running.gateway.requests.running, { timeout: 20_000 }).toBe(1);
    caller.abort();
    await pending;
    await expect.poll(() => running.logs.find((line) => line.event === "request"), { timeout: 20_000 }).toMatchObject({ outcome: "cancelled", method: "tools/call" });
    expect(running.gateway.requests).toEqual({ running: 0, queued: 0 });
    // The child is free again: it answers the next request.
    const echo = modernCall(12, "tools/call", { name: "echo", arguments: { text: "next" } });
    const next = (await (await fetch(running.url, { method: "POST", headers: echo.headers, body: echo.body })).json()) as { result: { content: unknown } };
    expect(next.result.content).toEqual([{ type: "text", text: "next" }]);
  }, 60_000);
});

describe("more refusals", () => {
  it("refuses a JSON-RPC response outside a session, a malformed session id, a legacy header naming no legacy revision, and a GET that takes no SSE", async () => {
    const children = inProcessChildren();
    const { port } = own(await startGateway({ target: MINI_TARGET }, { children: children.factory }));
    const modernResponse = await rawRequest({ port, headers: { ...JSON_POST, "mcp-protocol-version": "2026-07-28" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }) });
    // A response carries no _meta: with no session, it is nobody's answer (a 2026-07-28 client sends none).
    expect(modernResponse.status).toBe(400);
    const badId = await rawRequest({ port, headers: { ...JSON_POST, "mcp-session-id": "bad id" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) });
    expect(badId.status).toBe(400);
    const sessionId = (await rawRequest({ port, headers: JSON_POST, body: initializeBody() })).headers["mcp-session-id"] as string;
    const wrongRevision = await rawRequest({ port, headers: { ...JSON_POST, "mcp-session-id": sessionId, "mcp-protocol-version": "1999-01-01" }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }) });
    expect(wrongRevision.status).toBe(400);
    expect(wrongRevision.json()).toMatchObject({ id: 2, error: { code: -32600 } });
    const noSse = await rawRequest({ port, method: "GET", headers: { accept: "application/json", "mcp-session-id": sessionId } });
    expect(noSse.status).toBe(406);
  });

  it("answers a revision it does not serve, named by the header alone, with 400 and UnsupportedProtocolVersion (-32022) listing the supported ones (draft transports, \"Protocol Version Header\")", async () => {
    const children = inProcessChildren();
    const { port } = own(await startGateway({ target: MINI_TARGET }, { children: children.factory }));
    const answer = await rawRequest({ port, headers: { ...JSON_POST, "mcp-protocol-version": "2030-01-01", "mcp-method": "tools/list" }, body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list" }) });
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ id: 4, error: { code: -32022, data: { requested: "2030-01-01" } } });
    const supported = (answer.json() as { error: { data: { supported: string[] } } }).error.data.supported;
    expect(supported).toEqual(expect.arrayContaining(["2026-07-28", "2025-11-25"]));
  });

  it("answers a modern request whose _meta names a revision it does not know with 400 and UnsupportedProtocolVersion (-32022), nothing forwarded (2026-07-28 streamable-http, \"Protocol Version Header\"; basic/versioning)", async () => {
    const running = own(await startGateway({ target: MODERN_TARGET }));
    const { port } = running;
    const call = modernCall(6, "tools/call", { name: "echo", arguments: { text: "x" } });
    const body = call.body.replace('"io.modelcontextprotocol/protocolVersion":"2026-07-28"', '"io.modelcontextprotocol/protocolVersion":"2030-01-01"');
    expect(body).toContain("2030-01-01");
    // The header mirrors the body, as a client asking for that revision sends it; or it names a known one.
    for (const header of ["2030-01-01", "2026-07-28"]) {
      const answer = await rawRequest({ port, headers: { ...call.headers, "mcp-protocol-version": header }, body });
      expect(answer.status, header).toBe(400);
      expect(answer.json(), header).toMatchObject({ id: 6, error: { code: -32022, data: { requested: "2030-01-01" } } });
      const supported = (answer.json() as { error: { data: { supported: string[] } } }).error.data.supported;
      expect(supported).toEqual(expect.arrayContaining(["2026-07-28", "2025-11-25"]));
    }
    const requests = running.logs.filter((line) => line.event === "request");
    expect(requests.filter((line) => line.outcome !== "rejected")).toHaveLength(0);
  }, 60_000);

  it("answers a request whose _meta names a legacy revision with 400 and UnsupportedProtocolVersion (-32022), whatever the header says, and a header that disagrees with a 2026-07-28 _meta with HeaderMismatch (-32020); nothing forwarded (2026-07-28 basic/versioning; streamable-http, \"Protocol Version Header\")", async () => {
    const running = own(await startGateway({ target: MODERN_TARGET }));
    const { port } = running;
    const call = modernCall(7, "tools/call", { name: "echo", arguments: { text: "x" } });
    // A legacy revision is spoken only in a session its initialize opened, never named per request.
    const legacyBody = call.body.replace('"io.modelcontextprotocol/protocolVersion":"2026-07-28"', '"io.modelcontextprotocol/protocolVersion":"2025-06-18"');
    expect(legacyBody).toContain("2025-06-18");
    for (const header of ["2025-06-18", "2026-07-28"]) {
      const answer = await rawRequest({ port, headers: { ...call.headers, "mcp-protocol-version": header }, body: legacyBody });
      expect(answer.status, header).toBe(400);
      expect(answer.json(), header).toMatchObject({ id: 7, error: { code: -32022, data: { requested: "2025-06-18" } } });
    }
    // "The header value MUST match the io.modelcontextprotocol/protocolVersion field carried in the request body's _meta."
    const disagreeing = await rawRequest({ port, headers: { ...call.headers, "mcp-protocol-version": "2025-06-18" }, body: call.body });
    expect(disagreeing.status).toBe(400);
    expect(disagreeing.json()).toMatchObject({ id: 7, error: { code: -32020 } });
    const requests = running.logs.filter((line) => line.event === "request");
    expect(requests.filter((line) => line.outcome !== "rejected")).toHaveLength(0);
  }, 60_000);

  it("answers 400 to a GET or DELETE of a session whose MCP-Protocol-Version names no legacy revision, and such a DELETE leaves the session (transports, \"Protocol Version Header\")", async () => {
    const children = inProcessChildren();
    const { port, gateway } = own(await startGateway({ target: MINI_TARGET }, { children: children.factory }));
    const sessionId = (await rawRequest({ port, headers: JSON_POST, body: initializeBody() })).headers["mcp-session-id"] as string;
    const wrongRevision = { "mcp-session-id": sessionId, "mcp-protocol-version": "1999-01-01" };
    const get = await rawRequest({ port, method: "GET", headers: { accept: "text/event-stream", ...wrongRevision } });
    expect(get.status).toBe(400);
    expect(get.json()).toMatchObject({ id: null, error: { code: -32600 } });
    const refusedDelete = await rawRequest({ port, method: "DELETE", headers: wrongRevision });
    expect(refusedDelete.status).toBe(400);
    expect(gateway.sessionCount).toBe(1);
    const deleted = await rawRequest({ port, method: "DELETE", headers: { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" } });
    expect(deleted.status).toBe(200);
    expect(gateway.sessionCount).toBe(0);
  });
});

describe("children that cannot start", () => {
  it("answers a session's initialize with 503 and UNAVAILABLE when its child cannot be spawned, and keeps no session", async () => {
    const { port, gateway } = own(await startGateway({ target: { command: "/nonexistent/mcp-server" }, poolMin: 0 }));
    const answer = await rawRequest({ port, headers: JSON_POST, body: initializeBody(4) });
    expect(answer.status).toBe(503);
    expect(answer.headers["retry-after"]).toBe("1");
    expect(answer.headers["mcp-session-id"]).toBeUndefined();
    expect(answer.json()).toMatchObject({ id: 4, error: { data: { reason: "UNAVAILABLE" } } });
    expect(answer.text).not.toMatch(/ENOENT|nonexistent/);
    await expect.poll(() => gateway.sessionCount).toBe(0);
  }, 30_000);

  it("answers a 2026-07-28 request with an error, never a hang, when no pool child can start", async () => {
    const { url } = own(await startGateway({ target: { command: "/nonexistent/mcp-server" }, requestTimeoutMs: 10_000 }));
    const call = modernCall(5, "tools/call", { name: "echo", arguments: { text: "x" } });
    const answer = await fetch(url, { method: "POST", headers: call.headers, body: call.body });
    const body = (await answer.json()) as { id: number; error: { data: { reason: string } } };
    expect(body.id).toBe(5);
    expect(["UNAVAILABLE", "TIMEOUT"]).toContain(body.error.data.reason);
    if (body.error.data.reason === "UNAVAILABLE") expect(answer.status).toBe(503);
  }, 30_000);
});
