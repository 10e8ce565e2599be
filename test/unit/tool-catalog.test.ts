/**
 * The tool list a call lists on demand (tool-catalog.ts, and McpClient's use of it), against
 * scripted servers (RecordingTransport): what a failed listing leaves behind. The list decides
 * the output check (server/tools, "Output Schema": clients SHOULD validate structuredContent) and
 * the task a tool requires (2025-11-25 basic/utilities/tasks: "If `execution.taskSupport` is
 * `required`, clients MUST invoke the tool as a task"), so only a server that has no `tools/list`
 * is taken to have no tools; any other failure fails the call and is not remembered.
 */
import { describe, expect, it } from "vitest";
import { McpTransportError, RecordingTransport, connect } from "../../src/index.js";
import { failure } from "../helpers/failure.js";

const weather = {
  name: "weather",
  inputSchema: { type: "object" },
  outputSchema: { type: "object", properties: { temperature: { type: "number" } }, required: ["temperature"] },
};
const STAMP = { createdAt: "2025-11-25T10:00:00Z", lastUpdatedAt: "2025-11-25T10:00:00Z", ttl: 60_000, pollInterval: 10 };

/** tools/list answered by `first` once, then with `tools`. */
function listingThatFailsOnce(first: unknown, tools: unknown[]) {
  let lists = 0;
  return () => (++lists === 1 ? first : { tools });
}

describe("the on-demand tool listing", () => {
  it("a listing that fails with -32603 fails the call (kind server_error), and the next call lists again and checks the output", async () => {
    const transport = new RecordingTransport({
      "tools/list": listingThatFailsOnce(RecordingTransport.error(-32603, "backend busy"), [weather]),
      "tools/call": { content: [{ type: "text", text: "hot" }], structuredContent: { temperature: "hot" } },
    } as never);
    await using client = await connect(transport);
    const first = await failure(client.callTool("weather"));
    expect(first).toMatchObject({ reason: "PROTOCOL", kind: "server_error", code: -32603, method: "tools/list", retryable: false });
    // The caller asked for a tool, not for the list: the failure names the call it happened for.
    expect(first.message).toMatch(/^callTool "weather": listing the tools first \(for the tool's outputSchema or taskSupport\) failed: /);
    expect(first.message).not.toContain("backend busy");
    const second = await failure(client.callTool("weather"));
    expect(second).toMatchObject({ reason: "PROTOCOL", kind: "output_schema" });
    expect(transport.requests("tools/list")).toHaveLength(2);
  });

  it("a tool that requires a task is not called until a listing says so: after a failed one, the next call lists and runs it as a task", async () => {
    const transport = new RecordingTransport(
      {
        "tools/list": listingThatFailsOnce(RecordingTransport.error(-32603, "backend busy"), [
          { name: "slow", inputSchema: { type: "object" }, execution: { taskSupport: "required" } },
        ]),
        "tools/call": { task: { taskId: "k", status: "working", ...STAMP } },
        "tasks/get": { taskId: "k", status: "completed", ...STAMP },
        "tasks/result": { content: [{ type: "text", text: "ok" }] },
      } as never,
      { capabilities: { tools: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } } },
    );
    await using client = await connect(transport);
    const error = await failure(client.callTool("slow"));
    expect(error).toMatchObject({ kind: "server_error", code: -32603, method: "tools/list" });
    expect(error.message).toMatch(/^callTool "slow": listing the tools first/);
    expect(transport.requests("tools/call")).toHaveLength(0);
    expect((await client.callTool("slow")).content).toEqual([{ type: "text", text: "ok" }]);
    expect(transport.requests("tools/call").map((request) => request.params!.task)).toEqual([{}]);
  });

  it("a listing that fails on the wire keeps its reason, retryable and cause, named for the callTool that needed it", async () => {
    const cause = new Error("socket reset");
    const transport = new RecordingTransport({
      "tools/list": () => {
        throw new McpTransportError("UNAVAILABLE", "the scripted server dropped the request", { cause, method: "tools/list" });
      },
      "tools/call": { content: [{ type: "text", text: "hot" }], structuredContent: { temperature: "hot" } },
    } as never);
    await using client = await connect(transport);
    const error = await failure(client.callTool("weather"));
    expect(error).toMatchObject({ reason: "UNAVAILABLE", retryable: true, method: "tools/list" });
    expect(error.cause).toBe(cause);
    expect(error.message).toMatch(/^callTool "weather": listing the tools first .* failed: /);
  });

  it("a server without tools/list (-32601) counts as one without tools until the list changes: calls go unchecked, listed once", async () => {
    const transport = new RecordingTransport({
      "tools/list": RecordingTransport.error(-32601, "Method not found"),
      "tools/call": { content: [{ type: "text", text: "hot" }], structuredContent: { temperature: "hot" } },
    } as never);
    await using client = await connect(transport);
    expect((await client.callTool("weather")).structuredContent).toEqual({ temperature: "hot" });
    expect((await client.callTool("weather")).structuredContent).toEqual({ temperature: "hot" });
    expect(transport.requests("tools/list")).toHaveLength(1);
  });
});
