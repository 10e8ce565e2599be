import { describe, expect, it } from "vitest";
import { FAILURE_REASONS, McpTransportError } from "../../src/index.js";

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
