import { describe, expect, it } from "vitest";
import { FAILURE_KINDS, FAILURE_REASONS, McpTransportError, RecordingTransport, connect } from "../../src/index.js";
import { failure } from "../helpers/failure.js";

describe("McpTransportError", () => {
  it("is retryable for UNAVAILABLE and TIMEOUT only", () => {
    const retryable = FAILURE_REASONS.filter((reason) => new McpTransportError(reason, "x").retryable);
    expect(retryable).toEqual(["TIMEOUT", "UNAVAILABLE"]);
  });

  it("keeps the details that exist and the cause, and nothing else", () => {
    const cause = new Error("low level");
    const error = new McpTransportError("DISCONNECTED", "the child exited", { exitCode: 3, stderrTail: "boom", cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("McpTransportError");
    expect(error.exitCode).toBe(3);
    expect(error.stderrTail).toBe("boom");
    expect(error.cause).toBe(cause);
    expect(Object.keys(error)).not.toContain("httpStatus");
  });

  it("with() keeps the reason and the details while adding context", () => {
    const error = new McpTransportError("LIMIT", "too big", { limitBytes: 5 }).with({ method: "tools/call" }, "callTool failed");
    expect(error.reason).toBe("LIMIT");
    expect(error.limitBytes).toBe(5);
    expect(error.method).toBe("tools/call");
    expect(error.message).toBe("callTool failed");
  });
});

describe("failure kinds: a field to branch on for each case of a reason", () => {
  it("server_error for a JSON-RPC error, method_unavailable for a method the era lacks, page_limit for a list that never ends", async () => {
    const transport = new RecordingTransport({
      "tools/call": RecordingTransport.error(-32602, "bad arguments"),
      "tools/list": (params) => ({ tools: [], nextCursor: `${Number(params.cursor ?? 0) + 1}` }),
    });
    await using client = await connect(transport, { maxPages: 3 });
    expect(await failure(client.callTool("x"))).toMatchObject({ reason: "PROTOCOL", kind: "server_error", code: -32602 });
    expect(await failure(client.listTools())).toMatchObject({ reason: "PROTOCOL", kind: "page_limit" });
    const modern = new RecordingTransport({}, { era: "modern" });
    await using modernClient = await connect(modern);
    expect(await failure(modernClient.ping())).toMatchObject({ reason: "PROTOCOL", kind: "method_unavailable", method: "ping" });
  });

  it("lists every kind once, and a kind survives with()", () => {
    expect(new Set(FAILURE_KINDS).size).toBe(FAILURE_KINDS.length);
    const error = new McpTransportError("PROTOCOL", "x", { kind: "session_expired" });
    expect(error.with({ method: "tools/call" }, "y").kind).toBe("session_expired");
  });
});
