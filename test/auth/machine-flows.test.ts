/**
 * The machine flows (`clientCredentials()`, `workloadIdentity()`, `enterpriseManaged()`) driven
 * through `connect()` against a scripted authorization server and an MCP endpoint that checks its
 * tokens, both real HTTP servers on 127.0.0.1: what each token request carries (grant, client
 * authentication, assertions, resource), tokens fetched before the first request, a rotated
 * assertion read again, refusals reported once and as the server said them, DPoP proofs and
 * nonces on both sides, and no credential in any error.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, exportJWK, exportPKCS8, generateKeyPair, jwtVerify, type JWK } from "jose";
import { clientCredentials, connect, enterpriseManaged, workloadIdentity, type AuthProvider, type McpClient } from "../../src/index.js";
import {
  ID_JAG,
  JWT_BEARER,
  TOKEN_EXCHANGE,
  startMachineAuthorizationServer,
  type MachineAuthServerOptions,
  type MachineAuthorizationServer,
  type MachineRequest,
} from "../fixtures/oauth/machine-authorization-server.js";
import { ath, startMachineProtectedEndpoint, type MachineEndpoint, type MachineEndpointOptions } from "../fixtures/oauth/machine-protected-endpoint.js";
import { failure, rejection } from "../helpers/failure.js";
import { everythingShown, keyPieces, leaksIn } from "../helpers/redaction.js";
import { closedAfterEach } from "../helpers/owned.js";

const CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

const own = closedAfterEach();

async function setUp(asOptions: MachineAuthServerOptions = {}, endpointOptions: MachineEndpointOptions = {}) {
  const as = own(await startMachineAuthorizationServer(asOptions));
  const endpoint = own(await startMachineProtectedEndpoint(as, endpointOptions));
  const connectWith = async (auth: AuthProvider): Promise<McpClient> => own(await connect(endpoint.url, { auth, fallback: false, timeoutMs: 20_000 }));
  return { as, endpoint, connectWith };
}

/** The client's GET stream goes out after the handshake: answered before a token is revoked, it is not refused too. */
const streamAnswered = (endpoint: MachineEndpoint) => endpoint.answered((request) => request.method === "GET" && request.path === "/mcp");
const mcpRequests = (endpoint: MachineEndpoint) => endpoint.requests.filter((request) => request.path === "/mcp");
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`, "utf8").toString("base64")}`;

/** Every credential that crossed the wire to an authorization server, and every token it issued. */
function wireSecrets(...servers: MachineAuthorizationServer[]): string[] {
  const secrets: string[] = [];
  for (const server of servers) {
    for (const request of server.tokenRequests) {
      for (const field of ["client_secret", "client_assertion", "assertion", "subject_token"]) {
        if (request.form[field] !== undefined) secrets.push(request.form[field]);
      }
      const authorization = request.headers.authorization;
      if (authorization !== undefined) secrets.push(authorization.replace(/^Basic /, ""));
    }
    for (const token of server.issued) secrets.push(token.access);
  }
  return secrets;
}

function expectNothingShown(error: unknown, secrets: readonly string[]): void {
  expect(secrets.length).toBeGreaterThan(0);
  for (const secret of secrets) expect(secret.length).toBeGreaterThanOrEqual(8);
  expect(leaksIn(secrets, [everythingShown(error)])).toEqual([]);
}

async function ecKeys() {
  const pair = await generateKeyPair("ES256", { extractable: true });
  return { ...pair, pem: await exportPKCS8(pair.privateKey), jwk: await exportJWK(pair.privateKey) };
}

describe("clientCredentials()", () => {
  it("fetches the token before the first MCP request, with Basic auth when the server lists client_secret_basic", async () => {
    const { as, endpoint, connectWith } = await setUp(
      { authMethods: ["client_secret_post", "client_secret_basic"] },
      { resource: (origin) => `${origin}/`, scopesSupported: ["mcp:tools"] },
    );
    const client = await connectWith(clientCredentials({ clientId: "machine-1", clientSecret: "cc-secret-basic-1" }));
    await client.callTool("echo", { text: "hi" });
    expect(as.tokenRequests).toHaveLength(1);
    const token = as.issued[0]!.access;
    // No MCP request went without the token: none was refused, none was sent bare.
    expect(endpoint.refusals).toEqual([]);
    const sent = mcpRequests(endpoint);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    for (const request of sent) expect(request.headers.authorization).toBe(`Bearer ${token}`);
    const request = as.tokenRequests[0]!;
    expect(request.headers.authorization).toBe(basic("machine-1", "cc-secret-basic-1"));
    expect(request.form.grant_type).toBe("client_credentials");
    expect(request.form.resource).toBe(`${endpoint.origin}/`);
    expect(request.form.scope).toBe("mcp:tools");
    expect(request.form).not.toHaveProperty("client_secret");
    expect(request.form).not.toHaveProperty("client_assertion");
    expect(request.headers).not.toHaveProperty("dpop");
  });

  it("uses client_secret_post when the server lists only that", async () => {
    const { as, endpoint, connectWith } = await setUp({ authMethods: ["client_secret_post"] });
    const client = await connectWith(clientCredentials({ clientId: "machine-2", clientSecret: "cc-secret-post-2" }));
    await client.callTool("echo", { text: "hi" });
    expect(as.tokenRequests).toHaveLength(1);
    const request = as.tokenRequests[0]!;
    expect(request.headers.authorization).toBeUndefined();
    expect(request.form).toMatchObject({ grant_type: "client_credentials", client_id: "machine-2", client_secret: "cc-secret-post-2", resource: endpoint.url });
    expect(endpoint.refusals).toEqual([]);
  });

  it("with a private key: a client assertion that verifies with the public key, aud the issuer, and no secret", async () => {
    const keys = await ecKeys();
    const { as, endpoint, connectWith } = await setUp({ authMethods: ["private_key_jwt"], signingAlgs: ["RS256", "ES256"] });
    const client = await connectWith(clientCredentials({ clientId: "machine-key", privateKey: keys.jwk as Record<string, unknown> }));
    await client.callTool("echo", { text: "hi" });
    expect(as.tokenRequests).toHaveLength(1);
    const request = as.tokenRequests[0]!;
    expect(request.form.grant_type).toBe("client_credentials");
    expect(request.form.client_id).toBe("machine-key");
    expect(request.form.client_assertion_type).toBe(CLIENT_ASSERTION_TYPE);
    expect(request.form).not.toHaveProperty("client_secret");
    expect(request.headers.authorization).toBeUndefined();
    expect(request.form.resource).toBe(endpoint.url);
    const assertion = request.form.client_assertion!;
    expect(decodeProtectedHeader(assertion).alg).toBe("ES256");
    const { payload } = await jwtVerify(assertion, keys.publicKey, { audience: as.issuer, issuer: "machine-key", subject: "machine-key" });
    expect(payload.aud).toBe(as.issuer);
    expect(endpoint.refusals).toEqual([]);
  });

  it("with a PEM private key and an explicit signingAlgorithm: the assertion verifies, aud the issuer", async () => {
    const keys = await ecKeys();
    const { as, connectWith } = await setUp({ authMethods: ["private_key_jwt"] });
    await connectWith(clientCredentials({ clientId: "machine-pem", privateKey: keys.pem, signingAlgorithm: "ES256" }));
    const request = as.tokenRequests[0]!;
    expect(request.form.client_assertion_type).toBe(CLIENT_ASSERTION_TYPE);
    await jwtVerify(request.form.client_assertion!, keys.publicKey, { audience: as.issuer, issuer: "machine-pem", subject: "machine-pem" });
  });

  it("a new assertion, with a new jti, for each token request", async () => {
    const keys = await ecKeys();
    const { as, endpoint, connectWith } = await setUp({ authMethods: ["private_key_jwt"], signingAlgs: ["ES256"] });
    const client = await connectWith(clientCredentials({ clientId: "machine-key", privateKey: keys.jwk as Record<string, unknown> }));
    await streamAnswered(endpoint);
    as.revoke(as.issued[0]!.access);
    await client.callTool("echo", { text: "again" });
    expect(as.tokenRequests).toHaveLength(2);
    const [one, two] = as.tokenRequests.map((request) => request.form.client_assertion!);
    expect(one).not.toBe(two);
    expect(decodeJwt(one!).jti).not.toBe(decodeJwt(two!).jti);
  });

  it.each(["invalid_grant", "invalid_scope", "unauthorized_client", "invalid_client"])(
    "a %s answer fails PROTOCOL at the token step with that oauthError, after exactly one token request",
    async (code) => {
      const { as, endpoint, connectWith } = await setUp({ authMethods: ["client_secret_basic"] });
      as.failWith(code);
      const error = await failure(connectWith(clientCredentials({ clientId: "machine-3", clientSecret: "cc-secret-refused-3" })));
      expect(error.reason).toBe("PROTOCOL");
      expect(error.authStep).toBe("token");
      expect(error.oauthError).toBe(code);
      // The eager flow failed before anything went to the MCP endpoint without a token.
      expect(mcpRequests(endpoint).filter((request) => request.headers.authorization === undefined)).toEqual([]);
      expectNothingShown(error, ["cc-secret-refused-3", ...wireSecrets(as)]);
      expect(new Set(as.tokenRequests.map((request) => request.form.grant_type))).toEqual(new Set(["client_credentials"]));
      expect(as.tokenRequests).toHaveLength(1);
    },
  );

  // basic/authorization (2025-06-18 on): the resource metadata URL of the 401's WWW-Authenticate
  // is one of the two discovery mechanisms a client MUST support; the server's origin as the
  // authorization server is only for 2025-03-26 servers without resource metadata.
  it("resource metadata named only in the 401's challenge: the first request goes without a token, and the secret goes to the authorization server the challenge names, never to the MCP server", async () => {
    const { as, endpoint, connectWith } = await setUp({ authMethods: ["client_secret_basic"] }, { metadataOnlyInChallenge: true });
    const client = await connectWith(clientCredentials({ clientId: "machine-challenge", clientSecret: "cc-secret-challenge-only" }));
    await client.callTool("echo", { text: "hi" });
    expect(as.tokenRequests).toHaveLength(1);
    expect(as.tokenRequests[0]!.headers.authorization).toBe(basic("machine-challenge", "cc-secret-challenge-only"));
    expect(endpoint.requests.filter((request) => request.method === "POST" && request.path !== "/mcp")).toEqual([]);
    expect(endpoint.refusals).toEqual(["no token"]);
    // The well-known URLs were asked once, before the first request, not again while it was refused.
    expect(endpoint.requests.filter((request) => request.path === "/.well-known/oauth-protected-resource/mcp")).toHaveLength(1);
    const received = endpoint.requests.map((request) => `${JSON.stringify(request.headers)}\n${request.text}`);
    expect(leaksIn(["cc-secret-challenge-only", basic("machine-challenge", "cc-secret-challenge-only")], received)).toEqual([]);
    expect(mcpRequests(endpoint).at(-1)!.headers.authorization).toBe(`Bearer ${as.issued[0]!.access}`);
  });

  it("a refusal after a 401 mid-session is reported once, without a retry", async () => {
    const { as, endpoint, connectWith } = await setUp();
    const client = await connectWith(clientCredentials({ clientId: "machine-4", clientSecret: "cc-secret-later-4" }));
    await streamAnswered(endpoint);
    as.revoke(as.issued[0]!.access);
    as.failWith("invalid_client", 401);
    const error = await failure(client.callTool("echo", { text: "x" }));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.authStep).toBe("token");
    expect(error.oauthError).toBe("invalid_client");
    expect(as.tokenRequests).toHaveLength(2);
    expectNothingShown(error, ["cc-secret-later-4", ...wireSecrets(as)]);
  });

  it("a private key of no algorithm the server takes: PROTOCOL at the token step, nothing sent, no key in the error", async () => {
    const keys = await ecKeys();
    const { as, connectWith } = await setUp({ authMethods: ["private_key_jwt"], signingAlgs: ["RS256", "PS256"] });
    const error = await failure(connectWith(clientCredentials({ clientId: "machine-5", privateKey: keys.jwk as Record<string, unknown> })));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.authStep).toBe("token");
    expect(as.tokenRequests).toHaveLength(0);
    expectNothingShown(error, keyPieces(keys.jwk));
  });

  it("a refused private_key_jwt request shows neither the key (PEM or JWK) nor the assertion", async () => {
    const keys = await ecKeys();
    for (const privateKey of [keys.jwk as Record<string, unknown>, keys.pem]) {
      const { as, connectWith } = await setUp({ authMethods: ["private_key_jwt"], signingAlgs: ["ES256"] });
      as.failWith("invalid_client", 401);
      const error = await failure(connectWith(clientCredentials({ clientId: "machine-6", privateKey, signingAlgorithm: "ES256" })));
      expect(error.oauthError).toBe("invalid_client");
      expect(as.tokenRequests).toHaveLength(1);
      expect(as.tokenRequests[0]!.form.client_assertion).toBeDefined();
      expectNothingShown(error, [...keyPieces(keys.jwk), ...keyPieces(keys.pem), ...wireSecrets(as)]);
    }
  });
});

describe("workloadIdentity()", () => {
  it("reads { file } at every token request: a rotated file is what the next token request carries", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mcpwire-workload-"));
    own({ close: () => rm(dir, { recursive: true, force: true }) });
    const file = join(dir, "token");
    await writeFile(file, "workload-jwt-one-secret\n");
    const { as, endpoint, connectWith } = await setUp();
    const client = await connectWith(workloadIdentity({ clientId: "workload-1", assertion: { file } }));
    expect(as.tokenRequests).toHaveLength(1);
    const first = as.tokenRequests[0]!;
    expect(first.form).toMatchObject({ grant_type: JWT_BEARER, assertion: "workload-jwt-one-secret", client_id: "workload-1", resource: endpoint.url });
    expect(first.headers.authorization).toBeUndefined();
    expect(first.form).not.toHaveProperty("client_secret");

    await writeFile(file, "workload-jwt-two-secret\n");
    // The endpoint refuses the current token once: the 401 makes one more token request.
    await streamAnswered(endpoint);
    as.revoke(as.issued[0]!.access);
    await client.callTool("echo", { text: "after rotation" });
    expect(as.tokenRequests).toHaveLength(2);
    expect(as.tokenRequests[1]!.form).toMatchObject({ grant_type: JWT_BEARER, assertion: "workload-jwt-two-secret" });
    expect(endpoint.refusals).toEqual(["no token"]);
    expect(mcpRequests(endpoint).at(-1)!.headers.authorization).toBe(`Bearer ${as.issued[1]!.access}`);
    expect(readFileSync(file, "utf8")).toBe("workload-jwt-two-secret\n");
  });

  it("resource metadata named only in the 401's challenge: the workload JWT never reaches the MCP server", async () => {
    const { as, endpoint, connectWith } = await setUp({}, { metadataOnlyInChallenge: true });
    const client = await connectWith(workloadIdentity({ assertion: "workload-jwt-challenge-only" }));
    await client.callTool("echo", { text: "hi" });
    expect(as.tokenRequests.map((request) => request.form.assertion)).toEqual(["workload-jwt-challenge-only"]);
    expect(endpoint.requests.filter((request) => request.method === "POST" && request.path !== "/mcp")).toEqual([]);
    const received = endpoint.requests.map((request) => `${JSON.stringify(request.headers)}\n${request.text}`);
    expect(leaksIn(["workload-jwt-challenge-only"], received)).toEqual([]);
  });

  it("calls a function source once per token request", async () => {
    let calls = 0;
    const { as, endpoint, connectWith } = await setUp();
    const client = await connectWith(workloadIdentity({ assertion: async () => `workload-jwt-call-${++calls}` }));
    expect(calls).toBe(1);
    await client.callTool("echo", { text: "one" });
    expect(calls).toBe(1);
    await streamAnswered(endpoint);
    as.revoke(as.issued[0]!.access);
    await client.callTool("echo", { text: "two" });
    expect(calls).toBe(2);
    expect(as.tokenRequests.map((request) => request.form.assertion)).toEqual(["workload-jwt-call-1", "workload-jwt-call-2"]);
    expect(as.tokenRequests[0]!.form).not.toHaveProperty("client_id");
  });

  it("an invalid_grant answer fails PROTOCOL at the token step after one request, without the workload JWT", async () => {
    const { as, connectWith } = await setUp();
    as.failWith("invalid_grant");
    const error = await failure(connectWith(workloadIdentity({ assertion: "workload-jwt-refused-secret" })));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.authStep).toBe("token");
    expect(error.oauthError).toBe("invalid_grant");
    expect(as.tokenRequests[0]!.form.grant_type).toBe(JWT_BEARER);
    expectNothingShown(error, ["workload-jwt-refused-secret", ...wireSecrets(as)]);
    expect(as.tokenRequests).toHaveLength(1);
  });

  it("a file that cannot be read fails at the token step, nothing sent", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mcpwire-workload-"));
    own({ close: () => rm(dir, { recursive: true, force: true }) });
    const { as, connectWith } = await setUp();
    const error = await failure(connectWith(workloadIdentity({ assertion: { file: join(dir, "missing") } })));
    expect(error.authStep).toBe("token");
    expect(as.tokenRequests).toHaveLength(0);
  });
});

describe("enterpriseManaged()", () => {
  it("exchanges the ID token at the identity provider for an ID-JAG, then makes the jwt-bearer grant with it", async () => {
    const idp = own(await startMachineAuthorizationServer());
    const { as, endpoint, connectWith } = await setUp({ authMethods: ["client_secret_basic"] });
    let calls = 0;
    const client = await connectWith(
      enterpriseManaged({
        idToken: () => `id-token-${++calls}-secret`,
        idpTokenEndpoint: idp.tokenEndpoint,
        idpClientId: "idp-client",
        idpClientSecret: "idp-client-secret",
        clientId: "mcp-client",
        clientSecret: "mcp-client-secret",
      }),
    );
    await client.callTool("echo", { text: "hi" });
    expect(calls).toBe(1);
    expect(idp.tokenRequests).toHaveLength(1);
    const exchange = idp.tokenRequests[0]!;
    expect(exchange.form).toMatchObject({
      grant_type: TOKEN_EXCHANGE,
      requested_token_type: ID_JAG,
      subject_token: "id-token-1-secret",
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      audience: as.issuer,
      resource: endpoint.url,
    });
    expect(exchange.headers.authorization).toBe(basic("idp-client", "idp-client-secret"));
    expect(as.tokenRequests).toHaveLength(1);
    const grant = as.tokenRequests[0]!;
    expect(grant.form.grant_type).toBe(JWT_BEARER);
    expect(grant.form.assertion).toMatch(/^id-jag-\d+-secret$/);
    expect(grant.form.resource).toBe(endpoint.url);
    expect(grant.headers.authorization).toBe(basic("mcp-client", "mcp-client-secret"));
    expect(grant.form).not.toHaveProperty("subject_token");
    expect(endpoint.refusals).toEqual([]);
    for (const request of mcpRequests(endpoint)) expect(request.headers.authorization).toBe(`Bearer ${as.issued[0]!.access}`);
    // Nothing of the identity provider went to the authorization server, nor the other way.
    expect(JSON.stringify(as.requests)).not.toContain("id-token-1-secret");
    expect(JSON.stringify(as.requests)).not.toContain("idp-client-secret");
    expect(JSON.stringify(idp.requests)).not.toContain("mcp-client-secret");

    // A new token needs a new ID token: the function is called again.
    await streamAnswered(endpoint);
    as.revoke(as.issued[0]!.access);
    await client.callTool("echo", { text: "again" });
    expect(calls).toBe(2);
    expect(idp.tokenRequests.map((request) => request.form.subject_token)).toEqual(["id-token-1-secret", "id-token-2-secret"]);
    expect(as.tokenRequests).toHaveLength(2);
    expect(as.tokenRequests[1]!.form.assertion).not.toBe(as.tokenRequests[0]!.form.assertion);
  });

  it("a refusal at the identity provider fails PROTOCOL at the token step, nothing sent to the authorization server, no secret shown", async () => {
    const idp = own(await startMachineAuthorizationServer());
    idp.failWith("invalid_grant");
    const { as, connectWith } = await setUp();
    const error = await failure(
      connectWith(
        enterpriseManaged({
          idToken: "id-token-refused-secret",
          idpTokenEndpoint: idp.tokenEndpoint,
          idpClientId: "idp-client",
          idpClientSecret: "idp-client-secret-2",
          clientId: "mcp-client",
          clientSecret: "mcp-client-secret-2",
        }),
      ),
    );
    expect(error.reason).toBe("PROTOCOL");
    expect(error.authStep).toBe("token");
    expect(error.oauthError).toBe("invalid_grant");
    expect(as.tokenRequests).toHaveLength(0);
    expectNothingShown(error, ["id-token-refused-secret", "idp-client-secret-2", "mcp-client-secret-2", ...wireSecrets(idp)]);
    expect(idp.tokenRequests).toHaveLength(1);
  });

  it("a refusal of the ID-JAG at the authorization server shows neither the ID token nor the ID-JAG", async () => {
    const idp = own(await startMachineAuthorizationServer());
    const { as, connectWith } = await setUp({ authMethods: ["client_secret_post"] });
    as.failWith("invalid_grant");
    const error = await failure(
      connectWith(
        enterpriseManaged({
          idToken: "id-token-ok-secret",
          idpTokenEndpoint: idp.tokenEndpoint,
          idpClientId: "idp-client",
          clientId: "mcp-client",
          clientSecret: "mcp-client-secret-3",
        }),
      ),
    );
    expect(error.oauthError).toBe("invalid_grant");
    expect(error.authStep).toBe("token");
    // Without idpClientSecret the client identifies itself by id only.
    expect(idp.tokenRequests[0]!.headers.authorization).toBeUndefined();
    expect(idp.tokenRequests[0]!.form.client_id).toBe("idp-client");
    expectNothingShown(error, ["id-token-ok-secret", "mcp-client-secret-3", ...wireSecrets(idp, as)]);
    expect(idp.tokenRequests).toHaveLength(1);
    expect(as.tokenRequests).toHaveLength(1);
  });
});

describe("a grant that nobody waits for any more", () => {
  // The token provider aborts a flow when the last request waiting on it gives up; each HTTP
  // request of the grant carries that signal, so it ends then, not at its read deadline
  // (readTimeoutMs, 5 minutes by default), while the connection stays open.
  const grants: [string, (idp: MachineAuthorizationServer) => AuthProvider][] = [
    ["clientCredentials()", () => clientCredentials({ clientId: "machine-1", clientSecret: "cc-secret-abandoned" })],
    ["workloadIdentity()", () => workloadIdentity({ clientId: "workload-1", assertion: "workload-jwt-abandoned-secret" })],
    [
      "enterpriseManaged(), at the identity provider",
      (idp) =>
        enterpriseManaged({
          idToken: "id-token-abandoned-secret",
          idpTokenEndpoint: idp.tokenEndpoint,
          idpClientId: "idp-client",
          clientId: "mcp-client",
        }),
    ],
  ];

  it.each(grants)("%s: a call aborted while its 401's token request is unanswered aborts that request", async (name, grant) => {
    const idp = own(await startMachineAuthorizationServer());
    const { as, endpoint, connectWith } = await setUp();
    const client = await connectWith(grant(idp));
    await streamAnswered(endpoint);
    const silent = name.startsWith("enterpriseManaged") ? idp : as;
    const before = silent.tokenRequests.length;
    silent.stopAnswering();
    as.revoke(as.issued[0]!.access);
    const controller = new AbortController();
    const calling = rejection(client.callTool("echo", { text: "x" }, { signal: controller.signal }));
    await expect.poll(() => silent.tokenRequests.length, { timeout: 10_000 }).toBe(before + 1);
    const reason = new Error("the caller gave up");
    controller.abort(reason);
    expect(await calling).toBe(reason);
    // The server sees the token request's connection closed: nothing of the grant runs on.
    await expect.poll(() => silent.droppedTokenRequests.length, { timeout: 10_000 }).toBe(1);
  });

  it("the DELETE at close goes with the token at hand: it neither starts nor waits on a renewal, so close() is not held up", async () => {
    // Tokens within REFRESH_MARGIN_MS of expiry are renewed before a request that waits for them.
    const { as, endpoint, connectWith } = await setUp({ expiresIn: 5 });
    const client = await connectWith(clientCredentials({ clientId: "machine-1", clientSecret: "cc-secret-close" }));
    await client.callTool("echo", { text: "x" });
    const current = as.issued.at(-1)!.access;
    as.stopAnswering();
    const before = as.tokenRequests.length;
    await client.close();
    const deleted = endpoint.requests.filter((request) => request.method === "DELETE");
    expect(deleted).toHaveLength(1);
    expect(deleted[0]!.headers.authorization).toBe(`Bearer ${current}`);
    expect(as.tokenRequests).toHaveLength(before);
  });
});

describe("DPoP (dpop: true)", () => {
  async function proofOf(request: MachineRequest) {
    const proof = request.headers.dpop;
    expect(typeof proof).toBe("string");
    const header = decodeProtectedHeader(proof as string);
    expect(header.typ).toBe("dpop+jwt");
    expect(header.jwk).not.toHaveProperty("d");
    const { EmbeddedJWK } = await import("jose");
    const { payload } = await jwtVerify(proof as string, EmbeddedJWK, { typ: "dpop+jwt" });
    return { header, payload, jkt: await calculateJwkThumbprint(header.jwk as JWK) };
  }

  it("the token request carries a proof for POST to the token endpoint; every MCP request uses the DPoP scheme with a proof with ath and a new jti", async () => {
    const { as, endpoint, connectWith } = await setUp({ dpopAlgs: ["ES256"] });
    const client = await connectWith(clientCredentials({ clientId: "machine-dpop", clientSecret: "cc-secret-dpop-1", dpop: true }));
    await client.callTool("echo", { text: "one" });
    await client.callTool("echo", { text: "two" });
    expect(as.tokenRequests).toHaveLength(1);
    const tokenProof = await proofOf(as.tokenRequests[0]!);
    expect(tokenProof.header.alg).toBe("ES256");
    expect(tokenProof.payload.htm).toBe("POST");
    expect(tokenProof.payload.htu).toBe(as.tokenEndpoint);
    expect(tokenProof.payload).not.toHaveProperty("ath");
    expect(tokenProof.payload).not.toHaveProperty("nonce");
    const token = as.issued[0]!;
    expect(token.jkt).toBe(tokenProof.jkt);

    expect(endpoint.refusals).toEqual([]);
    const sent = mcpRequests(endpoint);
    expect(sent.length).toBeGreaterThanOrEqual(3);
    for (const request of sent) {
      expect(request.headers.authorization).toBe(`DPoP ${token.access}`);
      expect(typeof request.headers.dpop).toBe("string");
    }
    expect(endpoint.proofs).toHaveLength(sent.length);
    for (const proof of endpoint.proofs) {
      expect(proof.claims.ath).toBe(ath(token.access));
      expect(proof.claims.htu).toBe(endpoint.url);
      expect(proof.claims.htm).toBe(proof.method);
      expect(await calculateJwkThumbprint(proof.header.jwk!)).toBe(token.jkt);
    }
    const jtis = [tokenProof.payload.jti, ...endpoint.proofs.map((proof) => proof.claims.jti)];
    expect(new Set(jtis).size).toBe(jtis.length);
  });

  it("a token of type Bearer despite the proof goes as Bearer, without a proof", async () => {
    const { as, endpoint, connectWith } = await setUp({ bearerOnly: true });
    const client = await connectWith(clientCredentials({ clientId: "machine-dpop", clientSecret: "cc-secret-dpop-2", dpop: true }));
    await client.callTool("echo", { text: "one" });
    expect(typeof as.tokenRequests[0]!.headers.dpop).toBe("string");
    for (const request of mcpRequests(endpoint)) {
      expect(request.headers.authorization).toBe(`Bearer ${as.issued[0]!.access}`);
      expect(request.headers.dpop).toBeUndefined();
    }
  });

  it("a DPoP key of the algorithm the server lists (ES384)", async () => {
    const { as, connectWith } = await setUp({ dpopAlgs: ["RS256", "ES384"] });
    await connectWith(workloadIdentity({ assertion: "workload-jwt-dpop", dpop: true }));
    expect((await proofOf(as.tokenRequests[0]!)).header.alg).toBe("ES384");
  });

  it("a 400 use_dpop_nonce with DPoP-Nonce is tried once more with the nonce", async () => {
    const { as, endpoint, connectWith } = await setUp({ dpopNonce: "as-nonce-required" });
    const client = await connectWith(clientCredentials({ clientId: "machine-dpop", clientSecret: "cc-secret-dpop-3", dpop: true }));
    await client.callTool("echo", { text: "one" });
    expect(as.tokenRequests).toHaveLength(2);
    const [first, second] = await Promise.all(as.tokenRequests.map(proofOf));
    expect(first!.payload).not.toHaveProperty("nonce");
    expect(second!.payload.nonce).toBe("as-nonce-required");
    expect(second!.payload.jti).not.toBe(first!.payload.jti);
    expect(second!.jkt).toBe(first!.jkt);
    expect(endpoint.refusals).toEqual([]);

    // The nonce is kept: the next token request carries it from the start.
    await streamAnswered(endpoint);
    as.revoke(as.issued[0]!.access);
    await client.callTool("echo", { text: "two" });
    expect(as.tokenRequests).toHaveLength(3);
    expect((await proofOf(as.tokenRequests[2]!)).payload.nonce).toBe("as-nonce-required");
  });

  it("a server that keeps asking for a nonce gets exactly two token requests, then the failure", async () => {
    const { as, endpoint, connectWith } = await setUp({ alwaysAskNonce: true });
    const error = await failure(connectWith(clientCredentials({ clientId: "machine-dpop", clientSecret: "cc-secret-dpop-4", dpop: true })));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.authStep).toBe("token");
    expect(error.oauthError).toBe("use_dpop_nonce");
    const [first, second] = await Promise.all(as.tokenRequests.slice(0, 2).map(proofOf));
    expect(first!.payload).not.toHaveProperty("nonce");
    expect(second!.payload.nonce).toMatch(/^as-nonce-\d+$/);
    expect(mcpRequests(endpoint).filter((request) => request.headers.authorization === undefined)).toEqual([]);
    expectNothingShown(error, ["cc-secret-dpop-4", ...wireSecrets(as)]);
    expect(as.tokenRequests).toHaveLength(2);
  });

  it("a resource server's 401 use_dpop_nonce is tried once more with the nonce in the proof, and later proofs keep it", async () => {
    const { as, endpoint, connectWith } = await setUp({}, { dpopNonce: "rs-nonce-required" });
    const client = await connectWith(clientCredentials({ clientId: "machine-dpop", clientSecret: "cc-secret-dpop-5", dpop: true }));
    await client.callTool("echo", { text: "one" });
    expect(as.tokenRequests).toHaveLength(1);
    expect(endpoint.refusals).toEqual(["use_dpop_nonce"]);
    const sent = mcpRequests(endpoint);
    // The first request went twice, the same JSON-RPC request: without the nonce, then with it.
    expect(sent[1]!.body).toEqual(sent[0]!.body);
    expect(sent.filter((request) => JSON.stringify(request.body) === JSON.stringify(sent[0]!.body))).toHaveLength(2);
    expect(endpoint.proofs[0]!.claims).not.toHaveProperty("nonce");
    for (const proof of endpoint.proofs.slice(1)) {
      expect(proof.claims.nonce).toBe("rs-nonce-required");
      expect(proof.claims.ath).toBe(ath(as.issued[0]!.access));
    }
    const jtis = endpoint.proofs.map((proof) => proof.claims.jti);
    expect(new Set(jtis).size).toBe(jtis.length);
  });

  it("a resource server that keeps asking for a nonce gets one retry, never two, then the 401 is reported", async () => {
    const { as, endpoint, connectWith } = await setUp({}, { alwaysAskNonce: true });
    const error = await failure(connectWith(clientCredentials({ clientId: "machine-dpop", clientSecret: "cc-secret-dpop-6", dpop: true })));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.httpStatus).toBe(401);
    expect(endpoint.refusals).toEqual(["use_dpop_nonce", "use_dpop_nonce"]);
    expect(mcpRequests(endpoint)).toHaveLength(2);
    expect(endpoint.proofs[0]!.claims).not.toHaveProperty("nonce");
    expect(endpoint.proofs[1]!.claims.nonce).toMatch(/^rs-nonce-\d+$/);
    // A nonce is not a reason for new tokens.
    expect(as.tokenRequests).toHaveLength(1);
    expectNothingShown(error, ["cc-secret-dpop-6", ...wireSecrets(as)]);
  });
});
