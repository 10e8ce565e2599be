/**
 * The `initialize` handshake of revisions 2024-11-05 to 2025-11-25 (basic/lifecycle).
 *
 * The client offers its newest revision; the server answers with that one or another it speaks.
 * An answer outside the revisions mcpwire speaks fails with PROTOCOL (the caller closes the
 * connection); otherwise `notifications/initialized` follows and the revision is handed to the
 * transport (HTTP sends it as `MCP-Protocol-Version` on every later request).
 */
import { McpTransportError } from "../errors.js";
import { Method, Notification } from "../protocol/methods.js";
import { LATEST_LEGACY_REVISION, LEGACY_REVISIONS, isLegacyRevision, revisionAcceptsBatches, type LegacyRevision } from "../protocol/revisions.js";
import { schemas } from "../protocol/schema-registry.js";
import type { Implementation, InitializeResult } from "../protocol/schemas.js";
import type { TransportSession } from "../session/session.js";
import type { ClientCapabilities } from "./handlers.js";
import { parseResult } from "./validate.js";

export interface HandshakeOptions {
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** The revision to offer. @default the newest mcpwire speaks */
  protocolVersion?: LegacyRevision;
}

export interface Handshake {
  protocolVersion: LegacyRevision;
  result: InitializeResult;
}

export async function initializeLegacy(session: TransportSession, options: HandshakeOptions): Promise<Handshake> {
  const label = "initialize";
  const raw = await session.request(
    Method.initialize,
    {
      protocolVersion: options.protocolVersion ?? LATEST_LEGACY_REVISION,
      capabilities: options.capabilities,
      clientInfo: options.clientInfo,
    },
    { signal: options.signal, timeoutMs: options.timeoutMs, label },
  );
  const result = parseResult(schemas().InitializeResultSchema, raw, label, session.description);
  if (!isLegacyRevision(result.protocolVersion)) {
    throw new McpTransportError(
      "PROTOCOL",
      `the server answered initialize with protocol revision ${quoteRevision(result.protocolVersion)}, ` +
        `which mcpwire does not speak (it speaks ${LEGACY_REVISIONS.join(", ")}) (${session.description})`,
      { method: Method.initialize },
    );
  }
  // Only revision 2025-03-26 let servers answer with JSON-RPC batches (2025-06-18 removed them).
  session.setProtocolVersion(result.protocolVersion, { acceptsBatches: revisionAcceptsBatches(result.protocolVersion) });
  await session.notify(Notification.initialized);
  return { protocolVersion: result.protocolVersion, result };
}

/** A revision string is shown only when it looks like one: a server's text never steers our message. */
function quoteRevision(value: string): string {
  return /^[\w.-]{1,32}$/.test(value) ? `"${value}"` : "(unreadable)";
}
