/**
 * A session id as a log line may show it. `Mcp-Session-Id` is a bearer of the session: whoever
 * holds it can speak in it. So it is written keyed-hashed, with a key drawn at random when the
 * process starts and never written anywhere: the same session gives the same hash for the life of
 * the process (lines of one session can be followed), and no log reader can compute it back.
 */
import { createHmac, randomBytes } from "node:crypto";

/** Hex characters kept of the HMAC: 64 bits, enough to tell sessions apart, short to read. */
export const SESSION_HASH_HEX_LENGTH = 16;

export type SessionHasher = (sessionId: string) => string;

/** A hasher with its own random key (one per telemetry, so one per gateway process in practice). */
export function createSessionHasher(key: Uint8Array = randomBytes(32)): SessionHasher {
  const secret = Buffer.from(key);
  return (sessionId) => createHmac("sha256", secret).update(sessionId, "utf8").digest("hex").slice(0, SESSION_HASH_HEX_LENGTH);
}
