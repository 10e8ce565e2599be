/**
 * `request()` and `notify()` for an extension's methods, and the `meta` option of every call,
 * against real servers in both eras (test/fixtures/extension-server.ts: official SDK v1 for the
 * legacy era, v2 modern only for the modern one, over stdio and Streamable HTTP), and the typed
 * fields of listed tools, prompts and resources from @modelcontextprotocol/server-everything.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { connect, forgetEras } from "../../src/index.js";
import { failure, rejection } from "../helpers/failure.js";
import { startHttpFixture, type HttpFixture } from "../helpers/http-fixture.js";

const node = process.execPath;
const fixture = `"${node}" --import tsx test/fixtures/extension-server.ts`;

let http: HttpFixture | undefined;

beforeAll(async () => {
  http = await startHttpFixture("test/fixtures/extension-server.ts", "modern", "http");
});
afterAll(() => {
  http?.child.kill("SIGTERM");
});

const servers = [
  { name: "legacy (SDK v1), stdio", target: () => `${fixture} legacy`, era: "legacy" },
  { name: "modern (SDK v2), stdio", target: () => `${fixture} modern`, era: "modern" },
  { name: "modern (SDK v2), Streamable HTTP", target: () => http!.url, era: "modern" },
] as const;

const Echoed = z.object({ params: z.record(z.string(), z.unknown()), meta: z.record(z.string(), z.unknown()) });

describe.each(servers)("request() and notify(), $name", ({ target, era }) => {
  it("sends an extension's request the way the era sends typed calls and returns the raw result", async () => {
    forgetEras();
    await using client = await connect(target());
    expect(client.era).toBe(era);
    const params = { query: "rust", _meta: { "com.example/request": "r1" } };
    const result = await client.request("com.example/echo", params, { meta: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" } });
    expect(result.params).toMatchObject({
      query: "rust",
      _meta: { "com.example/request": "r1", traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
    });
    // The caller's objects are left as they were.
    expect(params).toEqual({ query: "rust", _meta: { "com.example/request": "r1" } });
    // The modern era's per-request fields travel with it (the server refuses a modern request without them).
    if (era === "modern") expect(result.envelope).toMatchObject({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" });
    else expect(result.envelope).toBeUndefined();
  });

  it("checks the result with a schema: a typed value, or PROTOCOL naming the method and the path", async () => {
    await using client = await connect(target());
    const slept = await client.request("com.example/sleep", { ms: 1 }, { schema: z.object({ slept: z.number() }) });
    expect(slept.slept).toBe(1);
    const error = await failure(client.request("com.example/sleep", { ms: 1 }, { schema: z.object({ slept: z.string() }) }));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain('request "com.example/sleep" returned a result that does not match the schema given to it at slept:');
  });

  it("keeps the call's deadline and abort signal, and the connection serves the next request", async () => {
    await using client = await connect(target());
    const timedOut = await failure(client.request("com.example/sleep", { ms: 30_000 }, { timeoutMs: 150 }));
    expect(timedOut.reason).toBe("TIMEOUT");
    expect(timedOut.message).toContain('request "com.example/sleep" timed out after 150 ms');

    const controller = new AbortController();
    const reason = new Error("the user left");
    setTimeout(() => controller.abort(reason), 50);
    expect(await rejection(client.request("com.example/sleep", { ms: 30_000 }, { signal: controller.signal }))).toBe(reason);

    expect(Echoed.parse(await client.request("com.example/echo")).params).not.toHaveProperty("query");
    expect(client.session.load).toEqual({ inFlight: 0, waiting: 0 });
  });

  it("notify() reaches the server's handler, meta included", async () => {
    await using client = await connect(target());
    await client.notify("notifications/com.example/note", { n: 1 }, { meta: { traceparent: "00-1-2-01" } });
    await client.notify("notifications/com.example/note");
    await expect
      .poll(async () => (await client.request("com.example/heard")).notes)
      .toEqual(expect.arrayContaining([{ n: 1, _meta: { traceparent: "00-1-2-01" } }]));
  });

  it("a typed call's meta reaches the server beside the progress token", async () => {
    await using client = await connect(target());
    const result = await client.callTool("meta", {}, { meta: { traceparent: "00-aa-bb-01", "com.example/tenant": "t1" } });
    const meta = JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;
    expect(meta).toMatchObject({ traceparent: "00-aa-bb-01", "com.example/tenant": "t1", progressToken: expect.any(Number) });
  });

  it("refuses what belongs to a typed call or to the protocol, before anything is sent", async () => {
    await using client = await connect(target());
    await expect(client.request("tools/call", { name: "meta" })).rejects.toThrow(TypeError);
    await expect(client.request("tools/call", { name: "meta" })).rejects.toThrow(/client\.request\("tools\/call"\) is refused: use client\.callTool/);
    await expect(client.request("initialize")).rejects.toThrow(/the handshake belongs to the client: connect\(\) runs it/);
    await expect(client.request("server/discover")).rejects.toThrow(/read client\.discovery/);
    await expect(client.notify("notifications/initialized")).rejects.toThrow(/connect\(\) sends it after initialize/);
    await expect(client.notify("notifications/cancelled", { requestId: 1 })).rejects.toThrow(/abort the request's options\.signal/);
    // A notification sent as a request would wait for an answer none gives; a request sent as a notification is never answered.
    await expect(client.request("notifications/com.example/note", { n: 1 })).rejects.toThrow(
      /client\.request\("notifications\/com\.example\/note"\) is refused: it names a notification, which has no answer; send it with client\.notify/,
    );
    await expect(client.request("notifications/initialized")).rejects.toThrow(TypeError);
    await expect(client.notify("tools/call", { name: "meta" })).rejects.toThrow(
      /client\.notify\("tools\/call"\) is refused: it names a request, which a notification never answers; use client\.callTool/,
    );
    await expect(client.callTool("meta", {}, { meta: { progressToken: "mine" } })).rejects.toThrow(
      /options\.meta may not set "progressToken": the protocol owns it/,
    );
    await expect(client.request("com.example/echo", {}, { meta: { "io.modelcontextprotocol/protocolVersion": "2025-06-18" } })).rejects.toThrow(
      /may not set "io\.modelcontextprotocol\/protocolVersion"/,
    );
    await expect(client.request("com.example/echo", { _meta: { progressToken: 7 } })).rejects.toThrow(/params\._meta may not set "progressToken"/);
    // Nothing of the above reached the server: it still has nothing to say about them.
    expect((await client.request("com.example/heard")).notes).not.toContainEqual({ requestId: 1 });
    expect(client.session.load).toEqual({ inFlight: 0, waiting: 0 });
  });

  it("params that are not JSON fail the call with a TypeError naming it; the slot is freed and the connection serves on", async () => {
    await using client = await connect(target(), { maxInFlight: 2 });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const notJson = /its params are not JSON \(they hold a BigInt, a circular reference, or a toJSON that throws\); pass plain JSON values/;
    // More failures than slots: a slot kept by a failed send would leave the next call waiting.
    for (let round = 0; round < 3; round++) {
      const bigint = (await rejection(client.request("com.example/echo", { n: 1n }))) as Error;
      expect(bigint).toBeInstanceOf(TypeError);
      expect(bigint.message).toMatch(/^request "com\.example\/echo" cannot be sent: /);
      expect(bigint.message).toMatch(notJson);
      await expect(client.callTool("meta", circular)).rejects.toThrow(/^callTool "meta" cannot be sent: its params are not JSON/);
      await expect(client.callTool("meta", {}, { meta: { "com.example/n": 1n } })).rejects.toThrow(TypeError);
      await expect(client.notify("notifications/com.example/note", { n: 1n })).rejects.toThrow(
        /^notification "notifications\/com\.example\/note" cannot be sent: its params are not JSON/,
      );
    }
    expect(client.session.load).toEqual({ inFlight: 0, waiting: 0 });
    await expect(client.request("com.example/echo", { n: 2 })).resolves.toMatchObject({ params: { n: 2 } });
  });
});

describe("typed fields of listed tools, prompts and resources", () => {
  it("server-everything (legacy era): a tool's title, annotations and execution; a prompt's title", async () => {
    const entry = "node_modules/@modelcontextprotocol/server-everything/dist/index.js";
    await using client = await connect(`"${node}" ${entry} stdio`);
    const tools = await client.listTools();
    const echo = tools.find((tool) => tool.name === "echo")!;
    expect(echo.title).toBe("Echo Tool");
    expect(echo.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    expect(echo.execution).toEqual({ taskSupport: "forbidden" });
    const research = tools.find((tool) => tool.name === "simulate-research-query")!;
    expect(research.execution?.taskSupport).toBe("required");
    expect(research.annotations?.readOnlyHint).toBe(false);
    expect((await client.listPrompts()).find((prompt) => prompt.name === "simple-prompt")?.title).toBe("Simple Prompt");
    const resources = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    expect(resources.every((resource) => typeof resource.uri === "string" && typeof resource.name === "string")).toBe(true);
  });

  it("a modern server (SDK v2): titles and icons on a tool, a prompt, a resource and a resource template", async () => {
    await using client = await connect(`${fixture} modern`);
    const icon = { src: "data:image/png;base64,iVBORw0KGgo=", mimeType: "image/png", sizes: ["48x48"], theme: "dark" };
    const decorated = (await client.listTools()).find((tool) => tool.name === "decorated")!;
    expect(decorated).toMatchObject({
      title: "Decorated Tool",
      annotations: { title: "Decorated", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      icons: [icon],
    });
    expect((await client.listPrompts())[0]).toMatchObject({ name: "greeting", title: "Greeting", icons: [icon] });
    expect((await client.listResources())[0]).toMatchObject({ uri: "demo://logo", title: "Logo", icons: [icon] });
    expect((await client.listResourceTemplates())[0]).toMatchObject({ uriTemplate: "demo://items/{id}", title: "Item", icons: [icon] });
  });
});
