/**
 * Revision 2026-07-28 ("modern"): the request metadata that replaces the handshake, its error
 * codes and method names. The shapes of its results are in modern-schemas.ts.
 */

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

export const ModernMethod = {
  discover: "server/discover",
  subscriptionsListen: "subscriptions/listen",
} as const;

/** Methods whose result may be `input_required` (basic/patterns/mrtr, "Supported Requests"). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set(["tools/call", "prompts/get", "resources/read"]);

export type { DiscoverResult, InputRequiredResult } from "./modern-schemas.js";
