/**
 * A legacy handshake the user pinned (`protocolVersion: "legacy"` or a legacy revision), refused
 * by a server that answers as only a modern one does, explained in words that say what to do.
 *
 * Such a server has no `initialize` (basic/versioning, compatibility matrix, Legacy client and
 * Modern server: "Fails. ... Legacy clients have no fall-forward mechanism"); mcpwire has one,
 * the era probe of `protocolVersion: "auto"`, and the pin is what kept it from running. Without
 * this, the failure reads as a refused request or a wrong URL.
 */
import { McpTransportError } from "../errors.js";
import { Method } from "../protocol/methods.js";
import { isModernRefusal } from "../protocol/modern.js";
import { MODERN_REVISIONS, isLegacyRevision, isModernRevision, type LegacyRevision } from "../protocol/revisions.js";

/**
 * The failure of a pinned legacy `initialize` restated when the server's answer shows a modern
 * server (see `isModernRefusal`); otherwise undefined, and the failure stands as it is. The data
 * fields (status, code, the server's message and data) are kept, and the failure is the cause.
 */
export function pinnedLegacyRefusal(error: unknown, pin: string, revision: LegacyRevision, where: string): McpTransportError | undefined {
  if (!(error instanceof McpTransportError) || error.method !== Method.initialize) return undefined;
  if (!isModernRefusal(error.code, error.httpStatus)) return undefined;
  const pinned = `this client is pinned to ${pin === revision ? `revision ${revision}` : `the legacy era (revision ${revision})`} by protocolVersion "${pin}"`;
  // Only revisions mcpwire knows are named: a server's text never steers the message.
  const supported = supportedRevisions(error.serverData);
  const legacy = supported.filter(isLegacyRevision);
  const message =
    legacy.length > 0
      ? `the server does not speak revision ${revision}, and ${pinned}; it speaks ${supported.join(", ")}: pin one of those, or remove the pin (protocolVersion "auto", --protocol auto)`
      : `the server speaks only the modern protocol (revision ${(supported.length > 0 ? supported : MODERN_REVISIONS).join(", ")}), which has no initialize, ` +
        `and ${pinned}: remove the pin (protocolVersion "auto" or "modern", --protocol auto)`;
  return error.with({ cause: error }, `${message} (${where})`);
}

/** The revisions mcpwire knows among those an UnsupportedProtocolVersionError lists in `data.supported`. */
function supportedRevisions(data: unknown): string[] {
  const listed = (data as { supported?: unknown } | undefined)?.supported;
  if (!Array.isArray(listed)) return [];
  return listed.filter((revision): revision is string => isModernRevision(revision) || isLegacyRevision(revision));
}
