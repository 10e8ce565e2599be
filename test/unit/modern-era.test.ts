import { describe, expect, it } from "vitest";
import { McpTransportError, RecordingTransport, connect } from "../../src/index.js";
import { encodeHeaderValue, headerParamsOf, modernHeaders } from "../../src/client/modern-headers.js";
import { failure } from "../helpers/failure.js";

const tool = (name: string, properties: Record<string, unknown> = {}) => ({ name, inputSchema: { type: "object", properties } });
const meta = (message: { params?: Record<string, unknown> }) => message.params?._meta as Record<string, unknown>;

describe("the modern era (2026-07-28)", () => {
  it("sends no handshake and carries revision, capabilities and identity in every request's _meta", async () => {
    const transport = new RecordingTransport({ "tools/list": { tools: [tool("a")], ttlMs: 0 } }, { era: "modern" });
    await using client = await connect(transport, { clientInfo: { name: "agent", version: "2.0.0" }, handlers: { roots: [] } });
    expect(client.era).toBe("modern");
    expect(client.protocolVersion).toBe("2026-07-28");
    expect(client.serverInfo).toEqual({ name: "recording", version: "0.0.0" });
    expect(client.discovery?.supportedVersions).toEqual(["2026-07-28"]);
    await client.listTools();
    await client.setLoggingLevel("warning");
    await client.listTools();
    expect(transport.sent.map((m) => ("method" in m ? m.method : "?"))).toEqual(["server/discover", "tools/list", "tools/list"]);
    const [discover, first, second] = transport.requests();
    expect(meta(discover!)).toEqual({
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      // The tasks extension is declared too: callTool follows a task whenever the server answers with one.
      "io.modelcontextprotocol/clientCapabilities": { roots: { listChanged: true }, extensions: { "io.modelcontextprotocol/tasks": {} } },
      "io.modelcontextprotocol/clientInfo": { name: "agent", version: "2.0.0" },
    });
    expect(meta(first!)["io.modelcontextprotocol/logLevel"]).toBeUndefined();
    expect(meta(second!)["io.modelcontextprotocol/logLevel"]).toBe("warning");
  });

  it("fails methods the era lacks locally, before anything reaches the wire", async () => {
    const transport = new RecordingTransport({}, { era: "modern" });
    await using client = await connect(transport);
    const before = transport.sent.length;
    expect((await failure(client.ping())).message).toContain("ping does not exist in protocol revision 2026-07-28");
    expect((await failure(client.subscribeResource("file:///a"))).message).toContain("subscriptions/listen");
    await expect(client.notifyRootsListChanged()).rejects.toThrow(/does not exist in protocol revision 2026-07-28/);
    expect(transport.sent.length).toBe(before);
  });

  it("answers input_required rounds through the handlers, echoing requestState, with a new id each round", async () => {
    let round = 0;
    const transport = new RecordingTransport(
      {
        "tools/list": { tools: [] },
        "tools/call": (params) => {
          round++;
          if (round === 1) {
            return {
              resultType: "input_required",
              inputRequests: { who: { method: "elicitation/create", params: { message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" }, team: { type: "string", default: "ops" } } } } } },
              requestState: "state-1",
            };
          }
          if (round === 2) {
            expect(params.requestState).toBe("state-1");
            expect(params.inputResponses).toEqual({ who: { action: "accept", content: { name: "Ada", team: "ops" } } });
            return { resultType: "input_required", inputRequests: { where: { method: "roots/list" } }, requestState: "state-2" };
          }
          expect(params.requestState).toBe("state-2");
          expect(params.inputResponses).toEqual({ where: { roots: [{ uri: "file:///w" }] } });
          return { resultType: "complete", content: [{ type: "text", text: "done" }] };
        },
      },
      { era: "modern" },
    );
    await using client = await connect(transport, {
      handlers: { elicitation: () => ({ action: "accept", content: { name: "Ada" } }), roots: [{ uri: "file:///w" }] },
    });
    const result = await client.callTool("deploy", { env: "prod" });
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    const calls = transport.requests("tools/call");
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.id)).size).toBe(3);
    expect(calls.every((c) => (c.params!.arguments as { env: string }).env === "prod")).toBe(true);
    expect(calls[0]!.params!.requestState).toBeUndefined();
  });

  it("bounds the input rounds, refuses input_required where the spec forbids it, and needs a handler", async () => {
    const asking = { resultType: "input_required", requestState: "again" };
    const transport = new RecordingTransport({ "tools/call": asking, "tools/list": asking }, { era: "modern" });
    await using client = await connect(transport, { maxInputRounds: 3 });
    const bounded = await failure(client.callTool("loop"));
    expect(bounded.message).toContain("after 3 rounds (maxInputRounds)");
    expect(transport.requests("tools/call")).toHaveLength(3);
    expect((await failure(client.listTools())).message).toContain("the server asked for input on tools/list, which may not do so");

    const needsSampling = new RecordingTransport(
      { "tools/call": { resultType: "input_required", inputRequests: { q: { method: "sampling/createMessage", params: {} } } } },
      { era: "modern" },
    );
    await using other = await connect(needsSampling);
    expect((await failure(other.callTool("x"))).message).toContain("asked for sampling/createMessage, which this client did not declare");
  });

  it("after a header mismatch, lists the tools again and retries once", async () => {
    let mismatches = 1;
    const transport = new RecordingTransport(
      {
        "tools/list": { tools: [tool("query", { region: { type: "string", "x-mcp-header": "Region" } })] },
        "tools/call": () => {
          if (mismatches-- > 0) throw new McpTransportError("PROTOCOL", "mismatch", { code: -32020, httpStatus: 400 });
          return { content: [] };
        },
      },
      { era: "modern" },
    );
    await using client = await connect(transport);
    // Output checks off: their own listing of the tools would come after the call.
    await client.callTool("query", { region: "eu" }, { validateOutput: false });
    expect(transport.sent.map((m) => ("method" in m ? m.method : "?"))).toEqual(["server/discover", "tools/call", "tools/list", "tools/call"]);

    mismatches = 2;
    expect((await failure(client.callTool("query", { region: "eu" }))).code).toBe(-32020);
  });

  it("reports the capabilities a server requires (-32021) in a clear error", async () => {
    const transport = new RecordingTransport(
      {
        "tools/call": () => {
          throw new McpTransportError("PROTOCOL", "x", { code: -32021, serverData: { requiredCapabilities: { elicitation: {} } } });
        },
      },
      { era: "modern" },
    );
    await using client = await connect(transport);
    const error = await failure(client.callTool("x"));
    expect(error.message).toContain("needs client capabilities this client did not declare (elicitation)");
  });

  it("re-issues a request once, with a new id, when its response stream broke", async () => {
    let breaks = 1;
    const transport = new RecordingTransport(
      {
        "tools/list": { tools: [] },
        "tools/call": () => {
          if (breaks-- > 0) throw new McpTransportError("DISCONNECTED", "stream broke", { streamBroken: true });
          return { content: [{ type: "text", text: "second time" }] };
        },
      },
      { era: "modern" },
    );
    await using client = await connect(transport);
    expect((await client.callTool("x")).content).toEqual([{ type: "text", text: "second time" }]);
    const ids = transport.requests("tools/call").map((c) => c.id);
    expect(ids).toHaveLength(2);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it("serves list and discover results again until their ttlMs expires or the list changes", async () => {
    const transport = new RecordingTransport(
      { "tools/list": { tools: [tool("a")], ttlMs: 60_000, cacheScope: "private" }, "prompts/list": { prompts: [], ttlMs: 0 } },
      { era: "modern" },
    );
    await using client = await connect(transport);
    await client.listTools();
    await client.listTools();
    await client.listPrompts();
    await client.listPrompts();
    expect(transport.requests("tools/list")).toHaveLength(1);
    expect(transport.requests("prompts/list")).toHaveLength(2);
    // Once a listener of ours hears the change, the client's own, which drops the cached list, has run.
    const heard = new Promise<void>((resolve) => client.onToolsListChanged(() => resolve()));
    transport.notify("notifications/tools/list_changed");
    await heard;
    await client.listTools();
    expect(transport.requests("tools/list")).toHaveLength(2);
  });

  it("shares public results between clients of the same server, never private ones", async () => {
    const script = (scope: string) => ({ "resources/list": { resources: [], ttlMs: 60_000, cacheScope: scope } });
    const first = new RecordingTransport(script("public"), { era: "modern" });
    const second = new RecordingTransport(script("public"), { era: "modern" });
    await using a = await connect(first);
    await using b = await connect(second);
    await a.listResources();
    await b.listResources();
    expect(first.requests("resources/list")).toHaveLength(1);
    expect(second.requests("resources/list")).toHaveLength(0);

    const privateA = new RecordingTransport({ "prompts/list": { prompts: [], ttlMs: 60_000, cacheScope: "private" } }, { era: "modern" });
    const privateB = new RecordingTransport({ "prompts/list": { prompts: [], ttlMs: 60_000, cacheScope: "private" } }, { era: "modern" });
    await using c = await connect(privateA);
    await using d = await connect(privateB);
    await c.listPrompts();
    await d.listPrompts();
    expect(privateB.requests("prompts/list")).toHaveLength(1);
  });
});

describe("tool output by revision (server/tools, \"Structured Content\" and \"Output Schema\")", () => {
  // 2026-07-28: "This can be any JSON value (object, array, string, number, boolean, or null) that
  // conforms to the tool's outputSchema"; 2025-11-25: an outputSchema is `type: "object"`.
  const users = {
    ...tool("list_users"),
    outputSchema: { type: "array", items: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
  };
  const answer = (structuredContent: unknown) => ({ content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent });

  it("2026-07-28: lists a tool whose outputSchema is an array's, and checks its array structuredContent", async () => {
    let structured: unknown = [{ id: "1" }, { id: "2" }];
    const transport = new RecordingTransport({ "tools/list": { tools: [users, tool("plain")] }, "tools/call": () => answer(structured) }, { era: "modern" });
    await using client = await connect(transport);
    expect((await client.listTools()).map((listed) => listed.outputSchema)).toEqual([users.outputSchema, undefined]);
    expect((await client.callTool("list_users")).structuredContent).toEqual([{ id: "1" }, { id: "2" }]);

    structured = [{ id: "1" }, { name: "no id" }];
    const mismatch = await failure(client.callTool("list_users"));
    expect(mismatch).toMatchObject({ reason: "PROTOCOL", kind: "output_schema" });
    expect(mismatch.message).toContain("at /1 (keyword required)");

    structured = "a string";
    expect((await failure(client.callTool("list_users"))).message).toContain("at the root of structuredContent (keyword type)");
    // Unchecked, any JSON value is a result: a string, null.
    expect((await client.callTool("list_users", {}, { validateOutput: false })).structuredContent).toBe("a string");
    structured = null;
    expect((await client.callTool("plain")).structuredContent).toBeNull();
  });

  it("2025-11-25: a tool whose outputSchema is not an object's fails the listing, and an array structuredContent the call", async () => {
    const transport = new RecordingTransport({ "tools/list": { tools: [users] }, "tools/call": answer([{ id: "1" }]) });
    await using client = await connect(transport);
    expect(client.era).toBe("legacy");
    const listing = await failure(client.listTools());
    expect(listing.reason).toBe("PROTOCOL");
    expect(listing.message).toContain("at tools.0.outputSchema.type");
    const call = await failure(client.callTool("list_users", {}, { validateOutput: false }));
    expect(call.reason).toBe("PROTOCOL");
    expect(call.message).toContain("at structuredContent: expected object");
  });

  it("sampling's tools follow the same rule: any outputSchema in a 2026-07-28 input request, -32602 in 2025-11-25", async () => {
    const params = { messages: [{ role: "user", content: { type: "text", text: "who?" } }], maxTokens: 10, tools: [users] };
    const offered: unknown[] = [];
    const sampling = {
      tools: true,
      createMessage: ({ params: asked }: { params: { tools?: unknown[] } }) => {
        offered.push(asked.tools);
        return { role: "assistant" as const, content: { type: "text" as const, text: "Ada" }, model: "m" };
      },
    };
    let round = 0;
    const modern = new RecordingTransport(
      {
        "tools/call": (callParams) => {
          if (round++ === 0) return { resultType: "input_required", inputRequests: { ask: { method: "sampling/createMessage", params } } };
          expect((callParams.inputResponses as { ask: { model: string } }).ask.model).toBe("m");
          return { content: [] };
        },
      },
      { era: "modern" },
    );
    await using client = await connect(modern, { handlers: { sampling } });
    await client.callTool("who", {}, { validateOutput: false });
    expect(offered).toEqual([[users]]);

    const legacy = new RecordingTransport({});
    await using _legacyClient = await connect(legacy, { handlers: { sampling } });
    await expect(legacy.request("sampling/createMessage", params)).rejects.toMatchObject({ error: { code: -32602 } });
    expect(offered).toHaveLength(1);
  });
});

describe("the modern era's -32022 (unsupported protocol version)", () => {
  const unsupported = (supported: string[]) => RecordingTransport.error(-32022, "Unsupported protocol version", { supported, requested: "2026-07-28" });

  it("retries once with the newest revision both sides name, even the one just sent (conformance request-metadata)", async () => {
    let calls = 0;
    const transport = new RecordingTransport(
      { "tools/list": () => (++calls === 1 ? unsupported(["2026-07-28"]) : { tools: [tool("a")], ttlMs: 0 }) },
      { era: "modern" },
    );
    await using client = await connect(transport);
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["a"]);
    const lists = transport.requests("tools/list");
    expect(lists).toHaveLength(2);
    expect(meta(lists[1]!)["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
    expect(client.protocolVersion).toBe("2026-07-28");
  });

  it("fails rather than loops on a second -32022 for the same request, saying what each side speaks", async () => {
    const transport = new RecordingTransport({ "tools/list": () => unsupported(["2026-07-28", "2025-11-25"]) }, { era: "modern" });
    await using client = await connect(transport);
    const error = await failure(client.listTools());
    expect(error).toMatchObject({ reason: "PROTOCOL", code: -32022 });
    expect(transport.requests("tools/list")).toHaveLength(2);
    expect(error.message).toContain("refused protocol revision 2026-07-28 again after naming it as supported");
    expect(error.message).toContain("it offers 2026-07-28, 2025-11-25");
    expect(error.message).toContain("mcpwire speaks 2026-07-28");
    expect(error.message).not.toContain("speaks none");
  });

  it("fails at once, with both sides' revisions, when they share none", async () => {
    const transport = new RecordingTransport({ "tools/list": () => unsupported(["2099-01-01"]) }, { era: "modern" });
    await using client = await connect(transport);
    const error = await failure(client.listTools());
    expect(error).toMatchObject({ reason: "PROTOCOL", code: -32022 });
    expect(transport.requests("tools/list")).toHaveLength(1);
    expect(error.message).toContain("the server speaks none of mcpwire's modern revisions (2026-07-28); it offers 2099-01-01");
  });
});

describe("modern request headers", () => {
  it("mirrors method, name and annotated arguments, Base64 for values that are not header-safe", () => {
    const params = headerParamsOf({
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        limits: { type: "object", properties: { rows: { type: "integer", "x-mcp-header": "Rows" } } },
        dry: { type: "boolean", "x-mcp-header": "Dry" },
      },
    });
    expect(params).toEqual([
      { name: "Region", path: ["region"] },
      { name: "Rows", path: ["limits", "rows"] },
      { name: "Dry", path: ["dry"] },
    ]);
    expect(modernHeaders("tools/call", { name: "exécuter", arguments: { region: "Hello, 世界", limits: { rows: 42 }, dry: false } }, params as never)).toEqual({
      "Mcp-Method": "tools/call",
      "Mcp-Name": "=?base64?ZXjDqWN1dGVy?=",
      "Mcp-Param-Region": "=?base64?SGVsbG8sIOS4lueVjA==?=",
      "Mcp-Param-Rows": "42",
      "Mcp-Param-Dry": "false",
    });
    expect(modernHeaders("resources/read", { uri: "file:///a" }, undefined)).toEqual({ "Mcp-Method": "resources/read", "Mcp-Name": "file:///a" });
    expect(modernHeaders("tools/list", undefined, undefined)).toEqual({ "Mcp-Method": "tools/list" });
  });

  it("encodes the specification's examples", () => {
    expect(encodeHeaderValue("us-west1")).toBe("us-west1");
    expect(encodeHeaderValue(" padded ")).toBe("=?base64?IHBhZGRlZCA=?=");
    expect(encodeHeaderValue("line1\nline2")).toBe("=?base64?bGluZTEKbGluZTI=?=");
    expect(encodeHeaderValue("=?base64?literal?=")).toBe("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
    expect(encodeHeaderValue("us west 1")).toBe("us west 1");
  });

  it("encodes a value with a tab anywhere, a control character, as Base64", () => {
    expect(encodeHeaderValue("a\tb")).toBe("=?base64?YQli?=");
    expect(encodeHeaderValue("\tindented")).toBe("=?base64?CWluZGVudGVk?=");
  });

  it("follows a chain of properties keys whatever type sits beside them", () => {
    const schema = { type: "object", properties: { limits: { properties: { rows: { type: "integer", "x-mcp-header": "Rows" } } } } };
    expect(headerParamsOf(schema)).toEqual([{ name: "Rows", path: ["limits", "rows"] }]);
  });

  it("rejects annotations the specification forbids", () => {
    expect(headerParamsOf({ type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } })).toMatchObject({ invalid: expect.stringContaining("not a string, integer or boolean") });
    expect(headerParamsOf({ type: "object", properties: { a: { type: "string", "x-mcp-header": "X" }, b: { type: "string", "x-mcp-header": "x" } } })).toMatchObject({ invalid: expect.stringContaining("used twice") });
    expect(headerParamsOf({ type: "object", properties: { a: { type: "array", items: { type: "string", "x-mcp-header": "A" } } } })).toMatchObject({ invalid: expect.stringContaining("not reachable") });
    expect(headerParamsOf({ type: "object", properties: { a: { type: "string", "x-mcp-header": "bad name" } } })).toMatchObject({ invalid: expect.stringContaining("not an HTTP token") });
  });
});
