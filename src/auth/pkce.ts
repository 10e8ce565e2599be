/**
 * PKCE (RFC 7636) with the S256 method, the only one MCP allows a capable client to use, and the
 * other random values of a code flow. Every value comes from the platform's CSPRNG.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export interface Pkce {
  /** 43 characters of base64url (32 random bytes): within RFC 7636's 43 to 128. */
  verifier: string;
  /** BASE64URL(SHA256(verifier)). */
  challenge: string;
  method: "S256";
}

export function newPkce(): Pkce {
  const verifier = randomToken();
  return { verifier, challenge: s256Challenge(verifier), method: "S256" };
}

export function s256Challenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** 32 random bytes as base64url: a `state`, a verifier, a `jti`. */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Compares two strings without an early exit, so that a guessed `state` learns nothing from timing. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  if (left.length !== right.length) {
    // Still compare, so that the time taken does not tell a wrong length from a wrong value.
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
