/**
 * How the client authenticates at the token endpoint: the method chosen from the registration
 * and the server's `token_endpoint_auth_methods_supported` (RFC 8414 §2, default
 * client_secret_basic), and what each method puts in the request (RFC 6749 §2.3.1).
 */
import { describe, expect, it } from "vitest";
import { chooseAuthMethod, clientAuthentication, type TokenEndpointAuthMethod } from "../../src/auth/token-endpoint.js";
import type { StoredClient } from "../../src/auth/token-store.js";

/** application/x-www-form-urlencoded decoding of one value: `+` is a space, then percent-decoding. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, " "));
}

/** The id and secret of a Basic header, each form-decoded. */
function basicCredentials(header: string | undefined): { raw: string; id: string; secret: string } {
  expect(header).toMatch(/^Basic [A-Za-z0-9+/]+=*$/);
  const raw = Buffer.from(header!.slice("Basic ".length), "base64").toString("utf8");
  const parts = raw.split(":");
  expect(parts).toHaveLength(2);
  return { raw, id: formDecode(parts[0]!), secret: formDecode(parts[1]!) };
}

describe("chooseAuthMethod", () => {
  const basicAndPost = ["client_secret_basic", "client_secret_post"];
  const cases: [string, string[] | undefined, StoredClient, TokenEndpointAuthMethod][] = [
    ["the registered method when the server supports it", basicAndPost, { client_id: "c", client_secret: "s", token_endpoint_auth_method: "client_secret_post" }, "client_secret_post"],
    ["registered basic, supported", basicAndPost, { client_id: "c", client_secret: "s", token_endpoint_auth_method: "client_secret_basic" }, "client_secret_basic"],
    ["registered none, supported", ["none", "client_secret_basic"], { client_id: "c", token_endpoint_auth_method: "none" }, "none"],
    ["registered method the server does not list: basic next", ["client_secret_basic"], { client_id: "c", client_secret: "s", token_endpoint_auth_method: "client_secret_post" }, "client_secret_basic"],
    ["registered method the server does not list: post when basic is not listed either", ["client_secret_post"], { client_id: "c", client_secret: "s", token_endpoint_auth_method: "client_secret_basic" }, "client_secret_post"],
    ["registered method this client does not know", basicAndPost, { client_id: "c", client_secret: "s", token_endpoint_auth_method: "private_key_jwt" }, "client_secret_basic"],
    ["registered secret method without a secret", basicAndPost, { client_id: "c", token_endpoint_auth_method: "client_secret_post" }, "none"],
    ["a secret: client_secret_basic first", ["client_secret_post", "client_secret_basic"], { client_id: "c", client_secret: "s" }, "client_secret_basic"],
    ["a secret: client_secret_post when basic is not listed", ["client_secret_post", "none"], { client_id: "c", client_secret: "s" }, "client_secret_post"],
    ["no secret: none", basicAndPost, { client_id: "c" }, "none"],
    ["no secret, none listed: none", ["none"], { client_id: "c" }, "none"],
    ["a server listing no methods supports client_secret_basic", undefined, { client_id: "c", client_secret: "s" }, "client_secret_basic"],
    ["a server listing no methods: a registered post is not assumed", undefined, { client_id: "c", client_secret: "s", token_endpoint_auth_method: "client_secret_post" }, "client_secret_basic"],
    ["a server listing no methods, no secret: none", undefined, { client_id: "c" }, "none"],
  ];

  it.each(cases)("%s", (_name, supported, client, method) => {
    expect(chooseAuthMethod({ token_endpoint_auth_methods_supported: supported }, client)).toBe(method);
  });
});

describe("clientAuthentication", () => {
  it("client_secret_basic: base64 of the form-encoded id and secret joined by ':'", () => {
    const { headers, form } = clientAuthentication("client_secret_basic", { client_id: "my-client", client_secret: "s3cret" });
    expect(headers).toEqual({ authorization: `Basic ${Buffer.from("my-client:s3cret").toString("base64")}` });
    expect(form).toEqual({});
  });

  it.each([
    ["a ':' in the id and secret", "id:with:colons", "se:cret"],
    ["a '+' (which form decoding reads as a space)", "id+plus", "se+cret"],
    ["a space", "id with space", "se cret"],
    ["a '%'", "id%41", "100%"],
    ["all of them and UTF-8", "a:b+c d%e/é", "s:e+c r%t&=£€"],
  ])("client_secret_basic encodes %s so the server decodes exactly them (RFC 6749 §2.3.1)", (_name, id, secret) => {
    const { headers } = clientAuthentication("client_secret_basic", { client_id: id, client_secret: secret });
    const decoded = basicCredentials(headers.authorization);
    expect(decoded.id).toBe(id);
    expect(decoded.secret).toBe(secret);
  });

  it("client_secret_basic escapes ':', '+' and '%' rather than sending them raw", () => {
    const { headers } = clientAuthentication("client_secret_basic", { client_id: "a:b+c%d", client_secret: "e:f+g%h" });
    expect(basicCredentials(headers.authorization).raw).toBe("a%3Ab%2Bc%25d:e%3Af%2Bg%25h");
  });

  // RFC 6749 Appendix B's own example: a space is "+".
  it("client_secret_basic encodes the RFC 6749 Appendix B example exactly", () => {
    const { headers } = clientAuthentication("client_secret_basic", { client_id: "x", client_secret: " %&+£€" });
    expect(basicCredentials(headers.authorization).raw).toBe("x:+%25%26%2B%C2%A3%E2%82%AC");
  });

  it("client_secret_post puts the id and secret in the form, as they are, and no header", () => {
    const client = { client_id: "a:b+c d%", client_secret: "s:e+c r%t" };
    expect(clientAuthentication("client_secret_post", client)).toEqual({
      headers: {},
      form: { client_id: "a:b+c d%", client_secret: "s:e+c r%t" },
    });
  });

  it("none puts only the client_id in the form, never a secret", () => {
    const result = clientAuthentication("none", { client_id: "public-client", client_secret: "must-not-go" });
    expect(result).toEqual({ headers: {}, form: { client_id: "public-client" } });
    expect(JSON.stringify(result)).not.toContain("must-not-go");
  });
});
