/**
 * The authorization code flow's own checks: the authorization request's parameters (OAuth 2.1
 * §4.1.1, RFC 7636, RFC 8707), and the callback's checks before anything in it is used: the
 * redirect URI, the state, and the RFC 9207 `iss` table of basic/authorization (2026-07-28).
 */
import { describe, expect, it } from "vitest";
import { authorizationRequest, codeFromCallback } from "../../src/auth/authorization-code.js";
import type { AuthorizationServerMetadata } from "../../src/auth/discovery.js";
import { s256Challenge } from "../../src/auth/pkce.js";
import { McpTransportError } from "../../src/errors.js";

const ISSUER = "https://auth.example.com";
const REDIRECT = "http://127.0.0.1:8765/callback";
const STATE = "state-Zx81_q";
const CODE = "code-secret-7Hq";

const metadata = (overrides: Partial<AuthorizationServerMetadata> = {}): AuthorizationServerMetadata => ({
  issuer: ISSUER,
  authorization_endpoint: `${ISSUER}/authorize`,
  token_endpoint: `${ISSUER}/token`,
  code_challenge_methods_supported: ["S256"],
  ...overrides,
});

function request(overrides: { scopes?: string[]; metadata?: AuthorizationServerMetadata } = {}) {
  return authorizationRequest({
    metadata: overrides.metadata ?? metadata(),
    client: { client_id: "client-1" },
    redirectUri: REDIRECT,
    resource: "https://mcp.example.com/mcp",
    scopes: overrides.scopes ?? ["files:read", "files:write"],
  });
}

function refusal(run: () => unknown): McpTransportError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(McpTransportError);
    const failure = error as McpTransportError;
    expect(failure.reason).toBe("PROTOCOL");
    expect(failure.authStep).toBe("authorization");
    return failure;
  }
  throw new Error("expected the callback to be refused");
}

function callback(params: Record<string, string>, base = REDIRECT): string {
  const url = new URL(base);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.href;
}

describe("authorizationRequest", () => {
  it("carries every parameter of the code flow with PKCE S256 and the resource", () => {
    const { url, state, verifier } = request();
    expect(url.origin + url.pathname).toBe(`${ISSUER}/authorize`);
    const params = url.searchParams;
    expect(params.get("response_type")).toBe("code");
    expect(params.get("client_id")).toBe("client-1");
    expect(params.get("redirect_uri")).toBe(REDIRECT);
    expect(params.get("code_challenge")).toBe(s256Challenge(verifier));
    expect(params.get("code_challenge_method")).toBe("S256");
    expect(params.get("state")).toBe(state);
    expect(params.get("resource")).toBe("https://mcp.example.com/mcp");
    expect(params.get("scope")).toBe("files:read files:write");
    // The verifier itself never goes in the URL.
    expect(url.href).not.toContain(verifier);
    expect(params.getAll("state")).toHaveLength(1);
  });

  it.each([
    [[], null],
    [["one"], "one"],
    [["a", "b", "offline_access"], "a b offline_access"],
  ])("scopes %j give scope %j (left out when empty)", (scopes, scope) => {
    const { url } = request({ scopes });
    expect(url.searchParams.get("scope")).toBe(scope);
    expect(url.searchParams.has("scope")).toBe(scope !== null);
  });

  it("keeps the query the authorization endpoint already has (RFC 6749 §3.1)", () => {
    const { url } = request({ metadata: metadata({ authorization_endpoint: `${ISSUER}/authorize?tenant=blue` }) });
    expect(url.searchParams.get("tenant")).toBe("blue");
    expect(url.searchParams.get("response_type")).toBe("code");
  });

  it("makes a new state and verifier for every request", () => {
    const first = request();
    const second = request();
    expect(second.state).not.toBe(first.state);
    expect(second.verifier).not.toBe(first.verifier);
  });

  it("refuses a server without an authorization_endpoint, or with a plain-http one off loopback", () => {
    const { authorization_endpoint: _dropped, ...without } = metadata();
    expect(() => request({ metadata: without as AuthorizationServerMetadata })).toThrow(/no authorization_endpoint/);
    expect(() => request({ metadata: metadata({ authorization_endpoint: "http://auth.example.com/authorize" }) })).toThrow(McpTransportError);
  });
});

describe("codeFromCallback: RFC 9207 iss", () => {
  const cases: [string, boolean, string | undefined, boolean][] = [
    ["advertised, present and equal: accepted", true, ISSUER, true],
    ["advertised, absent: refused", true, undefined, false],
    ["advertised, present and wrong: refused", true, "https://evil.example.com", false],
    ["not advertised, present and equal: accepted", false, ISSUER, true],
    ["not advertised, present and wrong: refused", false, "https://evil.example.com", false],
    ["not advertised, absent: accepted", false, undefined, true],
    ["advertised, a trailing slash added: refused (no normalization)", true, `${ISSUER}/`, false],
    ["not advertised, a trailing slash added: refused (no normalization)", false, `${ISSUER}/`, false],
    ["advertised, host in another case: refused", true, "https://Auth.example.com", false],
    ["advertised, the default port written out: refused", true, "https://auth.example.com:443", false],
    ["advertised, empty: refused", true, "", false],
  ];

  it.each(cases)("%s", (_name, issAdvertised, iss, accepted) => {
    const params: Record<string, string> = { code: CODE, state: STATE };
    if (iss !== undefined) params.iss = iss;
    const run = () => codeFromCallback(callback(params), { redirectUri: REDIRECT, state: STATE, issuer: ISSUER, issAdvertised });
    if (accepted) {
      expect(run()).toBe(CODE);
    } else {
      const error = refusal(run);
      expect(error.message).toMatch(/\biss\b/);
      expect(error.oauthError).toBeUndefined();
    }
  });

  it("compares with the issuer recorded, which may itself end in a slash", () => {
    const expected = { redirectUri: REDIRECT, state: STATE, issuer: `${ISSUER}/`, issAdvertised: true };
    expect(codeFromCallback(callback({ code: CODE, state: STATE, iss: `${ISSUER}/` }), expected)).toBe(CODE);
    refusal(() => codeFromCallback(callback({ code: CODE, state: STATE, iss: ISSUER }), expected));
  });
});

describe("codeFromCallback: redirect URI, state, error", () => {
  const expected = { redirectUri: REDIRECT, state: STATE, issuer: ISSUER, issAdvertised: true };
  const good = { code: CODE, state: STATE, iss: ISSUER };

  it("returns the code of a callback that passes every check, given as a string or a URL", () => {
    expect(codeFromCallback(callback(good), expected)).toBe(CODE);
    expect(codeFromCallback(new URL(callback(good)), expected)).toBe(CODE);
  });

  const refused: [string, string][] = [
    ["a wrong state", callback({ ...good, state: "state-Zx81_Q" })],
    ["a state one character longer", callback({ ...good, state: `${STATE}x` })],
    ["no state", callback({ code: CODE, iss: ISSUER })],
    ["an empty state", callback({ ...good, state: "" })],
    ["another path", callback(good, "http://127.0.0.1:8765/other")],
    ["the path with a trailing slash", callback(good, "http://127.0.0.1:8765/callback/")],
    ["another port", callback(good, "http://127.0.0.1:8766/callback")],
    ["another host", callback(good, "http://localhost:8765/callback")],
    ["another scheme", callback(good, "https://127.0.0.1:8765/callback")],
    ["another origin entirely", callback(good, "https://evil.example.com/callback")],
    ["not a URL", "not a url"],
    ["no code", callback({ state: STATE, iss: ISSUER })],
    ["an empty code", callback({ ...good, code: "" })],
  ];

  it.each(refused)("refuses %s", (_name, url) => {
    const error = refusal(() => codeFromCallback(url, expected));
    expect(error.oauthError).toBeUndefined();
    expect(error.message).not.toContain(CODE);
    expect(error.message).not.toContain(STATE);
  });

  it("reports access_denied on oauthError once the state and iss passed", () => {
    const error = refusal(() =>
      codeFromCallback(callback({ error: "access_denied", error_description: "User said no to everything", state: STATE, iss: ISSUER }), expected),
    );
    expect(error.oauthError).toBe("access_denied");
    expect(error.message).toContain("access_denied");
    expect(error.message).not.toContain("User said no");
    expect(error.message).not.toContain(STATE);
  });

  it("reports another error code the same way, and an unreadable one as such", () => {
    expect(refusal(() => codeFromCallback(callback({ error: "server_error", state: STATE, iss: ISSUER }), expected)).oauthError).toBe("server_error");
    expect(refusal(() => codeFromCallback(callback({ error: "bad\ncode", state: STATE, iss: ISSUER }), expected)).oauthError).toBe("unreadable");
    expect(refusal(() => codeFromCallback(callback({ error: "x".repeat(65), state: STATE, iss: ISSUER }), expected)).oauthError).toBe("unreadable");
  });

  it("an error is refused as an error even when a code comes with it", () => {
    const error = refusal(() => codeFromCallback(callback({ error: "access_denied", code: CODE, state: STATE, iss: ISSUER }), expected));
    expect(error.oauthError).toBe("access_denied");
    expect(error.message).not.toContain(CODE);
  });

  const forgedErrors: [string, Record<string, string>, string][] = [
    ["a wrong state", { error: "access_denied", error_description: "Zq9-description-text", state: "Zq9-wrong-state" }, REDIRECT],
    ["no state", { error: "access_denied", error_description: "Zq9-description-text" }, REDIRECT],
    ["a wrong iss", { error: "access_denied", error_description: "Zq9-description-text", state: STATE, iss: "https://evil.example.com" }, REDIRECT],
    ["no iss where it is advertised", { error: "access_denied", error_description: "Zq9-description-text", state: STATE }, REDIRECT],
    ["another path", { error: "access_denied", error_description: "Zq9-description-text", state: STATE, iss: ISSUER }, "http://127.0.0.1:8765/elsewhere"],
  ];

  it.each(forgedErrors)("does not surface the error of a callback with %s", (_name, params, base) => {
    const error = refusal(() => codeFromCallback(callback(params, base), expected));
    expect(error.oauthError).toBeUndefined();
    expect(error.message).not.toContain("access_denied");
    expect(error.message).not.toContain("Zq9");
  });

  it("never puts the code, the state or the error_description in a message", () => {
    const urls = [
      callback({ code: CODE, state: "wrong-state-value" }),
      callback({ code: CODE, state: STATE, iss: "https://evil.example.com" }),
      callback({ code: CODE, state: STATE }),
      callback({ error: "invalid_scope", error_description: "secret-description", state: STATE, iss: ISSUER }),
      callback({ code: CODE, state: STATE, iss: ISSUER }, "http://127.0.0.1:8765/x"),
    ];
    for (const url of urls) {
      const error = refusal(() => codeFromCallback(url, expected));
      for (const secret of [CODE, STATE, "wrong-state-value", "secret-description"]) expect(error.message).not.toContain(secret);
    }
  });
});
