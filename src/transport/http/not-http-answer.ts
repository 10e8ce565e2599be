/**
 * An answer that is not HTTP at all: the URL names a port where something else listens (an SSH
 * or database server, a raw TCP service). The HTTP client fails to parse the first bytes, and
 * that is not a lost connection (DISCONNECTED) nor an endpoint out of reach (UNAVAILABLE, tried
 * again): the URL is wrong, and asking again gets the same bytes. So it is PROTOCOL, and the
 * message points at the URL. The peer's bytes never go into the message.
 */
import { McpTransportError } from "../../errors.js";

/** undici's error for bytes that are not an HTTP/1.1 response, in its own name or its `HPE_*` code. */
function isHttpParseError(error: unknown): boolean {
  const { name, code } = error as { name?: unknown; code?: unknown };
  return name === "HTTPParserError" || (typeof code === "string" && code.startsWith("HPE_"));
}

/** PROTOCOL when `error` (or a cause of it, as fetch wraps it) says the answer was not HTTP. */
export function notHttpAnswerIn(error: unknown): McpTransportError | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    if (isHttpParseError(current)) {
      return new McpTransportError(
        "PROTOCOL",
        "the endpoint did not answer in HTTP: something else listens on that port; check the URL's port and scheme (https:// for TLS)",
        { cause: current },
      );
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
