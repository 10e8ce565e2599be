/**
 * The options of the machine flows, checked when the flow is made: every wrong option fails
 * there with a TypeError that names the flow and the option, never at the first token request.
 */
import { describe, expect, it } from "vitest";
import {
  clientCredentials,
  enterpriseManaged,
  memoryTokenStore,
  workloadIdentity,
  type ClientCredentialsOptions,
  type EnterpriseManagedOptions,
  type WorkloadIdentityOptions,
} from "../../src/index.js";
import { isAuthProvider } from "../../src/transport/http/auth-provider.js";

const PEM = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----";
const JWK = { kty: "EC", crv: "P-256", x: "x", y: "y", d: "d" };

const flows = {
  clientCredentials: (options: unknown) => clientCredentials(options as ClientCredentialsOptions),
  workloadIdentity: (options: unknown) => workloadIdentity(options as WorkloadIdentityOptions),
  enterpriseManaged: (options: unknown) => enterpriseManaged(options as EnterpriseManagedOptions),
};
type Flow = keyof typeof flows;

const valid: Record<Flow, Record<string, unknown>> = {
  clientCredentials: { clientId: "machine", clientSecret: "s3cret" },
  workloadIdentity: { assertion: "eyJ.workload.jwt" },
  enterpriseManaged: { idToken: "eyJ.id.token", idpTokenEndpoint: "https://idp.example.com/oauth2/token", idpClientId: "idp-client", clientId: "mcp-client" },
};

function refused(flow: Flow, options: unknown): TypeError {
  try {
    flows[flow](options);
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message.startsWith(`${flow}(): `)).toBe(true);
    return error as TypeError;
  }
  throw new Error(`expected ${flow}() to refuse its options`);
}

describe("machine flow options", () => {
  it.each([
    ["clientCredentials", { clientId: "m", clientSecret: "s" }],
    ["clientCredentials", { clientId: "m", privateKey: PEM, signingAlgorithm: "ES256", scope: "a b", dpop: true, maxStepUps: 0, store: memoryTokenStore() }],
    ["clientCredentials", { clientId: "m", privateKey: JWK, dpop: false }],
    ["workloadIdentity", { assertion: "jwt" }],
    ["workloadIdentity", { clientId: "m", assertion: (): string => "jwt", dpop: true }],
    ["workloadIdentity", { assertion: async (): Promise<string> => "jwt" }],
    ["workloadIdentity", { assertion: { file: "/var/run/secrets/tokens/mcp" } }],
    ["enterpriseManaged", { ...valid.enterpriseManaged, idpClientSecret: "i", clientSecret: "c", idToken: () => "id", dpop: true }],
    ["enterpriseManaged", { ...valid.enterpriseManaged, idToken: { file: "/var/run/secrets/id-token" } }],
  ] as const)("%s makes an AuthProvider from %j", (flow, options) => {
    expect(isAuthProvider(flows[flow](options))).toBe(true);
  });

  it.each([
    ["clientCredentials", "clientSecrett", "clientSecret"],
    ["clientCredentials", "clientID", "clientId"],
    ["clientCredentials", "privatekey", "privateKey"],
    ["clientCredentials", "signingAlg", undefined],
    ["clientCredentials", "dPoP", "dpop"],
    ["workloadIdentity", "assertin", "assertion"],
    ["workloadIdentity", "scopes", "scope"],
    ["enterpriseManaged", "idpTokenEndPoint", "idpTokenEndpoint"],
    ["enterpriseManaged", "idToken_", "idToken"],
    ["enterpriseManaged", "idpClientSecet", "idpClientSecret"],
  ] as const)("%s refuses the unknown key %s (did you mean %s)", (flow, key, suggestion) => {
    const error = refused(flow, { ...valid[flow], [key]: "x" });
    expect(error.message).toContain(`"${key}" is not an option`);
    if (suggestion === undefined) expect(error.message).not.toContain("did you mean");
    else expect(error.message).toContain(`(did you mean "${suggestion}"?)`);
  });

  it.each(["clientCredentials", "workloadIdentity", "enterpriseManaged"] as const)("%s refuses options that are not an object", (flow) => {
    for (const options of [undefined, null, "x", ["a"]]) refused(flow, options);
  });

  it.each([
    ["clientCredentials", "clientId"],
    ["workloadIdentity", "assertion"],
    ["enterpriseManaged", "idToken"],
    ["enterpriseManaged", "idpTokenEndpoint"],
    ["enterpriseManaged", "idpClientId"],
    ["enterpriseManaged", "clientId"],
  ] as const)("%s refuses a missing or empty %s", (flow, name) => {
    const { [name]: _dropped, ...rest } = valid[flow];
    expect(refused(flow, rest).message).toContain(`"${name}"`);
    expect(refused(flow, { ...rest, [name]: "" }).message).toContain(`"${name}"`);
    expect(refused(flow, { ...rest, [name]: 42 }).message).toContain(`"${name}"`);
  });

  it("clientCredentials refuses clientSecret together with privateKey, and neither", () => {
    expect(refused("clientCredentials", { clientId: "m", clientSecret: "s", privateKey: PEM }).message).toMatch(/exactly one of "clientSecret" and "privateKey"/);
    expect(refused("clientCredentials", { clientId: "m" }).message).toMatch(/exactly one of "clientSecret" and "privateKey"/);
  });

  it("clientCredentials refuses signingAlgorithm without privateKey, and an empty one", () => {
    expect(refused("clientCredentials", { clientId: "m", clientSecret: "s", signingAlgorithm: "ES256" }).message).toMatch(/"signingAlgorithm" goes with "privateKey"/);
    expect(refused("clientCredentials", { clientId: "m", privateKey: PEM, signingAlgorithm: "" }).message).toContain('"signingAlgorithm"');
  });

  it("clientCredentials refuses a privateKey that is neither a PEM nor a JWK, without showing it", () => {
    for (const privateKey of ["key-material-that-is-no-pem", { d: "jwk-without-kty" }, 42, null]) {
      const error = refused("clientCredentials", { clientId: "m", privateKey });
      expect(error.message).toContain('"privateKey"');
      expect(error.message).not.toContain("key-material-that-is-no-pem");
      expect(error.message).not.toContain("jwk-without-kty");
    }
  });

  it("clientCredentials refuses an empty or non-string clientSecret", () => {
    expect(refused("clientCredentials", { clientId: "m", clientSecret: "" }).message).toContain('"clientSecret"');
    expect(refused("clientCredentials", { clientId: "m", clientSecret: { value: "s" } }).message).toContain('"clientSecret"');
  });

  it.each([
    ["an empty file", { file: "" }],
    ["a file with another key", { file: "/var/run/token", extra: true }],
    ["a file that is not a string", { file: 42 }],
    ["an object without file", { path: "/var/run/token" }],
    ["an empty string", ""],
    ["a number", 42],
    ["null", null],
  ])("workloadIdentity refuses %s as the assertion", (_name, assertion) => {
    expect(refused("workloadIdentity", { assertion }).message).toContain('"assertion"');
  });

  it.each([
    ["an empty file", { file: "" }],
    ["a file with another key", { file: "/var/run/id-token", extra: true }],
    ["an empty string", ""],
  ])("enterpriseManaged refuses %s as the idToken", (_name, idToken) => {
    expect(refused("enterpriseManaged", { ...valid.enterpriseManaged, idToken }).message).toContain('"idToken"');
  });

  it.each(["not a url", "/relative/token", ""])("enterpriseManaged refuses the idpTokenEndpoint %j", (idpTokenEndpoint) => {
    expect(refused("enterpriseManaged", { ...valid.enterpriseManaged, idpTokenEndpoint }).message).toContain('"idpTokenEndpoint"');
  });

  it.each([
    ["enterpriseManaged", "idpClientSecret"],
    ["enterpriseManaged", "clientSecret"],
    ["workloadIdentity", "clientId"],
    ["clientCredentials", "scope"],
  ] as const)("%s refuses an empty %s", (flow, name) => {
    expect(refused(flow, { ...valid[flow], [name]: "" }).message).toContain(`"${name}"`);
  });

  it.each(["clientCredentials", "workloadIdentity", "enterpriseManaged"] as const)("%s refuses a dpop that is not a boolean", (flow) => {
    for (const dpop of ["yes", 1, "true", {}]) expect(refused(flow, { ...valid[flow], dpop }).message).toContain('"dpop" must be true or false');
  });

  it.each(["clientCredentials", "workloadIdentity", "enterpriseManaged"] as const)("%s refuses a bad maxStepUps and a store that is no TokenStore", (flow) => {
    expect(refused(flow, { ...valid[flow], maxStepUps: -1 }).message).toContain('"maxStepUps"');
    expect(refused(flow, { ...valid[flow], maxStepUps: 1.5 }).message).toContain('"maxStepUps"');
    expect(refused(flow, { ...valid[flow], store: { get() {} } }).message).toContain('"store"');
  });
});
