/**
 * The one error of the read-stall ceiling (`readTimeoutMs`), the same words whether the silent
 * peer is one stream (read-stall.ts) or one of many reply streams (stream-stall-watch.ts).
 */
import { McpTransportError } from "../../errors.js";

/** TIMEOUT: `peer` ("the server process", "the endpoint") sent nothing for `readTimeoutMs`. */
export function readStallError(peer: string, readTimeoutMs: number): McpTransportError {
  return new McpTransportError("TIMEOUT", `${peer} sent nothing for ${readTimeoutMs} ms while a request waited (readTimeoutMs)`, {
    timeoutMs: readTimeoutMs,
  });
}
