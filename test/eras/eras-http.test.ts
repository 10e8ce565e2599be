/**
 * Both eras over Streamable HTTP, found without the user choosing (basic/transports/
 * streamable-http, "Backward Compatibility"): the same test code against a legacy server
 * (official SDK v1) and a modern one (official SDK v2, modern only), then the modern era's
 * headers, recoveries and the statuses that are never taken as evidence of an era.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { McpTransportError, StreamableHttpTransport, connect, forgetEras, type ConnectOptions } from "../../src/index.js";
import { startHttpContractServer, type HttpContractServer } from "../fixtures/http-contract-server.js";
import { jsonRpcResult, startEndpoint, type ScriptedEndpoint } from "../fixtures/http-endpoint.js";
import { failure } from "../helpers/failure.js";
import { startHttpFixture, type HttpFixture } from "../helpers/http-fixture.js";
import { CANARY_PATH, shapesSchema } from "../fixtures/modern-tools.js";

/** Answers with the given write, and tells the scripted endpoint the request was handled. */
function reply(write: () => unknown): true {
  write();
  return true;
}

const handlers: ConnectOptions["handlers"] = { elicitation: () => ({ action: "accept", content: { name: "Ada" } }) };

describe("Streamable HTTP, same code against both eras", () => {
  let legacy: HttpContractServer;
  let modern: HttpFixture;
  beforeAll(async () => {
    legacy = await startHttpContractServer({ replies: "sse", stateful: true });
    modern = await startHttpFixture("test/fixtures/modern-server.ts", "http");
  });
  afterAll(async () => {
    await legacy.close();
    modern.child.kill("SIGTERM");
  });

  it.each([
    ["legacy (SDK v1)", () => legacy.url, "legacy", "2025-11-25"],
    ["modern (SDK v2)", () => modern.url, "modern", "2026-07-28"],
  ])("%s: finds the era by itself, and the same calls work", async (_, url, era, revision) => {
    forgetEras();
    await using client = await connect(url(), { handlers });
    expect(client.era).toBe(era);
    expect(client.protocolVersion).toBe(revision);
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(expect.arrayContaining(["echo", "ask_elicitation"]));
    expect((await client.callTool("echo", { text: "same code" })).content).toEqual([{ type: "text", text: "same code" }]);
    const form = await client.callTool("ask_elicitation");
    expect(JSON.parse((form.content[0] as { text: string }).text)).toEqual({ action: "accept", content: { name: "Ada", team: "support" } });
  });

  it("modern: a tool needing two rounds of input is answered through the handlers", async () => {
    await using client = await connect(modern.url, {
      handlers: { elicitation: () => ({ action: "accept", content: { confirm: true } }), roots: [{ uri: "file:///srv" }] },
    });
    const result = await client.callTool("deploy", { env: "prod" });
    expect(result.content).toEqual([{ type: "text", text: "deployed to prod by ? in file:///srv" }]);
  });
});

describe("modern era over HTTP against the SDK v2 server: tool schemas and input rounds", () => {
  let modern: HttpFixture;
  beforeAll(async () => {
    modern = await startHttpFixture("test/fixtures/modern-server.ts", "http");
  });
  afterAll(() => {
    modern.child.kill("SIGTERM");
  });
  const textOf = (result: { content: unknown[] }) => JSON.parse((result.content[0] as { text: string }).text) as unknown;

  it("mirrors x-mcp-header arguments into Mcp-Param-* headers the server checks against the body", async () => {
    await using client = await connect(modern.url);
    await client.listTools();
    // The server refuses (-32020) a call whose annotated argument has no header or one that does not decode to the body's value.
    const args = { region: "Hello,\t世界", priority: -7, dry: true, verbose: null, limits: { rows: 42 }, query: "SELECT 1" };
    expect(textOf(await client.callTool("route", args))).toEqual(args);
    for (const region of [" padded ", "=?base64?literal?=", "line1\r\nline2", "us west 1", ""]) {
      expect(textOf(await client.callTool("route", { region }))).toEqual({ region });
    }
  });

  it("leaves out a tool whose x-mcp-header is invalid, and keeps the others", async () => {
    await using client = await connect(modern.url);
    const names = (await client.listTools()).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["route", "shapes", "probe"]));
    expect(names).not.toContain("bad_header");
  });

  it("keeps JSON Schema 2020-12 keywords as received and never fetches a network $ref", async () => {
    await using client = await connect(modern.url);
    const shapes = (await client.listTools()).find((tool) => tool.name === "shapes")!;
    const canaryUrl = new URL(CANARY_PATH, modern.url).href;
    expect(shapes.inputSchema).toEqual(shapesSchema(canaryUrl));
    expect((await client.callTool("shapes", { email: "a@b.c" })).content).toEqual([{ type: "text", text: '"ok"' }]);
    expect(textOf(await client.callTool("canary_hits"))).toBe(0);
  });

  it("omits requestState when the server sent none, and keeps one request's rounds out of another running beside it", async () => {
    await using client = await connect(modern.url, {
      handlers: { elicitation: () => ({ action: "accept", content: { confirm: true } }), roots: [{ uri: "file:///srv" }] },
    });
    const [deployed, probed] = await Promise.all([client.callTool("deploy", { env: "prod" }), client.callTool("probe")]);
    expect(deployed.content).toEqual([{ type: "text", text: "deployed to prod by ? in file:///srv" }]);
    // `probe` asks once without requestState: had deploy's answers or state reached it, it would have said so.
    expect(textOf(probed)).toEqual({ inputResponses: ["ok"], requestState: null });
  });
});

describe("modern era over HTTP: headers, recoveries, evidence", () => {
  let endpoint: ScriptedEndpoint | undefined;
  afterEach(async () => {
    await endpoint?.close();
    endpoint = undefined;
    forgetEras();
  });

  const discover = (id: unknown) =>
    jsonRpcResult(id, { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, ttlMs: 0, cacheScope: "public" });

  it("mirrors the body into Mcp-* headers, re-lists the tools after a header mismatch, and refuses user headers in their place", async () => {
    let mismatches = 1;
    endpoint = await startEndpoint((request, res) => {
      const body = request.body as { id?: unknown; method?: string } | undefined;
      const json = { "content-type": "application/json" };
      if (body?.method === "server/discover") return reply(() => res.writeHead(200, json).end(discover(body.id)));
      if (body?.method === "tools/list") {
        const tool = { name: "query", inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } } };
        return reply(() => res.writeHead(200, json).end(jsonRpcResult(body.id, { tools: [tool], ttlMs: 0, cacheScope: "public" })));
      }
      if (body?.method === "tools/call") {
        if (mismatches-- > 0) {
          res.writeHead(400, json).end(JSON.stringify({ jsonrpc: "2.0", id: body.id, error: { code: -32020, message: "Header mismatch" } }));
          return true;
        }
        return reply(() => res.writeHead(200, json).end(jsonRpcResult(body.id, { content: [{ type: "text", text: "ok" }] })));
      }
      return false;
    });
    // The protocol's own headers cannot come from the user: refused where they are given.
    expect(() => new StreamableHttpTransport(endpoint!.url, { headers: { "Mcp-Name": "spoofed" } })).toThrow(/"Mcp-Name" is a header the protocol sets itself/);
    await using client = await connect(endpoint.url, { headers: { Authorization: "Bearer t" } });
    expect(client.era).toBe("modern");
    // Output checks off: they would list the tools after this first call.
    await client.callTool("query", { region: "eu-west" }, { validateOutput: false });
    const posts = endpoint.requests.filter((r) => r.method === "POST");
    expect(posts.map((r) => r.body?.method)).toEqual(["server/discover", "tools/call", "tools/list", "tools/call"]);
    const [first, retried] = posts.filter((r) => r.body?.method === "tools/call");
    expect(first!.headers["mcp-param-region"]).toBeUndefined(); // the tool's schema was not known yet
    expect(retried!.headers).toMatchObject({
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "query",
      "mcp-param-region": "eu-west",
      authorization: "Bearer t",
    });
    expect(posts.every((r) => r.headers["mcp-session-id"] === undefined)).toBe(true);
    expect(endpoint.count("GET")).toBe(0);
  });

  it.each([
    [401, "PROTOCOL"],
    [403, "PROTOCOL"],
    [503, "UNAVAILABLE"],
  ])("a %i is never taken as evidence of an era: no initialize follows", async (status, reason) => {
    endpoint = await startEndpoint((_request, res) => {
      res.writeHead(status, { "content-type": "application/json", "www-authenticate": "Bearer" }).end("{}");
      return true;
    });
    const error = await connect(endpoint.url, { timeoutMs: 10_000 }).then(
      () => undefined,
      (e: unknown) => e as McpTransportError,
    );
    expect(error).toBeInstanceOf(McpTransportError);
    expect(error!.reason).toBe(reason);
    expect(error!.httpStatus).toBe(status);
    expect(endpoint.count("initialize")).toBe(0);
  });

  it("a 400 without a modern error body means legacy: initialize follows", async () => {
    endpoint = await startEndpoint((request, res) => {
      if (request.body?.method !== "server/discover") return false;
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "Bad Request: Server not initialized" } }));
      return true;
    });
    await using client = await connect(endpoint.url);
    expect(client.era).toBe("legacy");
    expect(endpoint.count("initialize")).toBe(1);
  });

  it("cancelling a modern request closes its stream and sends no notifications/cancelled", async () => {
    endpoint = await startEndpoint((request, res) => {
      const body = request.body as { id?: unknown; method?: string } | undefined;
      if (body?.method === "server/discover") return reply(() => res.writeHead(200, { "content-type": "application/json" }).end(discover(body.id)));
      if (body?.method === "tools/call") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(": open\n\n");
        return true; // never answers
      }
      return false;
    });
    await using client = await connect(endpoint.url);
    const controller = new AbortController();
    const call = client.callTool("slow", {}, { signal: controller.signal });
    const served = endpoint;
    await expect.poll(() => served.count("tools/call")).toBe(1);
    controller.abort(new Error("enough"));
    await expect(call).rejects.toThrow("enough");
    await expect.poll(() => served.clientClosed).toBeGreaterThanOrEqual(1);
    // A notice would have been sent as the call was cancelled, before this later request (which
    // the endpoint refuses: a round trip is all it is for).
    await expect(client.listTools()).rejects.toThrow();
    expect(endpoint.count("tools/list")).toBe(1);
    expect(endpoint.count("notifications/cancelled")).toBe(0);
  });

  it("a broken reply stream is re-issued once with a new id", async () => {
    let breaks = 1;
    endpoint = await startEndpoint((request, res) => {
      const body = request.body as { id?: unknown; method?: string } | undefined;
      if (body?.method === "server/discover") return reply(() => res.writeHead(200, { "content-type": "application/json" }).end(discover(body.id)));
      if (body?.method === "tools/call") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        if (breaks-- > 0) res.end(": dropped before the answer\n\n");
        else res.end(`event: message\ndata: ${jsonRpcResult(body.id, { content: [{ type: "text", text: "second time" }] })}\n\n`);
        return true;
      }
      return false;
    });
    await using client = await connect(endpoint.url);
    expect((await client.callTool("x")).content).toEqual([{ type: "text", text: "second time" }]);
    const ids = endpoint.requests.filter((r) => r.body?.method === "tools/call").map((r) => r.body!.id);
    expect(ids).toHaveLength(2);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it("a reply stream that breaks again fails DISCONNECTED with kind stream_broken, after one re-issue", async () => {
    endpoint = await startEndpoint((request, res) => {
      const body = request.body as { id?: unknown; method?: string } | undefined;
      if (body?.method === "server/discover") return reply(() => res.writeHead(200, { "content-type": "application/json" }).end(discover(body.id)));
      if (body?.method === "tools/call") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(": dropped before the answer\n\n");
        return true;
      }
      return false;
    });
    await using client = await connect(endpoint.url);
    const error = await failure(client.callTool("x"));
    expect(error).toMatchObject({ reason: "DISCONNECTED", kind: "stream_broken", streamBroken: true });
    expect(endpoint.requests.filter((r) => r.body?.method === "tools/call")).toHaveLength(2);
  });
});

/**
 * A client pinned to the legacy era (`protocolVersion: "legacy"` or a legacy revision) against a
 * server of revision 2026-07-28 only. basic/versioning, compatibility matrix, Legacy client and
 * Modern server: "Fails ... Legacy clients have no fall-forward mechanism"; such a server answers
 * a method it does not implement with "404 Not Found and a JSON-RPC error with code -32601", which
 * "distinguishes this case from a 404 returned by a legacy HTTP+SSE server" (streamable-http,
 * "Protocol Version Header"). So no legacy HTTP+SSE stream is looked for, and the failure says
 * that the pin is the problem.
 */
describe("a client pinned to the legacy era, against a server of 2026-07-28 only", () => {
  let endpoint: ScriptedEndpoint | undefined;
  let modern: HttpFixture | undefined;
  afterEach(async () => {
    await endpoint?.close();
    endpoint = undefined;
    modern?.child.kill("SIGTERM");
    modern = undefined;
    forgetEras();
  });

  it("initialize answered 404 with -32601: fails saying the server is modern and the client pinned, with no GET for a legacy stream", async () => {
    // Every POST a method this server does not implement (it has no initialize); GET gets 405.
    endpoint = await startEndpoint((request, res) => {
      if (request.method !== "POST") return false;
      const id = (request.body as { id?: unknown } | undefined)?.id ?? null;
      return reply(() => res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } })));
    });
    const error = await failure(connect(endpoint.url, { protocolVersion: "legacy", timeoutMs: 10_000 }));
    expect(error).toMatchObject({ reason: "PROTOCOL", httpStatus: 404, code: -32601, method: "initialize" });
    expect(error.message).toContain("the server speaks only the modern protocol (revision 2026-07-28), which has no initialize");
    expect(error.message).toContain('this client is pinned to the legacy era (revision 2025-11-25) by protocolVersion "legacy": remove the pin');
    expect(error.message).not.toContain("Method not found"); // the server's text stays in serverMessage
    expect(endpoint.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /mcp"]);
  });

  it("the SDK v2 server (400, UnsupportedProtocolVersion): fails naming the pinned revision and the server's", async () => {
    modern = await startHttpFixture("test/fixtures/modern-server.ts", "http");
    const error = await failure(connect(modern.url, { protocolVersion: "2025-06-18", timeoutMs: 10_000 }));
    expect(error).toMatchObject({ reason: "PROTOCOL", httpStatus: 400, code: -32022 });
    expect(error.message).toContain(
      'the server speaks only the modern protocol (revision 2026-07-28), which has no initialize, and this client is pinned to revision 2025-06-18 by protocolVersion "2025-06-18"',
    );
  });

  it("unpinned, the same server is reached in the modern era", async () => {
    modern = await startHttpFixture("test/fixtures/modern-server.ts", "http");
    await using client = await connect(modern.url);
    expect(client.era).toBe("modern");
  });
});
