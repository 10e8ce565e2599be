/** Options are checked when the transport is made: each bad value throws, naming the key and what is allowed. */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_CLOSE_TIMEOUT_MS,
  DEFAULT_UPGRADE_TIMEOUT_MS,
  WEBSOCKET_SUBPROTOCOL,
  WebSocketTransport,
  type WebSocketOptions,
} from "../../src/index.js";

const URL_OK = "ws://127.0.0.1:1/mcp";

function made(url: unknown, options?: unknown): () => WebSocketTransport {
  return () => new WebSocketTransport(url as string, options as WebSocketOptions);
}

function messageOf(make: () => unknown): string {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as TypeError).message;
  }
  throw new Error("expected a TypeError");
}

describe("WebSocketTransport options", () => {
  it("takes ws:// and wss:// URLs, as strings or URL objects", () => {
    expect(new WebSocketTransport(URL_OK).kind).toBe("websocket");
    expect(new WebSocketTransport(new URL("wss://example.com/mcp")).description).toBe("websocket: wss://example.com/mcp");
  });

  it("documents its constants", () => {
    expect(WEBSOCKET_SUBPROTOCOL).toBe("mcp");
    expect(DEFAULT_UPGRADE_TIMEOUT_MS).toBe(30_000);
    expect(DEFAULT_CLOSE_TIMEOUT_MS).toBe(5_000);
  });

  it.each([
    ["http://127.0.0.1/mcp", 'the URL\'s scheme is "http:"; the schemes allowed are "ws:" and "wss:" (an http(s) URL is for the Streamable HTTP transport)'],
    ["ftp://127.0.0.1/mcp", 'the URL\'s scheme is "ftp:"'],
    ["not a url", "the URL cannot be parsed"],
    ["ws://127.0.0.1/mcp#part", "cannot have a fragment"],
  ])("refuses the URL %s", (url, message) => {
    expect(made(url)).toThrow(TypeError);
    expect(made(url)).toThrow(message);
  });

  it("does not echo an unparsable URL, which may carry a credential", () => {
    expect(messageOf(made("s3cret token"))).not.toContain("s3cret");
  });

  it.each([
    [null, "options must be an object, got null"],
    [{ header: {} }, '"header" is not an option (did you mean "headers"?); the options are headers, keepAlive, upgradeTimeoutMs, closeTimeoutMs'],
    [{ upgradeTimeoutMs: 0 }, '"upgradeTimeoutMs" must be a whole number of ms from 1 to 2147483647, got 0 (default 30000)'],
    [{ upgradeTimeoutMs: "5s" }, '"upgradeTimeoutMs" must be a whole number'],
    [{ closeTimeoutMs: -5 }, '"closeTimeoutMs" must be a whole number of ms from 1 to 2147483647, got -5 (default 5000)'],
    [{ keepAlive: { intervalMs: -1 } }, '"keepAlive.intervalMs" must be a whole number of ms from 0 (off)'],
    [{ keepAlive: { pingMs: 1 } }, '"keepAlive.pingMs" is not an option'],
    [{ keepAlive: 30_000 }, '"keepAlive" must be an object { intervalMs, timeoutMs }'],
    [{ headers: "Bearer x" }, "options.headers must be an object of header names to string values"],
    [{ headers: { "bad name": "x" } }, 'options.headers has a header name that is not an HTTP token: "bad name"'],
    [{ headers: { "X-Count": 3 } }, 'the value of "X-Count" must be a string, got a number'],
    [{ headers: { Connection: "keep-alive" } }, 'sets "Connection", a header of the WebSocket handshake itself'],
    [{ headers: { "sec-websocket-protocol": "other" } }, 'sets "sec-websocket-protocol", a header of the WebSocket handshake itself'],
    [{ headers: { Authorization: "a", authorization: "b" } }, 'sets "authorization" twice'],
  ])("refuses %j", (options, message) => {
    expect(made(URL_OK, options)).toThrow(TypeError);
    expect(made(URL_OK, options)).toThrow(message);
  });

  it("never shows a header value in its message: it is often a credential", () => {
    const options = { headers: { Authorization: "Bearer s3cret\r\nInjected: yes" } };
    const message = messageOf(made(URL_OK, options));
    expect(message).toContain('the value of "Authorization" has a character not allowed in a header');
    expect(message).not.toContain("s3cret");
  });
});
