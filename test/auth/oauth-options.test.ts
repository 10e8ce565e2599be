/**
 * The options of `oauth()`, checked when it is called: every wrong option fails there, with a
 * message naming it, never in the middle of a login.
 */
import { describe, expect, it } from "vitest";
import { checkOAuthOptions, DEFAULT_MAX_STEP_UPS, type OAuthOptions } from "../../src/auth/oauth-options.js";
import { oauth } from "../../src/auth/oauth.js";
import { fileTokenStore, memoryTokenStore } from "../../src/auth/token-store.js";
import { isAuthProvider } from "../../src/transport/http/auth-provider.js";

const authorize: OAuthOptions["authorize"] = async () => "http://127.0.0.1/callback?code=x&state=y";

function refused(options: unknown): TypeError {
  try {
    oauth(options as OAuthOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^oauth\(\): /);
    return error as TypeError;
  }
  throw new Error("expected oauth() to refuse its options");
}

describe("oauth() options", () => {
  it("makes an AuthProvider from valid options", () => {
    const provider = oauth({
      authorize,
      clientId: "client",
      clientSecret: "secret",
      clientMetadataUrl: "https://example.com/client.json",
      clientName: "tests",
      scope: "a b",
      redirectUri: "http://127.0.0.1:8765/callback",
      store: memoryTokenStore(),
      maxStepUps: 0,
    });
    expect(isAuthProvider(provider)).toBe(true);
  });

  it.each([
    ["clientID", "clientId"],
    ["clientSecrett", "clientSecret"],
    ["redirectURI", "redirectUri"],
    ["scopes", "scope"],
    ["authorise", "authorize"],
    ["maxStepUp", "maxStepUps"],
  ])("refuses the unknown key %s with did-you-mean %s", (key, suggestion) => {
    const error = refused({ authorize, [key]: "x" });
    expect(error.message).toContain(`"${key}" is not an option`);
    expect(error.message).toContain(`(did you mean "${suggestion}"?)`);
    expect(error.message).toContain("the options are clientId, clientSecret");
  });

  it("refuses an unknown key far from every name without a guess", () => {
    const error = refused({ authorize, somethingElseEntirely: 1 });
    expect(error.message).toContain('"somethingElseEntirely" is not an option');
    expect(error.message).not.toContain("did you mean");
  });

  it.each([
    ["no options", undefined],
    ["null", null],
    ["an array", []],
    ["a string", "authorize"],
  ])("refuses %s", (_name, options) => {
    expect(refused(options).message).toContain("options must be an object");
  });

  it.each([
    ["missing", {}],
    ["a string", { authorize: "https://example.com" }],
    ["undefined", { authorize: undefined }],
  ])("refuses an authorize that is %s", (_name, options) => {
    expect(refused(options).message).toContain('"authorize" must be a function');
  });

  it.each(["clientId", "clientSecret", "clientMetadataUrl", "clientName", "scope"])("refuses an empty or non-string %s", (name) => {
    const base = name === "clientSecret" ? { authorize, clientId: "c" } : { authorize };
    expect(refused({ ...base, [name]: "" }).message).toContain(`"${name}" must be a non-empty string`);
    expect(refused({ ...base, [name]: 42 }).message).toContain(`"${name}" must be a non-empty string`);
  });

  it("refuses a clientSecret without its clientId", () => {
    expect(refused({ authorize, clientSecret: "secret" }).message).toContain('"clientSecret" needs the "clientId"');
  });

  it.each([
    ["http", "http://example.com/client.json"],
    ["no path", "https://example.com"],
    ["only a slash for a path", "https://example.com/"],
    ["a fragment", "https://example.com/client.json#x"],
    ["not a URL", "client.json"],
    ["another scheme", "ftp://example.com/client.json"],
  ])("refuses a clientMetadataUrl with %s", (_name, url) => {
    expect(refused({ authorize, clientMetadataUrl: url }).message).toContain('"clientMetadataUrl" must be an https URL with a path');
  });

  it("accepts an https clientMetadataUrl with a path", () => {
    expect(() => oauth({ authorize, clientMetadataUrl: "https://example.com/oauth/client-metadata.json" })).not.toThrow();
  });

  it.each([
    ["a host off loopback", "http://example.com/callback"],
    ["https on loopback", "https://127.0.0.1:8765/callback"],
    ["a private address", "http://192.168.1.10:8765/callback"],
    ["a host that only starts like loopback", "http://127.0.0.1.example.com/callback"],
    ["a fragment", "http://127.0.0.1:8765/callback#x"],
    ["a custom scheme", "com.example.app:/callback"],
    ["not a URL", "callback"],
  ])("refuses a redirectUri with %s", (_name, redirectUri) => {
    expect(refused({ authorize, redirectUri }).message).toContain('"redirectUri" must be');
  });

  it.each(["http://127.0.0.1:8765/callback", "http://127.0.0.1/callback", "http://127.1.2.3:1/cb", "http://[::1]:8765/callback", "http://localhost:8765/callback"])(
    "accepts the loopback redirectUri %s",
    (redirectUri) => {
      expect(() => oauth({ authorize, redirectUri })).not.toThrow();
    },
  );

  it("accepts a redirectUri function and refuses any other kind", () => {
    expect(() => oauth({ authorize, redirectUri: () => "http://127.0.0.1:1/cb" })).not.toThrow();
    expect(refused({ authorize, redirectUri: 8765 }).message).toContain('"redirectUri" must be a loopback URL or a function');
  });

  it.each([
    ["an empty object", {}],
    ["one without delete", { get: () => undefined, set: () => {} }],
    ["one whose get is not a function", { get: 1, set: () => {}, delete: () => {} }],
    ["null", null],
    ["a path", "/tmp/tokens"],
  ])("refuses a store that is %s", (_name, store) => {
    expect(refused({ authorize, store }).message).toContain('"store" must be a TokenStore');
  });

  it("accepts the file store and a hand-written one", () => {
    expect(() => oauth({ authorize, store: fileTokenStore("/nonexistent/never-written") })).not.toThrow();
    expect(() => oauth({ authorize, store: { get: () => undefined, set: () => {}, delete: () => {} } })).not.toThrow();
  });

  it.each([-1, 11, 1.5, Number.NaN, Infinity, "2", null])("refuses maxStepUps %s", (maxStepUps) => {
    const error = refused({ authorize, maxStepUps });
    expect(error.message).toContain('"maxStepUps" must be a whole number from 0 to 10');
  });

  it.each([0, 1, 10])("accepts maxStepUps %s and keeps it", (maxStepUps) => {
    expect(checkOAuthOptions({ authorize, maxStepUps }).maxStepUps).toBe(maxStepUps);
  });

  it("defaults maxStepUps", () => {
    expect(checkOAuthOptions({ authorize }).maxStepUps).toBe(DEFAULT_MAX_STEP_UPS);
  });
});
