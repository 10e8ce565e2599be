import { McpTransportError } from "../../errors.js";

/**
 * The failure of an HTTP connection the server ended or that was lost: DISCONNECTED, with what
 * caused it when something did (an error without a cause carries none, not `cause: undefined`).
 */
export function disconnected(message: string, cause?: unknown): McpTransportError {
  return new McpTransportError("DISCONNECTED", message, cause === undefined ? {} : { cause });
}
