import { readFileSync } from "node:fs";
import { transform } from "esbuild";
import { describe, expect, it } from "vitest";
import type { McpTransportError} from "../../src/index.js";
import { RecordingTransport, connect } from "../../src/index.js";

describe("RecordingTransport", () => {
  it("answers from values, functions of the params and scripted errors, and records every message", async () => {
    const transport = new RecordingTransport({
      "tools/list": { tools: [] },
      "tools/call": (params) => ({ content: [{ type: "text", text: String((params.arguments as { q: string }).q) }] }),
      "prompts/get": RecordingTransport.error(-32602, "unknown prompt", { name: "p" }),
    });
    await using client = await connect(transport);
    expect(await client.listTools()).toEqual([]);
    expect((await client.callTool("search", { q: "dune" })).content).toEqual([{ type: "text", text: "dune" }]);
    const error = await client.getPrompt("p").catch((e: unknown) => e as McpTransportError);
    expect(error).toMatchObject({ reason: "PROTOCOL", code: -32602, serverMessage: "unknown prompt", serverData: { name: "p" } });
    expect(transport.sent.map((m) => ("method" in m ? m.method : "response"))).toEqual([
      "initialize",
      "notifications/initialized",
      "tools/list",
      "tools/call",
      "prompts/get",
    ]);
  });

  it("copies what it records: a mutation after send changes nothing", async () => {
    const transport = new RecordingTransport({ "tools/list": { tools: [] }, "tools/call": { content: [] } });
    await using client = await connect(transport);
    const args = { list: [1] };
    await client.callTool("t", args);
    args.list.push(2);
    expect(transport.requests("tools/call")[0]!.params).toMatchObject({ name: "t", arguments: { list: [1] } });
  });

  it("derives the capabilities of its built-in initialize answer from the script", async () => {
    const transport = new RecordingTransport({ "tools/list": { tools: [] }, "resources/subscribe": {}, "logging/setLevel": {} });
    await using client = await connect(transport);
    expect(client.serverCapabilities).toEqual({ tools: {}, resources: { subscribe: true }, logging: {} });
  });

  it("pushes notifications and server requests, and plays a disconnect", async () => {
    const transport = new RecordingTransport({ "tools/call": () => new Promise(() => {}) });
    await using client = await connect(transport, { handlers: { roots: [{ uri: "file:///w" }] } });
    expect(await transport.request("roots/list")).toEqual({ roots: [{ uri: "file:///w" }] });
    const pending = client.callTool("hang");
    // The disconnect must catch the call on the wire, not before it was sent.
    await expect.poll(() => transport.requests("tools/call"), { timeout: 5_000 }).toHaveLength(1);
    transport.disconnect();
    await expect(pending).rejects.toMatchObject({ reason: "DISCONNECTED" });
  });

  it("keeps the byte ceiling and the read-stall ceiling like a wire", async () => {
    const transport = new RecordingTransport({
      "tools/call": { content: [{ type: "text", text: "z".repeat(5_000) }] },
      "tools/list": () => new Promise(() => {}),
    });
    await using client = await connect(transport, { maxMessageBytes: 4_096, readTimeoutMs: 50 });
    await expect(client.callTool("big")).rejects.toMatchObject({ reason: "LIMIT" });

    const stalled = new RecordingTransport({ "tools/list": () => new Promise(() => {}) });
    await using other = await connect(stalled, { readTimeoutMs: 50 });
    await expect(other.listTools()).rejects.toMatchObject({ reason: "TIMEOUT", timeoutMs: 50 });
  });

  it("runs the README's example as written (In memory and scripted)", async () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const section = readme.slice(readme.indexOf("### In memory and scripted"));
    const example = /```ts\n([\s\S]*?)```/.exec(section)![1]!.replace(/^import .*\n/m, "");
    // As a user's TypeScript would run it: types stripped, `await using` lowered for Node 20.
    const { code } = await transform(example, { loader: "ts", target: "node20" });
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<void>;
    await new AsyncFunction("connect", "RecordingTransport", "expect", code)(connect, RecordingTransport, expect);
  });
});
