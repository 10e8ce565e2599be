/**
 * An answer that is not HTTP at all: the URL names a port where something else listens (an SSH
 * or database server, a raw TCP service). The HTTP client fails to parse the first bytes, and
 * that is not a lost connection (DISCONNECTED) nor an endpoint out of reach (UNAVAILABLE, tried
 * again): the URL is wrong, and asking again gets the same bytes. So it is PROTOCOL, and the
 * message points at the URL. The peer's bytes never go into the message. Both wires that begin
 * in HTTP meet it: the HTTP transports' requests and the WebSocket upgrade.
 */
import { McpTransportError } from "../../errors.js";

/**
 * The HTTP parser's error for bytes that are not an HTTP/1.1 response: undici's by its name, and
 * `node:http`'s (under the WebSocket upgrade) by its `HPE_*` code.
 */
function isHttpParseError(error: unknown): boolean {
  const { name, code } = error as { name?: unknown; code?: unknown };
  return name === "HTTPParserError" || (typeof code === "string" && code.startsWith("HPE_"));
}

/**
 * PROTOCOL when `error` (or a cause of it, as fetch wraps it) says the answer was not HTTP;
 * `peer` is how the message names who answered.
 */
export function notHttpAnswerIn(error: unknown, peer = "the endpoint"): McpTransportError | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    if (isHttpParseError(current)) {
      return new McpTransportError(
        "PROTOCOL",
        `${peer} did not answer in HTTP: something else listens on that port; check the URL's port and scheme (https:// or wss:// for TLS)`,
        { cause: current },
      );
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
