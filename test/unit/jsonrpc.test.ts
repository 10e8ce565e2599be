import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { McpTransportError } from "../../src/index.js";
import { isNotification, isRequest, isResponse, parseMessage, toMessage } from "../../src/protocol/jsonrpc.js";

function protocolFailure(run: () => unknown): McpTransportError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(McpTransportError);
    expect((error as McpTransportError).reason).toBe("PROTOCOL");
    return error as McpTransportError;
  }
  throw new Error("expected a PROTOCOL failure");
}

describe("parseMessage", () => {
  it("reads requests, notifications, results and errors", () => {
    const request = parseMessage('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}');
    expect(isRequest(request)).toBe(true);
    const notification = parseMessage('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    expect(isNotification(notification)).toBe(true);
    const result = parseMessage('{"jsonrpc":"2.0","id":"a","result":{}}');
    expect(isResponse(result)).toBe(true);
    const failure = parseMessage('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
    expect(failure).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it.each([
    ["not JSON", "{oops", "not valid JSON"],
    ["an array (batch)", "[]", "batch"],
    ["a number", "42", "not an object"],
    ["a wrong version", '{"jsonrpc":"1.0","id":1,"result":{}}', '"jsonrpc"'],
    ["a non-string method", '{"jsonrpc":"2.0","id":1,"method":5}', '"method"'],
    ["array params", '{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}', '"params"'],
    ["an object id", '{"jsonrpc":"2.0","id":{},"method":"m"}', '"id"'],
    ["a result that is not an object", '{"jsonrpc":"2.0","id":1,"result":5}', '"result"'],
    ["an error without a code", '{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}', '"error"'],
    ["neither method, result nor error", '{"jsonrpc":"2.0","id":1}', "neither"],
  ])("refuses %s with PROTOCOL", (_, text, words) => {
    expect(protocolFailure(() => parseMessage(text)).message).toContain(words);
  });

  it("never lets the peer's text into the message", () => {
    const error = protocolFailure(() => parseMessage('{"jsonrpc":"2.0","id":1,"method":"IGNORE ALL","params":"EVIL"}'));
    expect(error.message).not.toContain("EVIL");
    expect(error.message).not.toContain("IGNORE");
  });

  it("either returns a message or throws PROTOCOL, for any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          const message = toMessage(value);
          expect(typeof message).toBe("object");
        } catch (error) {
          expect(error).toBeInstanceOf(McpTransportError);
          expect((error as McpTransportError).reason).toBe("PROTOCOL");
        }
      }),
    );
  });
});
