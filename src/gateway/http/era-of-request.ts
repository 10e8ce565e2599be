/**
 * Which protocol era a POST speaks, told per request, since one endpoint serves both:
 * a revision in the body's `_meta` (`io.modelcontextprotocol/protocolVersion`) or a modern
 * `MCP-Protocol-Version` header is 2026-07-28, whose requests are self-contained (a `_meta` that
 * names an unknown or a legacy revision is refused with -32022); `initialize`, an
 * `Mcp-Session-Id`, or neither of the modern marks is the legacy era (2024-11-05 to 2025-11-25).
 * A modern request then has its mirrored headers checked against its body (modern-headers.ts).
 */
import type { IncomingMessage } from "node:http";
import type { JsonRpcMessage } from "../../protocol/jsonrpc.js";
import { MetaKey } from "../../protocol/modern.js";
import { isLegacyRevision, isModernRevision } from "../../protocol/revisions.js";

export type RequestEraVerdict =
  | { era: "modern"; revision: string }
  | { era: "legacy"; sessionId?: string }
  /**
   * The request cannot be served as either: 400, in these words. `unsupportedRevision` is set when
   * the reason is a revision the gateway does not serve, answered as UnsupportedProtocolVersion.
   */
  | { era: "invalid"; message: string; unsupportedRevision?: string };

/** The protocol revision a message's `_meta` names, if any. */
export function metaRevisionOf(message: JsonRpcMessage): unknown {
  const params = "params" in message ? message.params : undefined;
  const meta = params?._meta;
  return typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)[MetaKey.protocolVersion] : undefined;
}

export function eraOf(message: JsonRpcMessage, request: IncomingMessage): RequestEraVerdict {
  const header = headerValue(request, "mcp-protocol-version");
  const sessionId = headerValue(request, "mcp-session-id");
  const metaRevision = metaRevisionOf(message);
  const isInitialize = "method" in message && message.method === "initialize";

  // The body's `_meta` speaks for a modern request, whatever else it carries: a modern server
  // ignores `Mcp-Session-Id` (streamable-http, "Earlier Streamable HTTP Revisions").
  if (metaRevision !== undefined && !isInitialize) {
    if (typeof metaRevision !== "string") return { era: "invalid", message: `_meta "${MetaKey.protocolVersion}" must be a string` };
    // The revision a modern request asks for is the one in its `_meta`, and one the server does
    // not implement MUST get 400 and UnsupportedProtocolVersionError listing the supported ones
    // (2026-07-28 basic/transports/streamable-http, "Protocol Version Header"; basic/versioning),
    // as an unknown header does below: a child must not be handed a request of a revision it
    // was never asked to speak. This comes before the mirrored headers are compared, so that the
    // caller learns which revisions to retry with.
    if (!isModernRevision(metaRevision) && !isLegacyRevision(metaRevision)) {
      return { era: "invalid", message: `_meta "${MetaKey.protocolVersion}" ${JSON.stringify(metaRevision)} is not a revision this gateway knows`, unsupportedRevision: metaRevision };
    }
    // A legacy revision is known, but not one a request can name per request: it is spoken only in
    // a session its `initialize` opened ("An `initialize` request selects legacy semantics";
    // "A request carrying modern per-request `_meta` is served statelessly according to this
    // revision", 2026-07-28 basic/versioning). So it is "a known version the server has chosen not
    // to support" for such a request, and gets the same -32022, whatever the header says.
    if (isLegacyRevision(metaRevision)) {
      return {
        era: "invalid",
        message: `_meta "${MetaKey.protocolVersion}" ${JSON.stringify(metaRevision)} is a legacy revision, served only in a session opened with initialize; name a 2026-07-28 revision per request`,
        unsupportedRevision: metaRevision,
      };
    }
    return { era: "modern", revision: metaRevision };
  }
  if (sessionId !== undefined || isInitialize) {
    const refusal = sessionVersionRefusal(request);
    if (refusal !== undefined) return { era: "invalid", message: refusal };
    if (sessionId !== undefined && !/^[\x21-\x7e]+$/.test(sessionId)) return { era: "invalid", message: "Mcp-Session-Id must be visible ASCII" };
    return { era: "legacy", sessionId };
  }
  if (header !== undefined && isModernRevision(header)) return { era: "modern", revision: header };
  // A revision the server does not implement MUST get 400 and UnsupportedProtocolVersionError
  // listing the supported ones (2026-07-28 basic/transports/streamable-http, "Protocol Version
  // Header"), so that a client retries with one of them instead of falling back to initialize.
  if (header !== undefined && !isLegacyRevision(header)) {
    return { era: "invalid", message: `MCP-Protocol-Version ${JSON.stringify(header)} is not a revision this gateway knows`, unsupportedRevision: header };
  }
  return { era: "legacy" };
}

/**
 * Why a request of a legacy session (a POST, GET or DELETE with `Mcp-Session-Id`, or an
 * `initialize`) must be answered 400 for its `MCP-Protocol-Version`, or undefined when it may
 * pass: a header must name a legacy revision (2025-06-18 and 2025-11-25 transports, "Protocol
 * Version Header": an invalid or unsupported one MUST get 400 Bad Request). No header passes:
 * the server then assumes the negotiated revision, or 2025-03-26. `initialize` carries its
 * revision in the body too; the header, when sent, is held to the same rule.
 */
export function sessionVersionRefusal(request: IncomingMessage): string | undefined {
  const header = headerValue(request, "mcp-protocol-version");
  if (header === undefined || isLegacyRevision(header)) return undefined;
  return `MCP-Protocol-Version ${JSON.stringify(header)} is not a revision this gateway serves for a session; the legacy revisions are 2024-11-05 to 2025-11-25`;
}

/** A header sent once, as a string; a header repeated counts as the first value (Node joins some). */
export function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
