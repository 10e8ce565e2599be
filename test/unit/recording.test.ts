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
});
