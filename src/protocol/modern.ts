/**
 * Revision 2026-07-28 ("modern"): the request metadata that replaces the handshake, its error
 * codes and method names. The shapes of its results are in modern-schemas.ts.
 */
import { JSONRPC_METHOD_NOT_FOUND } from "./jsonrpc.js";

/** `_meta` keys every modern request carries (basic/index, "_meta"). */
export const MetaKey = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** Errors the specification reserves (-32020 to -32099); seeing one identifies a modern server. */
export const HEADER_MISMATCH = -32020;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

export function isModernErrorCode(code: unknown): boolean {
  return code === HEADER_MISMATCH || code === MISSING_REQUIRED_CLIENT_CAPABILITY || code === UNSUPPORTED_PROTOCOL_VERSION;
}

/**
 * Whether a refused HTTP request can only have come from a modern server: one of the codes it
 * reserves, whatever the status, or 404 with -32601 Method not found, its answer to a method it
 * does not implement (`initialize` among them). basic/transports/streamable-http, "Protocol
 * Version Header": "The JSON-RPC error body distinguishes this case from a 404 returned by a
 * legacy HTTP+SSE server that does not host the modern MCP endpoint"; and "Backward
 * Compatibility": "a modern server returns one for unsupported version, unknown method, or
 * header-validation failure".
 */
export function isModernRefusal(code: unknown, httpStatus: number | undefined): boolean {
  return isModernErrorCode(code) || (httpStatus === 404 && code === JSONRPC_METHOD_NOT_FOUND);
}

export const ModernMethod = {
  discover: "server/discover",
  subscriptionsListen: "subscriptions/listen",
} as const;

/** Methods whose result may be `input_required` (basic/patterns/mrtr, "Supported Requests"). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(["tools/call", "prompts/get", "resources/read"]);

export type { DiscoverResult, InputRequiredResult } from "./modern-schemas.js";
