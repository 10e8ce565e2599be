/**
 * `oauth()` end to end against a real authorization server (oidc-provider) and an MCP server
 * that verifies its JWT access tokens: discovery from the 401, dynamic registration, the code
 * flow with PKCE through a headless browser, tokens kept in a file and reused, refresh with
 * rotated refresh tokens, `invalid_grant`, and no credential in any error or log line.
 *
 * Everything goes through the public API (src/index.ts). The stack is test/fixtures/oauth/stack.ts.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  connect,
  fileTokenStore,
  memoryTokenStore,
  oauth,
  REFRESH_MARGIN_MS,
  type AuthorizeFunction,
  type McpClient,
  type StoredCredentials,
  type TokenStore,
} from "../../src/index.js";
import { MCP_SCOPE, startOAuthStack, type OAuthStack } from "../fixtures/oauth/stack.js";
import { leaksIn, recordShown } from "../helpers/redaction.js";

const TIMEOUT = { timeout: 60_000 };

// --- What the redaction checks read: every error seen and everything written to the console.

const shown = recordShown();
const failureOf = shown.failureOf;

// --- Small helpers

const directories: string[] = [];

async function temporaryDirectory(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "mcpwire-oauth-"));
  directories.push(dir);
  return dir;
}

/** The one token file a fileTokenStore keeps in `dir`, and its entry for the issuer. */
async function tokenFile(dir: string, issuer: string): Promise<{ path: string; file: { resource: string; issuers: Record<string, StoredCredentials> }; entry: StoredCredentials }> {
  const names = (await readdir(dir)).filter((name) => name.endsWith(".json"));
  expect(names).toHaveLength(1);
  const path = join(dir, names[0]!);
  const file = JSON.parse(await readFile(path, "utf8")) as { resource: string; issuers: Record<string, StoredCredentials> };
  const entry = file.issuers[issuer];
  expect(entry).toBeDefined();
  return { path, file, entry: entry! };
}

function whoamiText(result: { content: unknown[] }): string {
  const first = result.content[0] as { type: string; text?: string } | undefined;
  expect(first?.type).toBe("text");
  return first!.text!;
}

/** An `authorize` that opens the URL in the stack's browser, and records its calls. */
function browserAuthorize(stack: OAuthStack) {
  return vi.fn<AuthorizeFunction>(async (url) => stack.playBrowser(url));
}

describe("oauth() against oidc-provider", () => {
  let stack: OAuthStack;
  const clients: McpClient[] = [];

  /** A first login with a new file store: connect, authorize once, whoami. */
  async function login(store?: TokenStore) {
    const dir = await temporaryDirectory();
    const authorize = browserAuthorize(stack);
    const client = await connect(stack.mcpUrl, { auth: oauth({ authorize, store: store ?? fileTokenStore(dir) }) });
    clients.push(client);
    expect(whoamiText(await client.callTool("whoami"))).toBe(stack.accountId);
    expect(authorize).toHaveBeenCalledTimes(1);
    return { dir, authorize, client };
  }

  beforeAll(async () => {
    shown.captureOutput();
    // Long-lived access tokens, so that no refresh happens before expiry here: each refresh in
    // this block is one a test asked for. The refresh before expiry has its own block below.
    stack = await startOAuthStack({ accessTokenTtl: 3600 });
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await stack?.close();
    shown.restoreOutput();
    await Promise.all(directories.map((dir) => rm(dir, { recursive: true, force: true })));
  }, 60_000);

  it("logs in on the first 401: discovery, dynamic registration, the code flow with PKCE and resource", TIMEOUT, async () => {
    const registrations = stack.seen.registrations.length;
    const tokenRequests = stack.seen.tokenRequests.length;
    const unauthorized = stack.seen.unauthorized;
    const dir = await temporaryDirectory();
    const authorize = browserAuthorize(stack);
    const client = await connect(stack.mcpUrl, { auth: oauth({ authorize, store: fileTokenStore(dir), clientName: "mcpwire end-to-end" }) });
    clients.push(client);

    // The server refused the first request, which carried no token.
    expect(stack.seen.unauthorized).toBeGreaterThan(unauthorized);
    expect(authorize).toHaveBeenCalledTimes(1);
    const [url, context] = authorize.mock.calls[0]!;

    // Registration: a native public client with loopback redirect URIs and both grants.
    expect(stack.seen.registrations).toHaveLength(registrations + 1);
    const registration = stack.seen.registrations.at(-1)!;
    expect(registration.body).toMatchObject({
      client_name: "mcpwire end-to-end",
      application_type: "native",
      token_endpoint_auth_method: "none",
      response_types: ["code"],
    });
    expect(registration.body.grant_types).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    for (const uri of registration.body.redirect_uris as string[]) expect(new URL(uri).hostname).toBe("127.0.0.1");

    // The authorization URL: the discovered endpoint, PKCE S256, the PRM's resource, the challenged scope.
    expect(`${url.origin}${url.pathname}`).toBe(`${stack.issuer}/auth`);
    const params = url.searchParams;
    expect(params.get("response_type")).toBe("code");
    expect(params.get("client_id")).toBe(registration.clientId);
    expect(params.get("redirect_uri")).toBe(context.redirectUri);
    expect(params.get("code_challenge_method")).toBe("S256");
    expect(params.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get("state")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get("resource")).toBe(stack.mcpUrl);
    expect(params.get("scope")?.split(" ")).toEqual(expect.arrayContaining([MCP_SCOPE, "offline_access"]));
    for (const name of ["access_token", "refresh_token", "code", "code_verifier", "client_secret"]) expect(params.has(name)).toBe(false);

    // The code exchange: the verifier of that challenge, and the same resource.
    const exchanges = stack.seen.tokenRequests.slice(tokenRequests);
    expect(exchanges).toHaveLength(1);
    const exchange = exchanges[0]!;
    expect(exchange).toMatchObject({ grantType: "authorization_code", status: 200, resource: stack.mcpUrl });
    expect(createHash("sha256").update(exchange.codeVerifier!).digest("base64url")).toBe(params.get("code_challenge"));
    expect(exchange.issuedRefreshToken).toBeDefined();

    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("whoami");
    expect(whoamiText(await client.callTool("whoami"))).toBe(stack.accountId);

    // The MCP server accepted a JWT for it: its audience is the MCP URL, from this issuer.
    const accepted = stack.seen.acceptedTokens.at(-1)!;
    expect(stack.seen.claims.get(accepted)).toMatchObject({ aud: stack.mcpUrl, iss: stack.issuer, sub: stack.accountId, client_id: registration.clientId });

    // Both the registration and the tokens were stored.
    const { file, entry } = await tokenFile(dir, stack.issuer);
    expect(file.resource).toBe(stack.mcpUrl);
    expect(entry.client?.client_id).toBe(registration.clientId);
    expect(entry.tokens?.access_token).toBe(accepted);
    expect(entry.tokens?.refresh_token).toBe(exchange.issuedRefreshToken);

    // The authorization URL carried none of the credentials that came after it.
    expect(leaksIn(stack.secrets, [url.href])).toEqual([]);
  });

  it("a second client with the same token file connects without authorizing again", TIMEOUT, async () => {
    const { dir, client: first } = await login();
    const { entry: stored } = await tokenFile(dir, stack.issuer);
    const registrations = stack.seen.registrations.length;
    const tokenRequests = stack.seen.tokenRequests.length;

    const authorize = vi.fn<AuthorizeFunction>(async () => {
      throw new Error("authorize must not be called when stored tokens are good");
    });
    const second = await connect(stack.mcpUrl, { auth: oauth({ authorize, store: fileTokenStore(dir) }) });
    clients.push(second);
    expect(whoamiText(await second.callTool("whoami"))).toBe(stack.accountId);
    expect(await second.listTools()).toHaveLength(1);

    expect(authorize).not.toHaveBeenCalled();
    // No registration, no token request: the stored access token was sent as it was.
    expect(stack.seen.registrations).toHaveLength(registrations);
    expect(stack.seen.tokenRequests).toHaveLength(tokenRequests);
    expect(stack.seen.acceptedTokens.at(-1)).toBe(stored.tokens?.access_token);
    // The first client still works beside it, with the same token.
    expect(whoamiText(await first.callTool("whoami"))).toBe(stack.accountId);
  });

  it("refreshes on a 401 with the rotated refresh token, stored before its use", TIMEOUT, async () => {
    const { dir, authorize, client } = await login();
    const before = (await tokenFile(dir, stack.issuer)).entry.tokens!;

    // Round 1: the MCP server refuses the current token; the client refreshes and sends the call again.
    expect(stack.rejectCurrentToken()).toBe(before.access_token);
    let tokenRequests = stack.seen.tokenRequests.length;
    expect(whoamiText(await client.callTool("whoami"))).toBe(stack.accountId);
    const round1 = stack.seen.tokenRequests.slice(tokenRequests);
    expect(round1).toHaveLength(1);
    expect(round1[0]).toMatchObject({ grantType: "refresh_token", refreshToken: before.refresh_token, resource: stack.mcpUrl, status: 200 });
    const rotated = round1[0]!.issuedRefreshToken!;
    expect(rotated).toBeDefined();
    expect(rotated).not.toBe(before.refresh_token);

    // The file already holds the rotated refresh token and the new access token.
    const after1 = (await tokenFile(dir, stack.issuer)).entry.tokens!;
    expect(after1.refresh_token).toBe(rotated);
    expect(after1.access_token).not.toBe(before.access_token);
    expect(stack.seen.acceptedTokens.at(-1)).toBe(after1.access_token);

    // Round 2: the next refresh presents the rotated token (the first one is spent at the provider:
    // presenting it again would have revoked the whole grant).
    stack.rejectCurrentToken();
    tokenRequests = stack.seen.tokenRequests.length;
    expect(whoamiText(await client.callTool("whoami"))).toBe(stack.accountId);
    const round2 = stack.seen.tokenRequests.slice(tokenRequests);
    expect(round2).toHaveLength(1);
    expect(round2[0]).toMatchObject({ grantType: "refresh_token", refreshToken: rotated, status: 200 });
    const after2 = (await tokenFile(dir, stack.issuer)).entry.tokens!;
    expect(after2.refresh_token).toBe(round2[0]!.issuedRefreshToken);
    expect(after2.refresh_token).not.toBe(rotated);

    expect(authorize).toHaveBeenCalledTimes(1);
  });

  it("invalid_grant after the grant was revoked at the provider: the tokens are dropped and authorize runs again", TIMEOUT, async () => {
    const { dir, authorize, client } = await login();
    const { entry } = await tokenFile(dir, stack.issuer);
    const registrations = stack.seen.registrations.length;

    await stack.revokeRefreshToken(entry.tokens!.refresh_token!, entry.client!.client_id);
    stack.rejectCurrentToken();
    const tokenRequests = stack.seen.tokenRequests.length;
    expect(whoamiText(await client.callTool("whoami"))).toBe(stack.accountId);

    const requests = stack.seen.tokenRequests.slice(tokenRequests);
    expect(requests.map((request) => [request.grantType, request.error ?? request.status])).toEqual([
      ["refresh_token", "invalid_grant"],
      ["authorization_code", 200],
    ]);
    expect(requests[0]!.refreshToken).toBe(entry.tokens!.refresh_token);
    expect(authorize).toHaveBeenCalledTimes(2);
    // The registration was kept and used again.
    expect(stack.seen.registrations).toHaveLength(registrations);
    expect(authorize.mock.calls[1]![0].searchParams.get("client_id")).toBe(entry.client!.client_id);

    const after = (await tokenFile(dir, stack.issuer)).entry;
    expect(after.tokens?.refresh_token).toBe(requests[1]!.issuedRefreshToken);
    expect(after.tokens?.access_token).toBe(stack.seen.acceptedTokens.at(-1));
    expect(leaksIn(stack.secrets, [authorize.mock.calls[1]![0].href])).toEqual([]);
  });

  it("invalid_grant for a tampered stored refresh token: a new client drops it and authorizes", TIMEOUT, async () => {
    const { dir, client: first } = await login();
    await first.close();
    const { path, file, entry } = await tokenFile(dir, stack.issuer);
    const tampered = `tampered-${randomBytes(16).toString("base64url")}`;
    entry.tokens!.refresh_token = tampered;
    file.issuers[stack.issuer] = entry;
    await writeFile(path, JSON.stringify(file), { mode: 0o600 });
    // The stored access token is refused too (as if expired), so that the refresh token is needed.
    stack.rejectCurrentToken();

    const tokenRequests = stack.seen.tokenRequests.length;
    const authorize = browserAuthorize(stack);
    const client = await connect(stack.mcpUrl, { auth: oauth({ authorize, store: fileTokenStore(dir) }) });
    clients.push(client);
    expect(whoamiText(await client.callTool("whoami"))).toBe(stack.accountId);

    const requests = stack.seen.tokenRequests.slice(tokenRequests);
    expect(requests.map((request) => [request.grantType, request.error ?? request.status])).toEqual([
      ["refresh_token", "invalid_grant"],
      ["authorization_code", 200],
    ]);
    expect(requests[0]!.refreshToken).toBe(tampered);
    expect(authorize).toHaveBeenCalledTimes(1);
    const after = (await tokenFile(dir, stack.issuer)).entry;
    expect(after.tokens?.refresh_token).toBe(requests[1]!.issuedRefreshToken);
    expect(after.tokens?.refresh_token).not.toBe(tampered);
  });

  it("failures name no credential: a refused token, a forged callback, a code the server refuses", TIMEOUT, async () => {
    // A server that refuses every token, even fresh ones: stored, refresh and authorization are
    // tried once each, then the refusal is reported.
    const { authorize, client } = await login(memoryTokenStore());
    stack.refuseEveryToken = true;
    try {
      const refused = await failureOf(client.callTool("whoami"));
      expect(refused.reason).toBe("PROTOCOL");
      expect(refused.httpStatus).toBe(401);
      expect(authorize).toHaveBeenCalledTimes(2);
    } finally {
      stack.refuseEveryToken = false;
    }

    // A callback whose state is not the one sent, carrying a real code.
    const forged = await failureOf(
      connect(stack.mcpUrl, {
        auth: oauth({
          store: memoryTokenStore(),
          authorize: async (url) => {
            const callback = new URL(await stack.playBrowser(url));
            callback.searchParams.set("state", randomBytes(32).toString("base64url"));
            return callback.href;
          },
        }),
      }),
    );
    expect(forged.authStep).toBe("authorization");

    // A callback with the right state but a code the token endpoint does not know.
    const badCode = await failureOf(
      connect(stack.mcpUrl, {
        auth: oauth({
          store: memoryTokenStore(),
          authorize: async (url) => {
            const callback = new URL(await stack.playBrowser(url));
            callback.searchParams.set("code", `wrong-${randomBytes(24).toString("base64url")}`);
            return callback.href;
          },
        }),
      }),
    );
    expect(badCode).toMatchObject({ authStep: "token", oauthError: "invalid_grant" });

    // An authorize function that fails.
    const failing = await failureOf(
      connect(stack.mcpUrl, {
        auth: oauth({
          store: memoryTokenStore(),
          authorize: async () => {
            throw new Error("the user closed the browser");
          },
        }),
      }),
    );
    expect(failing.authStep).toBe("authorization");
  });

  it("no access token, refresh token, code, verifier or secret appears in any error or console output", TIMEOUT, () => {
    const kinds = {
      accessTokens: stack.seen.acceptedTokens.length,
      refreshTokens: stack.seen.tokenRequests.filter((request) => request.issuedRefreshToken !== undefined).length,
      verifiers: stack.seen.tokenRequests.filter((request) => request.codeVerifier !== undefined).length,
    };
    // The checks below are worth something only if the earlier tests ran and saw credentials.
    expect(kinds.accessTokens).toBeGreaterThan(3);
    expect(kinds.refreshTokens).toBeGreaterThan(3);
    expect(kinds.verifiers).toBeGreaterThan(3);
    for (const request of stack.seen.tokenRequests) {
      if (request.codeVerifier !== undefined) expect(stack.secrets.has(request.codeVerifier)).toBe(true);
    }
    expect(shown.errorTexts.length).toBeGreaterThan(0);

    expect(shown.leaks(stack.secrets)).toEqual([]);
  });
});

describe("oauth() against oidc-provider, refresh before expiry", () => {
  let stack: OAuthStack;
  const directories: string[] = [];

  beforeAll(async () => {
    // Tokens that live no longer than the margin: each one is refreshed before it is sent.
    stack = await startOAuthStack({ accessTokenTtl: Math.floor(REFRESH_MARGIN_MS / 1000) });
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
    await Promise.all(directories.map((dir) => rm(dir, { recursive: true, force: true })));
  }, 60_000);

  it("refreshes a token about to expire before sending it, one refresh at a time along the rotation", TIMEOUT, async () => {
    const dir = await mkdtemp(join(tmpdir(), "mcpwire-oauth-"));
    directories.push(dir);
    const authorize = browserAuthorize(stack);
    const client = await connect(stack.mcpUrl, { auth: oauth({ authorize, store: fileTokenStore(dir) }) });
    try {
      expect(whoamiText(await client.callTool("whoami"))).toBe(stack.accountId);
      const calls = await Promise.all([1, 2, 3, 4].map(() => client.callTool("whoami")));
      for (const result of calls) expect(whoamiText(result)).toBe(stack.accountId);
      expect(whoamiText(await client.callTool("whoami"))).toBe(stack.accountId);

      expect(authorize).toHaveBeenCalledTimes(1);
      const requests = stack.seen.tokenRequests;
      expect(requests[0]).toMatchObject({ grantType: "authorization_code", status: 200 });
      const refreshes = requests.slice(1);
      expect(refreshes.length).toBeGreaterThan(0);
      // Each refresh presents the refresh token the previous answer issued: the chain never forks,
      // which a rotating provider would punish by revoking the grant.
      let previous = requests[0]!.issuedRefreshToken;
      for (const refresh of refreshes) {
        expect(refresh).toMatchObject({ grantType: "refresh_token", status: 200, refreshToken: previous });
        previous = refresh.issuedRefreshToken;
      }
      // No token was refused: every one was renewed before it was sent.
      expect(stack.seen.refusedTokens).toEqual([]);
      const { entry } = await tokenFile(dir, stack.issuer);
      expect(entry.tokens?.refresh_token).toBe(previous);
    } finally {
      await client.close();
    }
  });
});

describe("the OAuth stack", () => {
  it("closes without leaving a socket or a server open", TIMEOUT, async () => {
    const tcpHandles = () => process.getActiveResourcesInfo().filter((name) => name.startsWith("TCP")).length;
    const baseline = tcpHandles();
    const stack = await startOAuthStack();
    const client = await connect(stack.mcpUrl, { auth: oauth({ authorize: (url) => stack.playBrowser(url) }) });
    expect(whoamiText(await client.callTool("whoami"))).toBe(stack.accountId);
    expect(tcpHandles()).toBeGreaterThan(baseline);
    await client.close();
    await stack.close();
    // Client-side sockets end once they read the server's close: wait for that, within a deadline.
    const deadline = Date.now() + 10_000;
    while (tcpHandles() > baseline && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(tcpHandles()).toBeLessThanOrEqual(baseline);
  });
});
