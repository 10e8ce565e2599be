/**
 * The MCP protocol revisions mcpwire speaks, newest first, in two eras.
 *
 * Legacy revisions (2024-11-05 to 2025-11-25) open with an `initialize` handshake; the client
 * offers the newest and the server answers with one it speaks, and an answer outside this list
 * ends the connection with PROTOCOL (lifecycle: "If the client does not support the version in
 * the server's response, it SHOULD disconnect"). Modern revisions (2026-07-28 on) have no
 * handshake: every request carries its revision in `_meta`.
 */
export const LEGACY_REVISIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;
export const MODERN_REVISIONS = ["2026-07-28"] as const;

export type LegacyRevision = (typeof LEGACY_REVISIONS)[number];
export type ModernRevision = (typeof MODERN_REVISIONS)[number];
export type Revision = LegacyRevision | ModernRevision;

/** The revision offered in `initialize`. */
export const LATEST_LEGACY_REVISION: LegacyRevision = LEGACY_REVISIONS[0];
/** The revision modern requests carry unless the server asks for another it supports. */
export const LATEST_MODERN_REVISION: ModernRevision = MODERN_REVISIONS[0];

/**
 * The one revision whose servers may send JSON-RPC batches: 2025-03-26, basic, "Batching": "MCP
 * implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC
 * batches"; 2025-06-18 removed them.
 */
export const BATCH_REVISION: LegacyRevision = "2025-03-26";

/**
 * Whether a connection that settled on `revision` reads JSON-RPC batches (`WireRules.acceptsBatches`):
 * the one place this rule is written, for the client's handshake, the SDK adapter and the gateway.
 */
export function revisionAcceptsBatches(revision: string): boolean {
  return revision === BATCH_REVISION;
}

export function isLegacyRevision(value: unknown): value is LegacyRevision {
  return typeof value === "string" && (LEGACY_REVISIONS as readonly string[]).includes(value);
}

export function isModernRevision(value: unknown): value is ModernRevision {
  return typeof value === "string" && (MODERN_REVISIONS as readonly string[]).includes(value);
}
