/**
 * The WWW-Authenticate parser (RFC 9110 §11.6.1): schemes, auth-params, token68, several
 * challenges in one header, and what a malformed tail leaves.
 */
import { describe, expect, it } from "vitest";
import { challengeOf, parseWwwAuthenticate, type AuthChallenge } from "../../src/transport/http/www-authenticate.js";

describe("parseWwwAuthenticate", () => {
  const cases: [string, string | undefined, AuthChallenge[]][] = [
    ["undefined header", undefined, []],
    ["empty header", "", []],
    ["only separators", " , ,", []],
    ["a bare scheme", "Bearer", [{ scheme: "bearer", params: {} }]],
    ["scheme in upper case", "BEARER realm=\"x\"", [{ scheme: "bearer", params: { realm: "x" } }]],
    ["scheme in mixed case, parameter names lowered", "bEaReR Realm=\"x\", ERROR=\"invalid_token\"", [
      { scheme: "bearer", params: { realm: "x", error: "invalid_token" } },
    ]],
    ["quoted values", 'Bearer realm="mcp", error="invalid_token"', [{ scheme: "bearer", params: { realm: "mcp", error: "invalid_token" } }]],
    ["bare values", "Bearer realm=mcp, error=invalid_token", [{ scheme: "bearer", params: { realm: "mcp", error: "invalid_token" } }]],
    ["values keep their case", 'Bearer realm="MiXeD"', [{ scheme: "bearer", params: { realm: "MiXeD" } }]],
    ["escaped quotes and backslashes", 'Bearer realm="a \\"b\\" c\\\\d"', [{ scheme: "bearer", params: { realm: 'a "b" c\\d' } }]],
    ["a comma inside a quoted value", 'Bearer scope="a,b", error="x"', [{ scheme: "bearer", params: { scope: "a,b", error: "x" } }]],
    ["spaces inside a quoted value", 'Bearer scope="a b  c"', [{ scheme: "bearer", params: { scope: "a b  c" } }]],
    ["an empty quoted value", 'Bearer realm=""', [{ scheme: "bearer", params: { realm: "" } }]],
    ["spaces around =", 'Bearer realm = "x" , error\t=\tbad', [{ scheme: "bearer", params: { realm: "x", error: "bad" } }]],
    ["bare scope with a colon", "Bearer scope=files:write", [{ scheme: "bearer", params: { scope: "files:write" } }]],
    ["bare URL value", "Bearer resource_metadata=https://example.com/.well-known/oauth-protected-resource", [
      { scheme: "bearer", params: { resource_metadata: "https://example.com/.well-known/oauth-protected-resource" } },
    ]],
    ["several challenges in one header", 'Basic realm="a", Bearer error="insufficient_scope", scope="a b"', [
      { scheme: "basic", params: { realm: "a" } },
      { scheme: "bearer", params: { error: "insufficient_scope", scope: "a b" } },
    ]],
    ["bare schemes in a list", "Bearer, Basic realm=\"x\"", [
      { scheme: "bearer", params: {} },
      { scheme: "basic", params: { realm: "x" } },
    ]],
    ["empty list elements", 'Bearer realm="a",, , error="b"', [{ scheme: "bearer", params: { realm: "a", error: "b" } }]],
    ["token68 with padding", "Negotiate abc==", [{ scheme: "negotiate", params: {}, token68: "abc==" }]],
    ["token68 without padding", "Basic dXNlcjpwYXNz", [{ scheme: "basic", params: {}, token68: "dXNlcjpwYXNz" }]],
    ["token68 with one = of padding", "Negotiate YWJj=", [{ scheme: "negotiate", params: {}, token68: "YWJj=" }]],
    ["token68 then another challenge", 'Negotiate abc==, Bearer realm="x"', [
      { scheme: "negotiate", params: {}, token68: "abc==" },
      { scheme: "bearer", params: { realm: "x" } },
    ]],
    ["first of a repeated parameter wins", 'Bearer scope="first", scope="second", SCOPE="third"', [{ scheme: "bearer", params: { scope: "first" } }]],
    ["unterminated quoted value keeps what came before", 'Bearer realm="a", error="unterminated', [{ scheme: "bearer", params: { realm: "a" } }]],
    ["junk after a value keeps what came before", 'Bearer realm="a" junk, error="x"', [{ scheme: "bearer", params: { realm: "a" } }]],
    ["malformed tail after a whole challenge keeps it", 'Basic realm="a", Bearer error="x" "stray"', [
      { scheme: "basic", params: { realm: "a" } },
      { scheme: "bearer", params: { error: "x" } },
    ]],
    ["a header starting with junk", '"quoted" Bearer realm="x"', []],
  ];

  it.each(cases)("%s", (_name, header, expected) => {
    expect(parseWwwAuthenticate(header)).toEqual(expected);
  });

  it("parses the RFC 6750 §3 example with a resource_metadata from RFC 9728 §5.1", () => {
    const header =
      'Bearer realm="example", error="insufficient_scope", error_description="The request requires higher privileges", ' +
      'scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"';
    const [bearer, ...rest] = parseWwwAuthenticate(header);
    expect(rest).toEqual([]);
    expect(bearer).toEqual({
      scheme: "bearer",
      params: {
        realm: "example",
        error: "insufficient_scope",
        error_description: "The request requires higher privileges",
        scope: "files:read files:write",
        resource_metadata: "https://mcp.example.com/.well-known/oauth-protected-resource",
      },
    });
  });
});

describe("challengeOf", () => {
  const challenges = parseWwwAuthenticate('Basic realm="a", Bearer error="first", DPoP algs="ES256", Bearer error="second"');

  it.each([
    ["bearer", "first"],
    ["BEARER", "first"],
    ["Basic", undefined],
  ])("finds the first %s challenge", (scheme, error) => {
    const found = challengeOf(challenges, scheme);
    expect(found).toBeDefined();
    expect(found!.params.error).toBe(error);
  });

  it("finds DPoP case-insensitively and nothing for an absent scheme", () => {
    expect(challengeOf(challenges, "dpop")?.params.algs).toBe("ES256");
    expect(challengeOf(challenges, "Negotiate")).toBeUndefined();
    expect(challengeOf([], "bearer")).toBeUndefined();
  });
});
