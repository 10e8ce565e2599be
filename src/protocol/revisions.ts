/**
 * The MCP protocol revisions mcpwire negotiates, newest first.
 *
 * The client offers the newest; a server may answer with any revision in this list, and any
 * other answer ends the connection with PROTOCOL (lifecycle: "If the client does not support the
 * version in the server's response, it SHOULD disconnect").
 */
export const LEGACY_REVISIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

export type LegacyRevision = (typeof LEGACY_REVISIONS)[number];

/** The revision offered in `initialize`. */
export const LATEST_LEGACY_REVISION: LegacyRevision = LEGACY_REVISIONS[0];

export function isLegacyRevision(value: unknown): value is LegacyRevision {
  return typeof value === "string" && (LEGACY_REVISIONS as readonly string[]).includes(value);
}
