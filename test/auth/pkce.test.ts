/**
 * PKCE (RFC 7636) with S256, the random values of a code flow, and the constant-time compare
 * of a callback's state.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { constantTimeEqual, newPkce, randomToken, s256Challenge } from "../../src/auth/pkce.js";

/** RFC 7636 §4.1: unreserved characters only. */
const VERIFIER_CHARS = /^[A-Za-z0-9\-._~]+$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

describe("s256Challenge", () => {
  it("matches RFC 7636 Appendix B", () => {
    expect(s256Challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  });

  it("is BASE64URL(SHA256(ASCII(verifier))) without padding", () => {
    const verifier = "a".repeat(43) + "-._~";
    const expected = createHash("sha256").update(verifier).digest("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    expect(s256Challenge(verifier)).toBe(expected);
    expect(s256Challenge(verifier)).toMatch(BASE64URL);
    expect(s256Challenge(verifier)).toHaveLength(43);
  });
});

describe("newPkce", () => {
  it("makes an S256 pair whose challenge is the verifier's", () => {
    const pkce = newPkce();
    expect(pkce.method).toBe("S256");
    expect(pkce.challenge).toBe(s256Challenge(pkce.verifier));
  });

  it("makes verifiers of 43 to 128 unreserved characters, different every time", () => {
    const verifiers = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const { verifier } = newPkce();
      expect(verifier.length).toBeGreaterThanOrEqual(43);
      expect(verifier.length).toBeLessThanOrEqual(128);
      expect(verifier).toMatch(VERIFIER_CHARS);
      verifiers.add(verifier);
    }
    expect(verifiers.size).toBe(200);
  });
});

describe("randomToken", () => {
  it("is 32 random bytes as base64url, never repeated", () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const token = randomToken();
      expect(token).toMatch(BASE64URL);
      expect(Buffer.from(token, "base64url")).toHaveLength(32);
      tokens.add(token);
    }
    expect(tokens.size).toBe(1000);
  });
});

describe("constantTimeEqual", () => {
  it.each([
    ["", "", true],
    ["state-1", "state-1", true],
    ["é€", "é€", true],
    ["state-1", "state-2", false],
    ["state-1", "State-1", false],
    ["state", "state-1", false],
    ["state-1", "state", false],
    ["", "x", false],
    ["x", "", false],
    // Same length in UTF-16, different bytes.
    ["é", "e", false],
  ])("constantTimeEqual(%j, %j) is %s", (a, b, equal) => {
    expect(constantTimeEqual(a, b)).toBe(equal);
  });
});
