/** `request()`, `notify()` and the `meta` option on a scripted server; the typed fields of listed tools. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { RecordingTransport, connect, type StandardSchemaV1 } from "../../src/index.js";
import { failure } from "../helpers/failure.js";

const tool = (extra: Record<string, unknown>) => ({ name: "t", inputSchema: { type: "object" }, ...extra });

describe("request() and notify()", () => {
  it("wait for a reconnection under way, then go on the new connection", async () => {
    const transport = new RecordingTransport({ "com.example/echo": (params) => ({ got: params.n }) });
    await using client = await connect(transport, { reconnect: { initialDelayMs: 10 } });
    transport.disconnect();
    await client.notify("notifications/com.example/note", { n: 2 });
    await expect(client.request("com.example/echo", { n: 1 })).resolves.toEqual({ got: 1 });
    expect(transport.requests("initialize")).toHaveLength(2);
    expect(transport.notifications("notifications/com.example/note")[0]!.params).toEqual({ n: 2 });
  });

  it("modern era: a notification carries the era's _meta fields, as requests do", async () => {
    const transport = new RecordingTransport({ "com.example/echo": {} }, { era: "modern" });
    await using client = await connect(transport);
    await client.request("com.example/echo", { n: 1 }, { meta: { traceparent: "00-a-b-01" } });
    await client.notify("notifications/com.example/note", { n: 2 });
    const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": expect.any(Object) };
    expect(transport.requests("com.example/echo")[0]!.params).toMatchObject({ n: 1, _meta: { traceparent: "00-a-b-01", ...envelope } });
    expect(transport.notifications("notifications/com.example/note")[0]!.params).toMatchObject({ n: 2, _meta: envelope });
  });

  it("takes any Standard Schema, synchronous or not, and refuses an object that is not one", async () => {
    const transport = new RecordingTransport({ "com.example/count": { count: 3 } });
    await using client = await connect(transport);
    const positive: StandardSchemaV1<unknown, number> = {
      "~standard": {
        version: 1,
        vendor: "test",
        validate: async (value) => {
          const count = (value as { count?: unknown }).count;
          return typeof count === "number" && count > 0 ? { value: count } : { issues: [{ message: "not a positive count", path: [{ key: "count" }] }] };
        },
      },
    };
    await expect(client.request("com.example/count", undefined, { schema: positive })).resolves.toBe(3);
    const zodFailure = await failure(client.request("com.example/count", undefined, { schema: z.object({ count: z.string() }) }));
    expect(zodFailure.message).toMatch(/^request "com.example\/count" returned a result that does not match the schema given to it at count: /);
    const strict: StandardSchemaV1<unknown, number> = { "~standard": { ...positive["~standard"], validate: () => ({ issues: [{ message: "never", path: [{ key: "count" }] }] }) } };
    expect((await failure(client.request("com.example/count", undefined, { schema: strict }))).message).toContain("at count: never");
    await expect(client.request("com.example/count", undefined, { schema: { parse: () => 1 } as never })).rejects.toThrow(
      /options\.schema must be a Standard Schema/,
    );
  });

  it("refuses a method that is not a non-empty string and params that are not an object", async () => {
    const transport = new RecordingTransport({});
    await using client = await connect(transport);
    await expect(client.request("")).rejects.toThrow(/the method must be a non-empty string/);
    await expect(client.request("com.example/x", [1] as never)).rejects.toThrow(/params must be an object or undefined/);
    await expect(client.notify(42 as never)).rejects.toThrow(TypeError);
    await expect(client.request("sampling/createMessage")).rejects.toThrow(/the server sends it to the client; answer it with options\.handlers\.sampling/);
    await expect(client.notify("notifications/roots/list_changed")).rejects.toThrow(/use client\.notifyRootsListChanged\(\)/);
    expect(transport.sent.map((message) => ("method" in message ? message.method : "response"))).toEqual(["initialize", "notifications/initialized"]);
  });
});

describe("the meta option", () => {
  it("is merged into every page of a list, leaving the caller's objects as they were", async () => {
    const pages: Record<string, { tools: unknown[]; nextCursor?: string }> = { start: { tools: [tool({})], nextCursor: "p2" }, p2: { tools: [tool({})] } };
    const transport = new RecordingTransport({ "tools/list": (params) => pages[(params.cursor as string) ?? "start"]! });
    await using client = await connect(transport);
    const meta = { traceparent: "00-a-b-01" };
    await client.listTools({ meta });
    expect(transport.requests("tools/list").map((request) => request.params?._meta)).toEqual([
      { traceparent: "00-a-b-01", progressToken: expect.any(Number) },
      { traceparent: "00-a-b-01", progressToken: expect.any(Number) },
    ]);
    expect(meta).toEqual({ traceparent: "00-a-b-01" });
  });

  it("refuses keys under every prefix MCP reserves, and takes the others", async () => {
    const transport = new RecordingTransport({ "com.example/echo": {} });
    await using client = await connect(transport);
    for (const key of ["progressToken", "io.modelcontextprotocol/related-task", "dev.mcp/x", "org.modelcontextprotocol.api/x", "IO.MCP/x"]) {
      await expect(client.request("com.example/echo", {}, { meta: { [key]: 1 } }), key).rejects.toThrow(TypeError);
    }
    await expect(client.ping({ meta: "trace" as never })).rejects.toThrow(/options\.meta must be an object of _meta entries/);
    await client.request("com.example/echo", {}, { meta: { "com.example.mcp/x": 1, traceparent: "t", tracestate: "s", baggage: "b" } });
    expect(transport.requests("com.example/echo")).toHaveLength(1);
  });
});

describe("typed fields of listed tools", () => {
  it("types annotations, icons, title and execution, and keeps fields it does not know", async () => {
    const listed = tool({
      title: "T",
      annotations: { title: "A", readOnlyHint: true, "x-vendor-hint": 1 },
      icons: [{ src: "https://example.com/t.png", sizes: ["any"], theme: "light", "x-extra": true }],
      execution: { taskSupport: "optional", "x-extra": "kept" },
      "x-tool": "kept",
    });
    const transport = new RecordingTransport({ "tools/list": { tools: [listed] } });
    await using client = await connect(transport);
    const [parsed] = await client.listTools();
    expect(parsed).toEqual(listed);
    expect(parsed!.execution?.taskSupport).toBe("optional");
  });

  it("fails with PROTOCOL at the field that does not match the specification", async () => {
    const transport = new RecordingTransport({ "tools/list": { tools: [tool({ execution: { taskSupport: "sometimes" } })] } });
    await using client = await connect(transport);
    expect((await failure(client.listTools())).message).toContain("does not match the MCP schema at tools.0.execution.taskSupport");
    const icons = new RecordingTransport({ "prompts/list": { prompts: [{ name: "p", icons: [{ mimeType: "image/png" }] }] } });
    await using other = await connect(icons);
    expect((await failure(other.listPrompts())).message).toContain("at prompts.0.icons.0.src");
  });
});
