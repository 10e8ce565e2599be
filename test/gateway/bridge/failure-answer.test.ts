/** A failed forward as the host's JSON-RPC error answer: mcpwire's words, a stable reason, never the remote's text. */
import { describe, expect, it } from "vitest";
import { McpTransportError } from "../../../src/errors.js";
import { failureAnswer } from "../../../src/gateway/bridge/failure-answer.js";

describe("failureAnswer", () => {
  it("answers in the host's id with -32603 and the reason, its details as data", () => {
    const answer = failureAnswer("a-1", new McpTransportError("TIMEOUT", "no answer within 500 ms", { timeoutMs: 500, serverMessage: "REMOTE-TEXT" }), "tools/call");
    expect(answer).toEqual({
      jsonrpc: "2.0",
      id: "a-1",
      error: { code: -32603, message: "mcpwire gateway: tools/call was not answered: no answer within 500 ms", data: { reason: "TIMEOUT", retryable: true, timeoutMs: 500 } },
    });
  });

  it("keeps the code and data of a JSON-RPC error the remote sent, never its message", () => {
    const error = new McpTransportError("PROTOCOL", "the endpoint answered request \"tools/call\" with HTTP 400", {
      kind: "server_error",
      code: -32020,
      httpStatus: 400,
      serverMessage: "REMOTE-TEXT",
      serverData: { header: "Mcp-Name" },
    });
    const answer = failureAnswer(7, error, "tools/call");
    expect(answer.error.code).toBe(-32020);
    expect(answer.error.data).toEqual({ header: "Mcp-Name" });
    expect(JSON.stringify(answer)).not.toContain("REMOTE-TEXT");
  });

  it("shows nothing of a thrown value that is not ours", () => {
    const answer = failureAnswer(1, new Error("INTERNAL-DETAIL"), "ping");
    expect(answer.error.data).toMatchObject({ reason: "DISCONNECTED" });
    expect(JSON.stringify(answer)).not.toContain("INTERNAL-DETAIL");
  });
});
