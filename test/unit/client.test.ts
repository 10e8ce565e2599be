import { describe, expect, it } from "vitest";
import { McpClient, McpTransportError, RecordingTransport, TransportSession, connect } from "../../src/index.js";
import { failure } from "../helpers/failure.js";

const packageVersion = (await import("../../package.json", { with: { type: "json" } })).default.version;

const tool = (name: string) => ({ name, inputSchema: { type: "object" } });

describe("McpClient: the handshake", () => {
  it("sends clientInfo and the newest revision, then notifications/initialized", async () => {
    const transport = new RecordingTransport({});
    await using client = await connect(transport);
    expect(transport.sent[0]).toMatchObject({
      method: "initialize",
      params: { protocolVersion: "2025-11-25", clientInfo: { name: "mcpwire", version: packageVersion }, capabilities: {} },
    });
    expect(transport.sent[1]).toEqual({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.serverInfo).toEqual({ name: "recording", version: "0.0.0" });
    expect(client.transportKind).toBe("recording");
  });

  it("declares the capabilities that follow the handlers set, plus the user's own", async () => {
    const transport = new RecordingTransport({});
    await using _client = await connect(transport, {
      handlers: {
        sampling: () => ({ role: "assistant", content: { type: "text", text: "" }, model: "m" }),
        elicitation: () => ({ action: "decline" }),
        roots: [],
      },
      capabilities: { experimental: { x: {} }, elicitation: { url: {} } },
    });
    expect(transport.requests("initialize")[0]!.params!.capabilities).toEqual({
      sampling: {},
      elicitation: { form: {}, url: {} },
      roots: { listChanged: true },
      tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
      experimental: { x: {} },
    });
  });

  it("accepts an older revision the server answers with", async () => {
    const transport = new RecordingTransport({
      initialize: { protocolVersion: "2024-11-05", capabilities: {}, serverInfo: { name: "old", version: "1" } },
    });
    await using client = await connect(transport);
    expect(client.protocolVersion).toBe("2024-11-05");
  });

  it("fails with PROTOCOL and closes the connection when the server answers another revision", async () => {
    const transport = new RecordingTransport({
      initialize: { protocolVersion: "1999-01-01", capabilities: {}, serverInfo: { name: "odd", version: "1" } },
    });
    const client = new McpClient(new TransportSession(transport));
    const error = await failure(client.connect());
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain('"1999-01-01"');
    expect(error.message).toContain("2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05");
    expect(client.session.isOpen).toBe(false);
    expect(transport.notifications("notifications/initialized")).toEqual([]);
  });

  it("fails with PROTOCOL on an initialize result that is not one", async () => {
    const transport = new RecordingTransport({ initialize: { protocolVersion: "2025-11-25" } });
    const error = await failure(connect(transport));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toMatch(/does not match the MCP schema at (capabilities|serverInfo)/);
  });

  it("bounds the handshake by timeoutMs and closes what it opened", async () => {
    const transport = new RecordingTransport({ initialize: () => new Promise(() => {}) });
    const client = new McpClient(new TransportSession(transport, { timeoutMs: 80 }));
    const error = await failure(client.connect());
    expect(error.reason).toBe("TIMEOUT");
    expect(client.session.isOpen).toBe(false);
  });

  it("an aborted connect rejects with the signal's reason and closes what it opened", async () => {
    const transport = new RecordingTransport({ initialize: () => new Promise(() => {}) });
    const controller = new AbortController();
    const reason = new Error("user left");
    // However late this fires, the handshake is still waiting: initialize is never answered.
    setTimeout(() => controller.abort(reason), 20);
    await expect(connect(transport, { signal: controller.signal })).rejects.toBe(reason);
    expect(transport.notifications("notifications/initialized")).toEqual([]);
  });
});

describe("McpClient: typed methods", () => {
  it("follows nextCursor to the end, and has a one-page variant", async () => {
    const pages: Record<string, { tools: unknown[]; nextCursor?: string }> = {
      start: { tools: [tool("a")], nextCursor: "p2" },
      p2: { tools: [tool("b")], nextCursor: "p3" },
      p3: { tools: [tool("c")] },
    };
    const transport = new RecordingTransport({ "tools/list": (params) => pages[(params.cursor as string) ?? "start"]! });
    await using client = await connect(transport);
    expect((await client.listTools()).map((t) => t.name)).toEqual(["a", "b", "c"]);
    const page = await client.listToolsPage({ cursor: "p2" });
    expect(page.tools.map((t) => t.name)).toEqual(["b"]);
    expect(page.nextCursor).toBe("p3");
  });

  it("fails closed on a list that never ends or repeats a cursor", async () => {
    let n = 0;
    const endless = new RecordingTransport({ "tools/list": () => ({ tools: [tool(`t${n}`)], nextCursor: `c${n++}` }) });
    await using client = await connect(endless, { maxPages: 5 });
    const error = await failure(client.listTools());
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain("5 pages");
    expect(endless.requests("tools/list")).toHaveLength(5);

    const looping = new RecordingTransport({ "resources/list": { resources: [], nextCursor: "same" } });
    await using other = await connect(looping);
    expect((await failure(other.listResources())).reason).toBe("PROTOCOL");
    expect(looping.requests("resources/list")).toHaveLength(2);
  });

  it("an invalid result is PROTOCOL, never a half-typed object", async () => {
    const transport = new RecordingTransport({
      "tools/list": { tools: [{ description: "no name" }] },
      "tools/call": { content: [{ type: "text" }] },
    });
    await using client = await connect(transport);
    const listError = await failure(client.listTools());
    expect(listError.reason).toBe("PROTOCOL");
    expect(listError.message).toContain("tools.0.name");
    expect((await failure(client.callTool("x"))).message).toContain("content.0");
  });

  it("returns a tool's isError result as an answer, not an exception", async () => {
    const transport = new RecordingTransport({
      "tools/call": (params) => ({ content: [{ type: "text", text: `no such city: ${String((params.arguments as { city: string }).city)}` }], isError: true }),
    });
    await using client = await connect(transport);
    const result = await client.callTool("weather", { city: "Atlantis" });
    expect(result).toEqual({ content: [{ type: "text", text: "no such city: Atlantis" }], isError: true });
    expect(transport.requests("tools/call")[0]!.params).toEqual({ name: "weather", arguments: { city: "Atlantis" }, _meta: { progressToken: expect.any(Number) } });
  });

  it("sends each method with its parameters and validates each result", async () => {
    const transport = new RecordingTransport({
      "resources/list": { resources: [{ uri: "file:///a", name: "a" }] },
      "resources/templates/list": { resourceTemplates: [{ uriTemplate: "file:///{p}", name: "t" }] },
      "resources/read": { contents: [{ uri: "file:///a", text: "hello" }] },
      "resources/subscribe": {},
      "resources/unsubscribe": {},
      "prompts/list": { prompts: [{ name: "p", arguments: [{ name: "x", required: true }] }] },
      "prompts/get": { messages: [{ role: "user", content: { type: "text", text: "hi" } }] },
      "completion/complete": { completion: { values: ["one", "two"], hasMore: false } },
      "logging/setLevel": {},
      ping: {},
    });
    await using client = await connect(transport);
    expect((await client.listResources())[0]!.uri).toBe("file:///a");
    expect((await client.listResourceTemplates())[0]!.uriTemplate).toBe("file:///{p}");
    expect((await client.readResource("file:///a")).contents).toEqual([{ uri: "file:///a", text: "hello" }]);
    await client.subscribeResource("file:///a");
    await client.unsubscribeResource("file:///a");
    expect((await client.listPrompts())[0]!.name).toBe("p");
    expect((await client.getPrompt("p", { x: "1" })).messages).toHaveLength(1);
    expect((await client.complete({ type: "ref/prompt", name: "p" }, { name: "x", value: "o" })).completion.values).toEqual(["one", "two"]);
    await client.setLoggingLevel("warning");
    await client.ping();
    // Each request whose timeout restarts on progress carries its id as progress token (the default).
    const token = (id: unknown) => ({ _meta: { progressToken: id } });
    expect(transport.requests().map((r) => [r.method, r.params])).toEqual([
      ["initialize", expect.anything()],
      ["resources/list", token(2)],
      ["resources/templates/list", token(3)],
      ["resources/read", { uri: "file:///a", ...token(4) }],
      ["resources/subscribe", { uri: "file:///a", ...token(5) }],
      ["resources/unsubscribe", { uri: "file:///a", ...token(6) }],
      ["prompts/list", token(7)],
      ["prompts/get", { name: "p", arguments: { x: "1" }, ...token(8) }],
      ["completion/complete", { ref: { type: "ref/prompt", name: "p" }, argument: { name: "x", value: "o" }, ...token(9) }],
      ["logging/setLevel", { level: "warning", ...token(10) }],
      ["ping", undefined],
    ]);
  });

  it("a method nobody scripted fails with PROTOCOL", async () => {
    await using client = await connect(new RecordingTransport({}));
    const error = await failure(client.listTools());
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain('no answer for "tools/list"');
  });

  it("re-initializes once and retries once when the server forgot the session", async () => {
    let expired = 1;
    const transport = new RecordingTransport({
      "tools/list": () => {
        if (expired-- > 0) throw new McpTransportError("PROTOCOL", "session gone", { httpStatus: 404, sessionExpired: true });
        return { tools: [tool("fresh")] };
      },
    });
    await using client = await connect(transport);
    expect((await client.listTools()).map((t) => t.name)).toEqual(["fresh"]);
    expect(transport.requests("initialize")).toHaveLength(2);
    expect(transport.notifications("notifications/initialized")).toHaveLength(2);

    expired = 2;
    const error = await failure(client.listTools());
    expect(error.sessionExpired).toBe(true);
    expect(transport.requests("initialize")).toHaveLength(3);
  });
});

describe("McpClient: server-to-client requests and notifications", () => {
  it("fills elicitation defaults the handler omitted", async () => {
    const transport = new RecordingTransport({});
    await using _client = await connect(transport, {
      handlers: { elicitation: () => ({ action: "accept", content: { name: "Ada" } }) },
    });
    const answer = await transport.request("elicitation/create", {
      message: "Who?",
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", default: "anonymous" },
          level: { type: "integer", default: 3 },
          email: { type: "string" },
          subscribed: { type: "boolean", default: false },
        },
      },
    });
    expect(answer).toEqual({ action: "accept", content: { name: "Ada", level: 3, subscribed: false } });
  });

  it("does not invent content for a declined elicitation", async () => {
    const transport = new RecordingTransport({});
    await using _client = await connect(transport, { handlers: { elicitation: () => ({ action: "decline" }) } });
    const answer = await transport.request("elicitation/create", {
      message: "Who?",
      requestedSchema: { type: "object", properties: { name: { type: "string", default: "x" } } },
    });
    expect(answer).toEqual({ action: "decline" });
  });

  it("checks sampling parameters before the handler and its result after", async () => {
    const transport = new RecordingTransport({});
    let calls = 0;
    await using _client = await connect(transport, {
      handlers: {
        sampling: ({ params }) => {
          calls++;
          return { role: "assistant", content: { type: "text", text: `echo ${params.messages.length}` }, model: "test-model" };
        },
      },
    });
    await expect(transport.request("sampling/createMessage", { messages: "nope" })).rejects.toMatchObject({
      error: { code: -32602 },
    });
    expect(calls).toBe(0);
    const answer = await transport.request("sampling/createMessage", {
      messages: [{ role: "user", content: { type: "text", text: "hi" } }],
      maxTokens: 10,
    });
    expect(answer).toEqual({ role: "assistant", content: { type: "text", text: "echo 1" }, model: "test-model" });
  });

  it("answers roots from a function, and an unset handler with -32601", async () => {
    const transport = new RecordingTransport({});
    await using client = await connect(transport, { handlers: { roots: () => [{ uri: "file:///r" }] } });
    expect(await transport.request("roots/list")).toEqual({ roots: [{ uri: "file:///r" }] });
    await expect(transport.request("sampling/createMessage", {})).rejects.toMatchObject({ error: { code: -32601 } });
    await client.notifyRootsListChanged();
    expect(transport.notifications("notifications/roots/list_changed")).toHaveLength(1);
  });

  it("never sends a root whose uri is not a file:// URI (client/roots: it MUST be one)", async () => {
    const transport = new RecordingTransport({});
    let roots = [{ uri: "file:///work/project" }, { uri: "https://example.com/repo", name: "remote" }];
    await using client = await connect(transport, { handlers: { roots: () => roots } });
    await expect(transport.request("roots/list")).rejects.toMatchObject({
      error: { code: -32603, message: "The client's roots handler returned a root whose uri is not a file:// URI" },
    });
    roots = [{ uri: "/work/project" }];
    await expect(transport.request("roots/list")).rejects.toMatchObject({ error: { code: -32603 } });
    roots = [{ uri: "FILE:///work/project" }];
    expect(await transport.request("roots/list")).toEqual({ roots: [{ uri: "FILE:///work/project" }] });
    expect(client.session.load).toEqual({ inFlight: 0, waiting: 0 });
  });

  it("delivers list-changed, resource-updated and log notifications to their listeners", async () => {
    const transport = new RecordingTransport({});
    await using client = await connect(transport);
    const seen: unknown[] = [];
    client.onToolsListChanged(() => seen.push("tools"));
    client.onResourcesListChanged(() => seen.push("resources"));
    client.onPromptsListChanged(() => seen.push("prompts"));
    client.onResourceUpdated((u) => seen.push(u.uri));
    const stopLogs = client.onLoggingMessage((entry) => seen.push(`${entry.level}:${String(entry.data)}`));
    transport.notify("notifications/tools/list_changed");
    transport.notify("notifications/resources/list_changed");
    transport.notify("notifications/prompts/list_changed");
    transport.notify("notifications/resources/updated", { uri: "file:///x" });
    transport.notify("notifications/resources/updated", { notAUri: 1 });
    transport.notify("notifications/message", { level: "error", data: "disk full" });
    await expect.poll(() => seen, { timeout: 5_000 }).toEqual(["tools", "resources", "prompts", "file:///x", "error:disk full"]);
    stopLogs();
    transport.notify("notifications/message", { level: "error", data: "again" });
    // Notices arrive in order: once this later one is heard, the log notice before it was routed.
    transport.notify("notifications/tools/list_changed");
    await expect.poll(() => seen, { timeout: 5_000 }).toEqual(["tools", "resources", "prompts", "file:///x", "error:disk full", "tools"]);
  });
});

describe("connect()", () => {
  it("refuses a target it cannot read, with a message that says what it takes", async () => {
    await expect(connect(42 as never)).rejects.toThrow(/cannot tell how to reach a number/);
  });

  it("client.close() and await using release the connection", async () => {
    const transport = new RecordingTransport({});
    let client: McpClient;
    {
      await using scoped = await connect(transport);
      client = scoped;
      expect(client.session.isOpen).toBe(true);
    }
    expect(client.session.isOpen).toBe(false);
    expect((await client.ended).error).toBeUndefined();
  });
});
