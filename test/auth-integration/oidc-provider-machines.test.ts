/**
 * OAuth for machines end to end against a real authorization server (oidc-provider) and an MCP
 * server that verifies its JWT access tokens and DPoP proofs: `clientCredentials()` with a client
 * secret, with `private_key_jwt` (PKCS#8 PEM or JWK), with DPoP and the nonces of both servers;
 * `workloadIdentity()` through a jwt-bearer grant registered at the provider, its token file
 * rotated between two token requests; refusals reported as the provider said them; and no
 * credential in any error or console line.
 *
 * Everything goes through the public API (src/index.ts). The stack is test/fixtures/oauth/machine-stack.ts.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportPKCS8, generateKeyPair, type JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientCredentials, connect, workloadIdentity, type AuthProvider, type McpClient } from "../../src/index.js";
import { CLIENTS, JWT_BEARER, MCP_SCOPE, startMachineStack, type MachineStack } from "../fixtures/oauth/machine-stack.js";
import { closedAfterEach } from "../helpers/owned.js";
import { recordShown } from "../helpers/redaction.js";

const TIMEOUT = { timeout: 60_000 };

// --- What the redaction checks read: every error seen and everything written to the console.

const shown = recordShown();
const failureOf = shown.failureOf;

// --- Small helpers

function whoami(result: { content: unknown[] }): { client_id?: string; sub?: string; workload_sub?: string } {
  const first = result.content[0] as { type: string; text?: string } | undefined;
  expect(first?.type).toBe("text");
  return JSON.parse(first!.text!) as { client_id?: string; sub?: string; workload_sub?: string };
}

describe("machine flows against oidc-provider", () => {
  let stack: MachineStack;
  const directories: string[] = [];

  beforeAll(async () => {
    shown.captureOutput();
    stack = await startMachineStack();
  }, 60_000);

  // Each test's clients are closed after it, so that none of their requests lands in the next test's records.
  const own = closedAfterEach(60_000);

  afterAll(async () => {
    await stack?.close();
    await Promise.all(directories.map((dir) => rm(dir, { recursive: true, force: true })));
    shown.restoreOutput();
  }, 60_000);

  /** Where the records stand now: what a test did is what comes after. */
  function mark() {
    const tokenRequests = stack.seen.tokenRequests.length;
    const mcpRequests = stack.seen.mcpRequests.length;
    return {
      tokenRequests: () => stack.seen.tokenRequests.slice(tokenRequests),
      mcpRequests: () => stack.seen.mcpRequests.slice(mcpRequests),
    };
  }

  async function connected(auth: AuthProvider): Promise<McpClient> {
    return own(await connect(stack.mcpUrl, { auth, fallback: false }));
  }

  it("client credentials with a secret: a JWT for the MCP URL, fetched before the first request", TIMEOUT, async () => {
    const since = mark();
    const client = await connected(clientCredentials({ clientId: CLIENTS.secret, clientSecret: stack.clientSecret }));

    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["whoami"]);
    expect(whoami(await client.callTool("whoami"))).toEqual({ client_id: CLIENTS.secret, sub: CLIENTS.secret });

    // One token request: the grant, the Basic header, the resource and the metadata's scope.
    const tokenRequests = since.tokenRequests();
    expect(tokenRequests).toHaveLength(1);
    const request = tokenRequests[0]!;
    expect(request).toMatchObject({
      clientId: CLIENTS.secret,
      grantType: "client_credentials",
      authentication: "basic",
      resource: stack.mcpUrl,
      scope: MCP_SCOPE,
      status: 200,
      tokenType: "Bearer",
      dpop: undefined,
    });
    const token = request.accessToken!;
    expect(stack.seen.claims.get(token)).toMatchObject({ iss: stack.issuer, aud: stack.mcpUrl, client_id: CLIENTS.secret, scope: MCP_SCOPE });
    expect(stack.seen.claims.get(token)?.cnf).toBeUndefined();

    // Every MCP request carried that token as a bearer token, the first included: none went without.
    const mcpRequests = since.mcpRequests();
    expect(mcpRequests.length).toBeGreaterThanOrEqual(3);
    expect(mcpRequests[0]!.seq).toBeGreaterThan(request.seq);
    for (const seen of mcpRequests) expect(seen).toMatchObject({ scheme: "bearer", token, refusal: undefined, proof: undefined });
    expect(mcpRequests.filter((seen) => seen.scheme === undefined)).toEqual([]);
  });

  it("client credentials with private_key_jwt: a PKCS#8 PEM and ES256 sign the client assertion", TIMEOUT, async () => {
    const since = mark();
    const client = await connected(clientCredentials({ clientId: CLIENTS.key, privateKey: stack.privateKeyPem, signingAlgorithm: "ES256" }));
    expect(whoami(await client.callTool("whoami"))).toEqual({ client_id: CLIENTS.key, sub: CLIENTS.key });

    const tokenRequests = since.tokenRequests();
    expect(tokenRequests).toHaveLength(1);
    const request = tokenRequests[0]!;
    expect(request).toMatchObject({ clientId: CLIENTS.key, grantType: "client_credentials", authentication: "assertion", resource: stack.mcpUrl, status: 200 });
    checkClientAssertion(request.clientAssertion);
    expect(stack.seen.claims.get(request.accessToken!)).toMatchObject({ aud: stack.mcpUrl, client_id: CLIENTS.key });
    expect(since.mcpRequests().every((seen) => seen.token === request.accessToken)).toBe(true);
  });

  it("client credentials with private_key_jwt: a private JWK, the algorithm taken from the server's list", TIMEOUT, async () => {
    const since = mark();
    const client = await connected(clientCredentials({ clientId: CLIENTS.key, privateKey: stack.privateKeyJwk }));
    expect(whoami(await client.callTool("whoami")).client_id).toBe(CLIENTS.key);
    const tokenRequests = since.tokenRequests();
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]).toMatchObject({ authentication: "assertion", status: 200 });
    checkClientAssertion(tokenRequests[0]!.clientAssertion);
  });

  it("client credentials with private_key_jwt: a PKCS#8 EC PEM alone, the algorithm taken from the server's list", TIMEOUT, async () => {
    // oidc-provider lists RS256 and PS256 before ES256 (its defaults); the key is EC, so ES256 is
    // the first listed algorithm that fits it.
    const metadata = (await (await fetch(`${stack.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, string[]>;
    const listed = metadata.token_endpoint_auth_signing_alg_values_supported!;
    expect(listed).toContain("ES256");
    expect(listed.indexOf("RS256")).toBeLessThan(listed.indexOf("ES256"));
    const since = mark();
    const client = await connected(clientCredentials({ clientId: CLIENTS.key, privateKey: stack.privateKeyPem }));
    expect(whoami(await client.callTool("whoami")).client_id).toBe(CLIENTS.key);
    const tokenRequests = since.tokenRequests();
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]).toMatchObject({ authentication: "assertion", status: 200 });
    checkClientAssertion(tokenRequests[0]!.clientAssertion);
  });

  function checkClientAssertion(assertion: { alg: string | undefined; claims: JWTPayload } | undefined): void {
    expect(assertion?.alg).toBe("ES256");
    const claims = assertion!.claims;
    expect(claims).toMatchObject({ iss: CLIENTS.key, sub: CLIENTS.key, aud: stack.issuer });
    expect(typeof claims.jti).toBe("string");
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(300);
  }

  it("DPoP: the token request retried once with the provider's nonce, a bound token, a checked proof on every MCP request, the MCP server's nonce answered once", TIMEOUT, async () => {
    const since = mark();
    const challenges = stack.seen.resourceNonceChallenges.length;
    const client = await connected(clientCredentials({ clientId: CLIENTS.dpop, clientSecret: stack.dpopClientSecret, dpop: true }));
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["whoami"]);
    expect(whoami(await client.callTool("whoami")).client_id).toBe(CLIENTS.dpop);
    expect(whoami(await client.callTool("whoami")).client_id).toBe(CLIENTS.dpop);

    // The token endpoint: use_dpop_nonce first, then the same request with its nonce.
    const tokenRequests = since.tokenRequests();
    expect(tokenRequests.map((request) => [request.status, request.error ?? request.tokenType])).toEqual([
      [400, "use_dpop_nonce"],
      [200, "DPoP"],
    ]);
    const [first, second] = tokenRequests as [(typeof tokenRequests)[number], (typeof tokenRequests)[number]];
    expect(first.dpop).toBeDefined();
    expect(first.dpop!.nonce).toBeUndefined();
    expect(first.answeredNonce).toEqual(expect.any(String));
    expect(second.dpop).toEqual({ nonce: first.answeredNonce, jkt: first.dpop!.jkt });
    expect(second).toMatchObject({ clientId: CLIENTS.dpop, grantType: "client_credentials", authentication: "basic", resource: stack.mcpUrl });

    // The token is bound to the proofs' key.
    const token = second.accessToken!;
    expect((stack.seen.claims.get(token)?.cnf as { jkt?: string } | undefined)?.jkt).toBe(first.dpop!.jkt);

    // The MCP server: every request used the DPoP scheme with a proof it found valid; the first was
    // asked for its nonce, once, and every later proof carried it.
    const mcpRequests = since.mcpRequests();
    expect(mcpRequests.length).toBeGreaterThanOrEqual(4);
    expect(mcpRequests[0]!.seq).toBeGreaterThan(second.seq);
    for (const seen of mcpRequests) {
      expect(seen.scheme).toBe("dpop");
      expect(seen.token).toBe(token);
      expect(seen.proof).toMatchObject({ valid: true, reason: undefined });
    }
    expect(mcpRequests.map((seen) => seen.refusal).filter((refusal) => refusal !== undefined)).toEqual(["use_dpop_nonce"]);
    expect(mcpRequests[0]!.refusal).toBe("use_dpop_nonce");
    expect(mcpRequests[0]!.proof!.nonce).toBeUndefined();
    for (const seen of mcpRequests.slice(1)) expect(seen.proof!.nonce).toBe(stack.resourceNonce);
    expect(stack.seen.resourceNonceChallenges.length - challenges).toBe(1);
  });

  it("workload identity: the token file is read again at each token request, so a rotated assertion is the one sent", TIMEOUT, async () => {
    const dir = await mkdtemp(join(tmpdir(), "mcpwire-workload-"));
    directories.push(dir);
    const file = join(dir, "token");
    const subject = "system:serviceaccount:agents:indexer";
    const firstAssertion = await stack.workloadAssertion(subject);
    // A projected token file ends with a newline as often as not.
    await writeFile(file, `${firstAssertion}\n`, { mode: 0o600 });

    const since = mark();
    const assertions = stack.seen.workloadAssertions.length;
    const client = await connected(workloadIdentity({ clientId: CLIENTS.workload, assertion: { file } }));
    expect(whoami(await client.callTool("whoami"))).toEqual({ client_id: CLIENTS.workload, sub: CLIENTS.workload, workload_sub: subject });
    const firstToken = stack.rejectToken();

    // The platform rotates the file; the MCP server refuses the current token once.
    const rotated = await stack.workloadAssertion(subject);
    expect(rotated).not.toBe(firstAssertion);
    await writeFile(file, rotated, { mode: 0o600 });
    expect(whoami(await client.callTool("whoami")).workload_sub).toBe(subject);

    expect(stack.seen.workloadAssertions.slice(assertions)).toEqual([
      { assertion: firstAssertion, accepted: true, subject },
      { assertion: rotated, accepted: true, subject },
    ]);
    const tokenRequests = since.tokenRequests();
    expect(tokenRequests).toHaveLength(2);
    for (const request of tokenRequests) {
      expect(request).toMatchObject({ clientId: CLIENTS.workload, grantType: JWT_BEARER, authentication: "none", resource: stack.mcpUrl, status: 200, tokenType: "Bearer" });
    }
    expect(tokenRequests[0]!.accessToken).toBe(firstToken);
    const secondToken = tokenRequests[1]!.accessToken!;
    expect(secondToken).not.toBe(firstToken);
    expect(stack.seen.claims.get(secondToken)).toMatchObject({ iss: stack.issuer, aud: stack.mcpUrl, client_id: CLIENTS.workload, workload_sub: subject, scope: MCP_SCOPE });

    // The refused call went once more, with the new token, after the second token request.
    const mcpRequests = since.mcpRequests();
    const refused = mcpRequests.filter((seen) => seen.refusal !== undefined);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ refusal: "rejected", token: firstToken });
    const after = mcpRequests.slice(mcpRequests.indexOf(refused[0]!) + 1);
    expect(after.length).toBeGreaterThan(0);
    for (const seen of after) expect(seen).toMatchObject({ token: secondToken, refusal: undefined });
    expect(after[0]!.seq).toBeGreaterThan(tokenRequests[1]!.seq);
    expect(mcpRequests.filter((seen) => seen.scheme === undefined)).toEqual([]);
  });

  it("refusals are reported as the provider said them, at the token step", TIMEOUT, async () => {
    // A wrong client secret.
    const wrongSecret = `wrong-${stack.clientSecret.slice(0, 8)}-${Date.now().toString(36)}-secret`;
    stack.secrets.add(wrongSecret);
    let since = mark();
    const badSecret = await failureOf(connect(stack.mcpUrl, { auth: clientCredentials({ clientId: CLIENTS.secret, clientSecret: wrongSecret }), fallback: false }));
    expect(badSecret).toMatchObject({ reason: "PROTOCOL", authStep: "token", oauthError: "invalid_client", httpStatus: 401 });
    expect(since.tokenRequests()).toMatchObject([{ clientId: CLIENTS.secret, authentication: "basic", status: 401, error: "invalid_client" }]);
    // No retry, and the MCP server was never asked anything.
    expect(since.mcpRequests()).toEqual([]);

    // A key the provider does not know for this client.
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const strangerPem = await exportPKCS8(privateKey);
    stack.secrets.add(strangerPem);
    since = mark();
    const badKey = await failureOf(
      connect(stack.mcpUrl, { auth: clientCredentials({ clientId: CLIENTS.key, privateKey: strangerPem, signingAlgorithm: "ES256" }), fallback: false }),
    );
    expect(badKey).toMatchObject({ reason: "PROTOCOL", authStep: "token", oauthError: "invalid_client" });
    expect(since.tokenRequests()).toHaveLength(1);

    // A bound-token client that sends no proof.
    const noProof = await failureOf(connect(stack.mcpUrl, { auth: clientCredentials({ clientId: CLIENTS.dpop, clientSecret: stack.dpopClientSecret }), fallback: false }));
    expect(noProof).toMatchObject({ reason: "PROTOCOL", authStep: "token", oauthError: "invalid_grant" });

    // A workload assertion signed by another issuer's key, and one for another audience.
    for (const assertion of [await stack.workloadAssertion("intruder", { signedByStranger: true }), await stack.workloadAssertion("intruder", { audience: "https://elsewhere.test" })]) {
      const forged = await failureOf(connect(stack.mcpUrl, { auth: workloadIdentity({ clientId: CLIENTS.workload, assertion }), fallback: false }));
      expect(forged).toMatchObject({ reason: "PROTOCOL", authStep: "token", oauthError: "invalid_grant" });
      expect(stack.seen.workloadAssertions.at(-1)).toEqual({ assertion, accepted: false, subject: undefined });
    }

    // A workload token file that is not there.
    const missing = join(tmpdir(), `mcpwire-no-such-token-${process.pid}-${Date.now()}`);
    const unreadable = await failureOf(connect(stack.mcpUrl, { auth: workloadIdentity({ clientId: CLIENTS.workload, assertion: { file: missing } }), fallback: false }));
    expect(unreadable).toMatchObject({ authStep: "token" });

    // A server that refuses every token, fresh ones too: each refused request fetches at most one
    // new token (the call, and the client's GET stream when it went out meanwhile), then the refusal is reported.
    const client = await connected(clientCredentials({ clientId: CLIENTS.secret, clientSecret: stack.clientSecret }));
    since = mark();
    stack.refuseEveryToken = true;
    try {
      const refused = await failureOf(client.callTool("whoami"));
      expect(refused).toMatchObject({ reason: "PROTOCOL", httpStatus: 401 });
    } finally {
      stack.refuseEveryToken = false;
    }
    const renewals = since.tokenRequests();
    const refusedRequests = since.mcpRequests();
    expect(renewals.length).toBeGreaterThanOrEqual(1);
    expect(renewals.every((request) => request.clientId === CLIENTS.secret && request.status === 200)).toBe(true);
    expect(refusedRequests.every((seen) => seen.refusal === "rejected")).toBe(true);
    const posts = refusedRequests.filter((seen) => seen.method === "POST");
    expect(renewals.length).toBeLessThanOrEqual(refusedRequests.length - posts.length + 1);
    expect(posts.length).toBeLessThanOrEqual(3);
    // The client recovers once the server takes tokens again.
    expect(whoami(await client.callTool("whoami")).client_id).toBe(CLIENTS.secret);
  });

  it("no secret, key, assertion, access token or DPoP proof appears in any error or console output", TIMEOUT, () => {
    const kinds = {
      accessTokens: stack.seen.claims.size,
      proofs: stack.seen.mcpRequests.filter((seen) => seen.proof !== undefined).length + stack.seen.tokenRequests.filter((request) => request.dpop !== undefined).length,
      assertions: stack.seen.workloadAssertions.length,
      clientAssertions: stack.seen.tokenRequests.filter((request) => request.clientAssertion !== undefined).length,
    };
    // The checks below are worth something only if the earlier tests ran and saw credentials.
    expect(kinds.accessTokens).toBeGreaterThanOrEqual(5);
    expect(kinds.proofs).toBeGreaterThanOrEqual(5);
    expect(kinds.assertions).toBeGreaterThanOrEqual(4);
    expect(kinds.clientAssertions).toBeGreaterThanOrEqual(3);
    for (const value of [stack.clientSecret, stack.dpopClientSecret, stack.privateKeyPem]) expect(stack.secrets.has(value)).toBe(true);
    expect(shown.errorTexts.length).toBeGreaterThan(0);

    expect(shown.leaks(stack.secrets)).toEqual([]);
  });
});

describe("the machine stack", () => {
  it("closes without leaving a socket or a server open", TIMEOUT, async () => {
    const tcpHandles = () => process.getActiveResourcesInfo().filter((name) => name.startsWith("TCP")).length;
    const baseline = tcpHandles();
    const stack = await startMachineStack();
    const client = await connect(stack.mcpUrl, { auth: clientCredentials({ clientId: CLIENTS.dpop, clientSecret: stack.dpopClientSecret, dpop: true }), fallback: false });
    expect(whoami(await client.callTool("whoami")).client_id).toBe(CLIENTS.dpop);
    expect(tcpHandles()).toBeGreaterThan(baseline);
    await client.close();
    await stack.close();
    // Client-side sockets end once they read the server's close.
    await expect.poll(tcpHandles, { timeout: 10_000, interval: 10 }).toBeLessThanOrEqual(baseline);
  });
});
