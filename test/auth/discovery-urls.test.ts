/**
 * The URL rules of discovery: which protected resource metadata URLs (RFC 9728 §3.1) and
 * authorization server metadata URLs (RFC 8414 §3.1, basic/authorization "Authorization Server
 * Metadata Discovery") are tried and in which order, which resource metadata may speak for a
 * server, the canonical server URI, and the checks of an authorization server's document.
 */
import { describe, expect, it } from "vitest";
import {
  authorizationServerMetadataUrls,
  canonicalResource,
  checkAuthorizationServerMetadata,
  checkPkceSupport,
  resourceCovers,
  resourceMetadataUrls,
  type AuthorizationServerMetadata,
} from "../../src/auth/discovery.js";
import { McpTransportError } from "../../src/errors.js";

const hrefs = (urls: URL[]) => urls.map((url) => url.href);

function thrown(run: () => unknown): McpTransportError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(McpTransportError);
    return error as McpTransportError;
  }
  throw new Error("expected a failure");
}

describe("resourceMetadataUrls", () => {
  const cases: [string, string, string | undefined, string[]][] = [
    [
      "challenge URL first, then path-aware, then root",
      "https://example.com/public/mcp",
      "https://example.com/meta/mcp.json",
      [
        "https://example.com/meta/mcp.json",
        "https://example.com/.well-known/oauth-protected-resource/public/mcp",
        "https://example.com/.well-known/oauth-protected-resource",
      ],
    ],
    [
      "without a challenge URL: path-aware, then root",
      "https://example.com/public/mcp",
      undefined,
      ["https://example.com/.well-known/oauth-protected-resource/public/mcp", "https://example.com/.well-known/oauth-protected-resource"],
    ],
    ["a server at the root: the root URL only", "https://example.com/", undefined, ["https://example.com/.well-known/oauth-protected-resource"]],
    ["a server at the root without a slash", "https://example.com", undefined, ["https://example.com/.well-known/oauth-protected-resource"]],
    [
      "a trailing slash on the server path is not carried into the well-known URL",
      "https://example.com/mcp/",
      undefined,
      ["https://example.com/.well-known/oauth-protected-resource/mcp", "https://example.com/.well-known/oauth-protected-resource"],
    ],
    [
      "the query stays after the path (RFC 9728 §3.1)",
      "https://example.com/mcp?tenant=a",
      undefined,
      ["https://example.com/.well-known/oauth-protected-resource/mcp?tenant=a", "https://example.com/.well-known/oauth-protected-resource"],
    ],
    [
      "the port is kept",
      "http://127.0.0.1:8080/mcp",
      undefined,
      ["http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp", "http://127.0.0.1:8080/.well-known/oauth-protected-resource"],
    ],
    [
      "a challenge URL equal to the path-aware one is not tried twice",
      "https://example.com/mcp",
      "https://example.com/.well-known/oauth-protected-resource/mcp",
      ["https://example.com/.well-known/oauth-protected-resource/mcp", "https://example.com/.well-known/oauth-protected-resource"],
    ],
    [
      "a challenge URL equal to the root one stays first and is not tried twice",
      "https://example.com/mcp",
      "https://example.com/.well-known/oauth-protected-resource",
      ["https://example.com/.well-known/oauth-protected-resource", "https://example.com/.well-known/oauth-protected-resource/mcp"],
    ],
    [
      "a root server whose challenge names the root URL: one URL",
      "https://example.com/",
      "https://example.com/.well-known/oauth-protected-resource",
      ["https://example.com/.well-known/oauth-protected-resource"],
    ],
    [
      "an unusable challenge URL is skipped",
      "https://example.com/mcp",
      "http://[not-a-host",
      ["https://example.com/.well-known/oauth-protected-resource/mcp", "https://example.com/.well-known/oauth-protected-resource"],
    ],
  ];

  it.each(cases)("%s", (_name, server, fromChallenge, expected) => {
    expect(hrefs(resourceMetadataUrls(new URL(server), fromChallenge))).toEqual(expected);
  });
});

describe("authorizationServerMetadataUrls", () => {
  const cases: [string, string, string[]][] = [
    [
      "an issuer with a path: the three path-aware URLs in the specification's order",
      "https://auth.example.com/tenant1",
      [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration",
      ],
    ],
    [
      "an issuer with a path and a trailing slash: the slash is removed first (RFC 8414 §3.1)",
      "https://auth.example.com/tenant1/",
      [
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
        "https://auth.example.com/.well-known/openid-configuration/tenant1",
        "https://auth.example.com/tenant1/.well-known/openid-configuration",
      ],
    ],
    [
      "an issuer with a deeper path",
      "https://auth.example.com/realms/a",
      [
        "https://auth.example.com/.well-known/oauth-authorization-server/realms/a",
        "https://auth.example.com/.well-known/openid-configuration/realms/a",
        "https://auth.example.com/realms/a/.well-known/openid-configuration",
      ],
    ],
    [
      "an issuer without a path: the two root forms",
      "https://auth.example.com",
      ["https://auth.example.com/.well-known/oauth-authorization-server", "https://auth.example.com/.well-known/openid-configuration"],
    ],
    [
      "an issuer with only a trailing slash: the two root forms",
      "https://auth.example.com/",
      ["https://auth.example.com/.well-known/oauth-authorization-server", "https://auth.example.com/.well-known/openid-configuration"],
    ],
    [
      "a loopback issuer with a port",
      "http://127.0.0.1:9000",
      ["http://127.0.0.1:9000/.well-known/oauth-authorization-server", "http://127.0.0.1:9000/.well-known/openid-configuration"],
    ],
  ];

  it.each(cases)("%s", (_name, issuer, expected) => {
    expect(hrefs(authorizationServerMetadataUrls(issuer))).toEqual(expected);
  });

  it("never tries the root form for an issuer with a path", () => {
    const urls = hrefs(authorizationServerMetadataUrls("https://auth.example.com/tenant1"));
    expect(urls).not.toContain("https://auth.example.com/.well-known/oauth-authorization-server");
    expect(urls).not.toContain("https://auth.example.com/.well-known/openid-configuration");
  });
});

describe("resourceCovers", () => {
  const cases: [string, string, string, boolean][] = [
    ["equal", "https://example.com/api/mcp", "https://example.com/api/mcp", true],
    ["equal but for the server's trailing slash", "https://example.com/api/mcp", "https://example.com/api/mcp/", true],
    ["a prefix on a segment boundary", "https://example.com/api", "https://example.com/api/mcp", true],
    ["a prefix with a trailing slash", "https://example.com/api/", "https://example.com/api/mcp", true],
    ["the origin covers every path", "https://example.com", "https://example.com/api/mcp", true],
    ["the origin with a slash covers every path", "https://example.com/", "https://example.com/api/mcp", true],
    ["host case does not matter (URLs lower-case it)", "https://EXAMPLE.com/api", "https://example.com/api/mcp", true],
    ["a prefix that is not on a segment boundary", "https://example.com/api", "https://example.com/apix", false],
    ["a prefix that is not on a segment boundary, deeper", "https://example.com/api", "https://example.com/apix/mcp", false],
    ["a longer path than the server's", "https://example.com/api/mcp", "https://example.com/api", false],
    ["a sibling path", "https://example.com/other", "https://example.com/api/mcp", false],
    ["path case matters", "https://example.com/API", "https://example.com/api/mcp", false],
    ["another host", "https://other.example.com/api", "https://example.com/api/mcp", false],
    ["another subdomain of the same name", "https://evil.example.com", "https://example.com/api/mcp", false],
    ["another scheme", "http://example.com/api", "https://example.com/api/mcp", false],
    ["another port", "https://example.com:8443/api", "https://example.com/api/mcp", false],
    ["another port on loopback", "http://127.0.0.1:1234/mcp", "http://127.0.0.1:4321/mcp", false],
    // RFC 9728 §3.3: the resource must be identical to the URL the well-known URL was built from.
    ["a query identical to the server's", "https://example.com/api/mcp?tenant=a", "https://example.com/api/mcp?tenant=a", true],
    ["a query where the server has none", "https://example.com/api/mcp?tenant=a", "https://example.com/api/mcp", false],
    ["another query", "https://example.com/api/mcp?tenant=a", "https://example.com/api/mcp?tenant=b", false],
    ["a query on a prefix of the server's path", "https://example.com/api?tenant=a", "https://example.com/api/mcp?tenant=a", false],
    ["a query, the server's path with a trailing slash", "https://example.com/api/mcp?tenant=a", "https://example.com/api/mcp/?tenant=a", false],
    ["no query covers the server's with one (a prefix is path-only)", "https://example.com/api", "https://example.com/api/mcp?tenant=a", true],
    ["a fragment", "https://example.com/api/mcp#x", "https://example.com/api/mcp", false],
    ["not a URL", "example.com/api/mcp", "https://example.com/api/mcp", false],
    ["an empty string", "", "https://example.com/api/mcp", false],
  ];

  it.each(cases)("%s", (_name, resource, server, covers) => {
    expect(resourceCovers(resource, new URL(server))).toBe(covers);
  });
});

describe("canonicalResource", () => {
  const cases: [string, string][] = [
    ["https://mcp.example.com/mcp", "https://mcp.example.com/mcp"],
    ["HTTPS://MCP.Example.COM/mcp", "https://mcp.example.com/mcp"],
    ["https://mcp.example.com/", "https://mcp.example.com"],
    ["https://mcp.example.com", "https://mcp.example.com"],
    ["https://mcp.example.com:8443", "https://mcp.example.com:8443"],
    ["https://mcp.example.com:443/mcp", "https://mcp.example.com/mcp"],
    ["https://mcp.example.com/server/mcp", "https://mcp.example.com/server/mcp"],
    ["https://mcp.example.com/mcp#fragment", "https://mcp.example.com/mcp"],
    // The query may name the server (a tenant, RFC 8707 §2): two such servers never share tokens.
    ["https://mcp.example.com/mcp?tenant=a", "https://mcp.example.com/mcp?tenant=a"],
    ["https://mcp.example.com/?tenant=a#f", "https://mcp.example.com?tenant=a"],
    ["https://mcp.example.com/mcp?", "https://mcp.example.com/mcp"],
    ["http://127.0.0.1:3000/mcp", "http://127.0.0.1:3000/mcp"],
  ];

  it.each(cases)("%s → %s", (server, canonical) => {
    expect(canonicalResource(new URL(server))).toBe(canonical);
  });

  it("keeps the path's case (only scheme and host are case-insensitive)", () => {
    expect(canonicalResource(new URL("https://Example.com/MCP"))).toBe("https://example.com/MCP");
  });
});

describe("checkAuthorizationServerMetadata", () => {
  const issuer = "https://auth.example.com";
  const from = new URL("https://auth.example.com/.well-known/oauth-authorization-server");
  const good = (): AuthorizationServerMetadata => ({
    issuer,
    authorization_endpoint: "https://auth.example.com/authorize",
    token_endpoint: "https://auth.example.com/token",
    registration_endpoint: "https://auth.example.com/register",
    code_challenge_methods_supported: ["S256"],
    scopes_supported: ["a", "b"],
  });

  it("returns a document whose issuer equals the one the URL was built from", () => {
    const metadata = good();
    expect(checkAuthorizationServerMetadata(metadata, issuer, from)).toEqual(good());
  });

  it.each([
    ["a trailing slash added", "https://auth.example.com/"],
    ["host in another case", "https://Auth.example.com"],
    ["the default port written out", "https://auth.example.com:443"],
    ["another issuer", "https://other.example.com"],
    ["a path added", "https://auth.example.com/tenant1"],
  ])("refuses an issuer that differs as a string: %s", (_name, named) => {
    const error = thrown(() => checkAuthorizationServerMetadata({ ...good(), issuer: named }, issuer, from));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.authStep).toBe("discovery");
    expect(error.message).toContain("names another issuer");
  });

  it("refuses the issuer without the trailing slash the URL was built from", () => {
    const error = thrown(() => checkAuthorizationServerMetadata({ ...good(), issuer }, `${issuer}/`, from));
    expect(error.message).toContain("names another issuer");
  });

  it("refuses a document without a token_endpoint", () => {
    const { token_endpoint: _dropped, ...rest } = good();
    const error = thrown(() => checkAuthorizationServerMetadata(rest as AuthorizationServerMetadata, issuer, from));
    expect(error.message).toContain("no token_endpoint");
  });

  it.each([
    ["token_endpoint", "http://auth.example.com/token"],
    ["authorization_endpoint", "http://auth.example.com/authorize"],
    ["registration_endpoint", "http://auth.example.com/register"],
    ["token_endpoint", "not a url"],
  ])("refuses a plain-http or unusable %s off loopback", (field, value) => {
    const error = thrown(() => checkAuthorizationServerMetadata({ ...good(), [field]: value }, issuer, from));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.authStep).toBe("discovery");
  });

  it("accepts plain-http endpoints on loopback", () => {
    const local = "http://127.0.0.1:9000";
    const metadata = { ...good(), issuer: local, token_endpoint: `${local}/token`, authorization_endpoint: `${local}/authorize` };
    expect(checkAuthorizationServerMetadata(metadata, local, new URL(`${local}/.well-known/oauth-authorization-server`))).toBe(metadata);
  });

  it("drops list fields that are not lists of strings", () => {
    const metadata = checkAuthorizationServerMetadata(
      { ...good(), scopes_supported: "a b" as never, code_challenge_methods_supported: [1] as never, grant_types_supported: ["authorization_code"] },
      issuer,
      from,
    );
    expect(metadata.scopes_supported).toBeUndefined();
    expect(metadata.code_challenge_methods_supported).toBeUndefined();
    expect(metadata.grant_types_supported).toEqual(["authorization_code"]);
  });
});

describe("checkPkceSupport", () => {
  const base: AuthorizationServerMetadata = { issuer: "https://auth.example.com", token_endpoint: "https://auth.example.com/token" };

  it.each([
    ["S256 only", ["S256"]],
    ["plain and S256", ["plain", "S256"]],
  ])("accepts a server listing %s", (_name, methods) => {
    expect(() => checkPkceSupport({ ...base, code_challenge_methods_supported: methods }, false)).not.toThrow();
  });

  it.each([
    ["plain only", ["plain"]],
    ["an empty list", []],
    ["S256 in another case", ["s256"]],
    ["no list", undefined],
  ])("refuses a server listing %s", (_name, methods) => {
    const error = thrown(() => checkPkceSupport({ ...base, code_challenge_methods_supported: methods }, false));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.authStep).toBe("discovery");
    expect(error.message).toContain("S256");
  });

  it("does not ask the 2025-03-26 default endpoints (no document) to list it", () => {
    expect(() => checkPkceSupport(base, true)).not.toThrow();
  });
});
