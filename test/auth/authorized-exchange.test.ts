/**
 * One HTTP exchange under an AuthProvider, against real node:http servers: which refusals ask
 * for credentials, the retry with the provider's new headers, the refusal the provider cannot
 * settle, the bound on rounds, and credentials kept from another origin.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { McpTransportError } from "../../src/errors.js";
import type { AuthProvider, AuthRefusal, AuthRequest, HttpAccess } from "../../src/transport/http/auth-provider.js";
import { asksForCredentials, authorizedExchange, MAX_AUTH_ROUNDS, withAuthHeaders } from "../../src/transport/http/authorized-exchange.js";
import type { ExchangeOptions } from "../../src/transport/http/endpoint-policy.js";
import type { HttpRequest, HttpResponse } from "../../src/transport/http/http-client.js";
import type { UndiciHttpClient } from "../../src/transport/http/undici-http-client.js";
import { directHttpClient } from "../helpers/direct-http-client.js";
import { failure } from "../helpers/failure.js";
import { everythingShown, leaksIn } from "../helpers/redaction.js";

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

interface TestServer {
  url: URL;
  seen: Seen[];
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function startServer(handler: Handler): Promise<TestServer> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method!, path: req.url!, headers: req.headers });
    req.resume();
    req.on("end", () => handler(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), seen };
}

function newClient(): UndiciHttpClient {
  const client = directHttpClient();
  cleanups.push(() => client.close());
  return client;
}

function accessFor(server: URL, client: UndiciHttpClient): HttpAccess {
  const access = { server, client, maxBytes: 1 << 20, readTimeoutMs: 5_000, redirect: "same-origin" as const, waitingForUser: () => {} };
  return access;
}

const OPTIONS: ExchangeOptions = { redirect: "same-origin", userHeaders: [], what: 'request "tools/call"', attempts: 1 };

function post(url: URL, headers: Record<string, string> = {}): HttpRequest {
  return {
    method: "POST",
    url,
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
    signal: new AbortController().signal,
  };
}

async function bodyOf(response: HttpResponse): Promise<string> {
  const chunks: Uint8Array[] = [];
  await response.read((chunk) => chunks.push(chunk));
  return Buffer.concat(chunks).toString("utf8");
}

/** Answers 200 to `Bearer <good>`, else `status` with the challenge. */
function guarded(good: string, status = 401, challenge = 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"'): Handler {
  return (req, res) => {
    if (req.headers.authorization === `Bearer ${good}`) {
      res.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
    } else {
      res.writeHead(status, { "www-authenticate": challenge, "content-type": "application/json" }).end('{"error":"unauthorized"}');
    }
  };
}

/** A provider that gives `Bearer <token>` and, when challenged, moves to the next token of `tokens`. */
class ScriptedProvider implements AuthProvider {
  readonly headerCalls: AuthRequest[] = [];
  readonly refusals: AuthRefusal[] = [];
  /** Requests reported as answered after a refusal. */
  readonly acceptedAfterRefusal: AuthRequest[] = [];
  private index = 0;

  constructor(
    private readonly tokens: string[],
    private readonly settle: (refusal: AuthRefusal) => boolean = () => true,
  ) {}

  headers(request: AuthRequest): Record<string, string> {
    this.headerCalls.push(request);
    return { authorization: `Bearer ${this.tokens[Math.min(this.index, this.tokens.length - 1)]}` };
  }

  async challenged(refusal: AuthRefusal): Promise<boolean> {
    this.refusals.push(refusal);
    if (!this.settle(refusal)) return false;
    this.index++;
    return true;
  }

  accepted(request: AuthRequest): void {
    this.acceptedAfterRefusal.push(request);
  }
}

function fakeResponse(status: number, wwwAuthenticate?: string): HttpResponse {
  return {
    status,
    header: (name) => (name === "www-authenticate" ? wwwAuthenticate : undefined),
    read: async () => {},
    discard: () => {},
  };
}

describe("asksForCredentials", () => {
  const cases: [string, number, string | undefined, boolean][] = [
    ["401 with a challenge", 401, 'Bearer realm="x"', true],
    ["401 without a challenge", 401, undefined, true],
    ["403 with insufficient_scope", 403, 'Bearer error="insufficient_scope", scope="files:write"', true],
    ["403 with a bare insufficient_scope", 403, "Bearer error=insufficient_scope, scope=files:write", true],
    ["403 with insufficient_scope in a second challenge", 403, 'Basic realm="a", Bearer error="insufficient_scope"', true],
    ["403 with another error", 403, 'Bearer error="invalid_token"', false],
    ["403 with insufficient_scope only in the description", 403, 'Bearer error="invalid_request", error_description="insufficient_scope"', false],
    ["403 without a challenge", 403, undefined, false],
    ["400", 400, 'Bearer error="insufficient_scope"', false],
    ["404", 404, undefined, false],
    ["200", 200, undefined, false],
    ["500", 500, undefined, false],
  ];

  it.each(cases)("%s: %s", (_name, status, challenge, asks) => {
    expect(asksForCredentials(fakeResponse(status, challenge))).toBe(asks);
  });

  it("reads the header of a real response", async () => {
    const server = await startServer(guarded("never", 403, 'Bearer error="insufficient_scope", scope="a b"'));
    const response = await newClient().request(post(server.url));
    expect(asksForCredentials(response)).toBe(true);
    response.discard();
  });
});

describe("authorizedExchange", () => {
  it("without a provider is the plain exchange: a 401 comes back as it is, without a retry", async () => {
    const server = await startServer(guarded("good"));
    const client = newClient();
    const result = await authorizedExchange(undefined, accessFor(server.url, client), post(server.url), OPTIONS);
    expect(result.response.status).toBe(401);
    result.response.discard();
    expect(server.seen).toHaveLength(1);
    expect(server.seen[0]!.headers.authorization).toBeUndefined();
  });

  it("sends the provider's headers on a request that needs no round, and asks nothing more", async () => {
    const server = await startServer(guarded("good"));
    const client = newClient();
    const provider = new ScriptedProvider(["good"]);
    const result = await authorizedExchange(provider, accessFor(server.url, client), post(server.url), OPTIONS);
    expect(result.response.status).toBe(200);
    expect(await bodyOf(result.response)).toContain('"result"');
    expect(server.seen.map((seen) => seen.headers.authorization)).toEqual(["Bearer good"]);
    expect(provider.refusals).toHaveLength(0);
  });

  it("a 401 then a success: exactly one retry, carrying the provider's new header", async () => {
    const challenge = 'Bearer error="invalid_token", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"';
    const server = await startServer(guarded("fresh", 401, challenge));
    const client = newClient();
    const provider = new ScriptedProvider(["stale", "fresh"]);
    const access = accessFor(server.url, client);
    const request = post(server.url, { "mcp-session-id": "session-1" });
    const result = await authorizedExchange(provider, access, request, OPTIONS);

    expect(result.response.status).toBe(200);
    expect(await bodyOf(result.response)).toContain('"result"');
    expect(server.seen.map((seen) => seen.headers.authorization)).toEqual(["Bearer stale", "Bearer fresh"]);
    // The same request went again: method, path, and its own headers.
    expect(server.seen.map((seen) => `${seen.method} ${seen.path} ${seen.headers["mcp-session-id"]}`)).toEqual([
      "POST /mcp session-1",
      "POST /mcp session-1",
    ]);
    expect(provider.refusals).toHaveLength(1);
    const refusal = provider.refusals[0]!;
    expect(refusal.status).toBe(401);
    expect(refusal.wwwAuthenticate).toBe(challenge);
    expect(refusal.sent).toEqual({ authorization: "Bearer stale" });
    expect(refusal.method).toBe("POST");
    expect(refusal.url.href).toBe(server.url.href);
    expect(refusal.http).toBe(access);
    // One `tried` set for the request's rounds.
    expect(provider.headerCalls).toHaveLength(2);
    expect(provider.headerCalls[1]!.tried).toBe(provider.headerCalls[0]!.tried);
    expect(refusal.tried).toBe(provider.headerCalls[0]!.tried);
    // The caller's request object is left as it was.
    expect(request.headers.authorization).toBeUndefined();
  });

  it("a 403 insufficient_scope is a round too", async () => {
    const server = await startServer(guarded("wider", 403, 'Bearer error="insufficient_scope", scope="files:write"'));
    const provider = new ScriptedProvider(["narrow", "wider"]);
    const result = await authorizedExchange(provider, accessFor(server.url, newClient()), post(server.url), OPTIONS);
    expect(result.response.status).toBe(200);
    result.response.discard();
    expect(provider.refusals.map((refusal) => refusal.status)).toEqual([403]);
    expect(server.seen).toHaveLength(2);
  });

  it("a request answered after a refusal is reported to the provider once (accepted), with its tried set; one never refused is not", async () => {
    const server = await startServer(guarded("wider", 403, 'Bearer error="insufficient_scope", scope="files:write"'));
    const provider = new ScriptedProvider(["narrow", "wider"]);
    const access = accessFor(server.url, newClient());
    const stepped = await authorizedExchange(provider, access, post(server.url), OPTIONS);
    stepped.response.discard();
    expect(provider.acceptedAfterRefusal).toHaveLength(1);
    expect(provider.acceptedAfterRefusal[0]!.tried).toBe(provider.refusals[0]!.tried);
    const plain = await authorizedExchange(provider, access, post(server.url), OPTIONS);
    expect(plain.response.status).toBe(200);
    plain.response.discard();
    expect(provider.acceptedAfterRefusal).toHaveLength(1);
  });

  it("a refusal that stands, or a retry answered with an error status, is not reported as accepted", async () => {
    const refusing = await startServer(guarded("never", 403, 'Bearer error="insufficient_scope", scope="admin"'));
    const standing = new ScriptedProvider(["token"], () => false);
    await failure(authorizedExchange(standing, accessFor(refusing.url, newClient()), post(refusing.url), OPTIONS));
    expect(standing.acceptedAfterRefusal).toEqual([]);
    let answered = 0;
    const failing = await startServer((_req, res) => {
      if (answered++ === 0) res.writeHead(401, { "www-authenticate": "Bearer" }).end();
      else res.writeHead(500).end();
    });
    const provider = new ScriptedProvider(["stale", "fresh"]);
    const result = await authorizedExchange(provider, accessFor(failing.url, newClient()), post(failing.url), OPTIONS);
    expect(result.response.status).toBe(500);
    result.response.discard();
    expect(provider.acceptedAfterRefusal).toEqual([]);
  });

  it("a 403 without insufficient_scope is not handed to the provider", async () => {
    const server = await startServer(guarded("never", 403, 'Bearer error="invalid_token"'));
    const provider = new ScriptedProvider(["token"]);
    const result = await authorizedExchange(provider, accessFor(server.url, newClient()), post(server.url), OPTIONS);
    expect(result.response.status).toBe(403);
    result.response.discard();
    expect(provider.refusals).toHaveLength(0);
    expect(server.seen).toHaveLength(1);
  });

  it.each([
    [401, 'Bearer error="invalid_token"', "the credentials obtained were refused too"],
    [403, 'Bearer error="insufficient_scope", scope="admin"', "does not cover it"],
  ])("a provider with nothing to try on %s: PROTOCOL with the status and challenge, never the token", async (status, challenge, why) => {
    const token = "tok-very-secret-8ad1";
    const server = await startServer(guarded("never", status, challenge));
    const provider = new ScriptedProvider([token], () => false);
    const error = await failure(authorizedExchange(provider, accessFor(server.url, newClient()), post(server.url), OPTIONS));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.httpStatus).toBe(status);
    expect(error.httpHeaders).toEqual({ "www-authenticate": challenge });
    expect(error.message).toContain(`HTTP ${status}`);
    expect(error.message).toContain('request "tools/call"');
    expect(error.message).toContain(why);
    expect(leaksIn([token], [everythingShown(error)])).toEqual([]);
    expect(provider.refusals).toHaveLength(1);
    expect(server.seen).toHaveLength(1);
  });

  it("a refusal without a challenge keeps no header", async () => {
    const server = await startServer((_req, res) => res.writeHead(401).end());
    const provider = new ScriptedProvider(["token"], () => false);
    const error = await failure(authorizedExchange(provider, accessFor(server.url, newClient()), post(server.url), OPTIONS));
    expect(error.httpStatus).toBe(401);
    expect(error.httpHeaders).toBeUndefined();
    expect(provider.refusals[0]!.wwwAuthenticate).toBeUndefined();
  });

  it(`hands at most MAX_AUTH_ROUNDS (${MAX_AUTH_ROUNDS}) refusals of one request to the provider, then returns the refusal`, async () => {
    const server = await startServer(guarded("never"));
    const provider = new ScriptedProvider(Array.from({ length: 20 }, (_, i) => `t${i}`));
    const result = await authorizedExchange(provider, accessFor(server.url, newClient()), post(server.url), OPTIONS);
    expect(result.response.status).toBe(401);
    result.response.discard();
    expect(provider.refusals).toHaveLength(MAX_AUTH_ROUNDS);
    expect(server.seen).toHaveLength(MAX_AUTH_ROUNDS + 1);
    expect(server.seen.map((seen) => seen.headers.authorization)).toEqual(
      Array.from({ length: MAX_AUTH_ROUNDS + 1 }, (_, i) => `Bearer t${i}`),
    );
  });

  it("a provider's own failure ends the exchange with it", async () => {
    const server = await startServer(guarded("never"));
    const own = new McpTransportError("PROTOCOL", "discovery failed", { authStep: "discovery" });
    const provider: AuthProvider = { headers: () => ({}), challenged: () => Promise.reject(own) };
    const error = await failure(authorizedExchange(provider, accessFor(server.url, newClient()), post(server.url), OPTIONS));
    expect(error).toBe(own);
    expect(server.seen).toHaveLength(1);
  });

  it.each([
    ["a value with a line break", { authorization: "Bearer a\r\nx-injected: 1" }],
    ["a name with a space", { "bad name": "x" }],
    ["a value that is not a string", { authorization: 42 }],
  ])("refuses provider headers with %s before sending anything", async (_name, headers) => {
    const server = await startServer(guarded("never"));
    const provider: AuthProvider = { headers: () => headers as never, challenged: async () => true };
    const error = await failure(authorizedExchange(provider, accessFor(server.url, newClient()), post(server.url), OPTIONS));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain("unusable header");
    expect(server.seen).toHaveLength(0);
  });

  it("a provider whose headers() throws fails UNAVAILABLE, before sending anything", async () => {
    const server = await startServer(guarded("never"));
    const provider: AuthProvider = {
      headers: () => {
        throw new Error("keychain locked");
      },
      challenged: async () => true,
    };
    const error = await failure(authorizedExchange(provider, accessFor(server.url, newClient()), post(server.url), OPTIONS));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(server.seen).toHaveLength(0);
  });

  it("lower-cases the provider's header names", async () => {
    const server = await startServer(guarded("good"));
    const provider: AuthProvider = { headers: () => ({ Authorization: "Bearer good" }), challenged: async () => false };
    const result = await authorizedExchange(provider, accessFor(server.url, newClient()), post(server.url), OPTIONS);
    expect(result.response.status).toBe(200);
    result.response.discard();
  });
});

describe("credentials and redirects", () => {
  function redirectingTo(target: URL, status = 307): Handler {
    return (_req, res) => res.writeHead(status, { location: target.href }).end();
  }

  it("a cross-origin redirect is refused, and the provider's Authorization never reaches the other server", async () => {
    const other = await startServer(guarded("secret-token"));
    const server = await startServer(redirectingTo(other.url));
    expect(other.url.origin).not.toBe(server.url.origin);
    const provider = new ScriptedProvider(["secret-token"]);
    const error = await failure(authorizedExchange(provider, accessFor(server.url, newClient()), post(server.url), OPTIONS));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.httpStatus).toBe(307);
    expect(error.message).toContain(other.url.href);
    expect(error.message).not.toContain("secret-token");
    expect(server.seen.map((seen) => seen.headers.authorization)).toEqual(["Bearer secret-token"]);
    expect(other.seen).toHaveLength(0);
  });

  it("a cross-origin redirect on the retry after a 401 is refused too", async () => {
    const other = await startServer(guarded("fresh"));
    const server = await startServer((req, res) => {
      if (req.headers.authorization === "Bearer fresh") redirectingTo(other.url, 308)(req, res);
      else guarded("never")(req, res);
    });
    const provider = new ScriptedProvider(["stale", "fresh"]);
    const error = await failure(authorizedExchange(provider, accessFor(server.url, newClient()), post(server.url), OPTIONS));
    expect(error.httpStatus).toBe(308);
    expect(server.seen).toHaveLength(2);
    expect(other.seen).toHaveLength(0);
  });

  it("a same-origin redirect keeps the provider's headers", async () => {
    const server = await startServer((req, res) => {
      if (req.url === "/mcp") res.writeHead(307, { location: "/moved" }).end();
      else guarded("good")(req, res);
    });
    const provider = new ScriptedProvider(["good"]);
    const result = await authorizedExchange(provider, accessFor(server.url, newClient()), post(server.url), OPTIONS);
    expect(result.response.status).toBe(200);
    result.response.discard();
    expect(server.seen.map((seen) => `${seen.path} ${seen.headers.authorization}`)).toEqual(["/mcp Bearer good", "/moved Bearer good"]);
  });

  it('with redirect "none", even a same-origin redirect is refused', async () => {
    const server = await startServer((_req, res) => res.writeHead(307, { location: "/moved" }).end());
    const provider = new ScriptedProvider(["good"]);
    const error = await failure(
      authorizedExchange(provider, accessFor(server.url, newClient()), post(server.url), { ...OPTIONS, redirect: "none" }),
    );
    expect(error.httpStatus).toBe(307);
    expect(server.seen.map((seen) => seen.path)).toEqual(["/mcp"]);
  });
});

describe("withAuthHeaders", () => {
  it("adds the provider's headers without rounds", async () => {
    const server = await startServer(guarded("never"));
    const client = newClient();
    const provider = new ScriptedProvider(["token-1"]);
    const request = post(server.url, { "mcp-session-id": "s" });
    const sent = await withAuthHeaders(provider, accessFor(server.url, client), { ...request, method: "DELETE", body: undefined });
    expect(sent.headers).toEqual({ ...request.headers, authorization: "Bearer token-1" });
    expect(sent.method).toBe("DELETE");
    expect(request.headers.authorization).toBeUndefined();
    expect(provider.headerCalls).toHaveLength(1);
    expect(provider.headerCalls[0]!.method).toBe("DELETE");
    const response = await client.request(sent);
    expect(response.status).toBe(401);
    response.discard();
    expect(provider.refusals).toHaveLength(0);
    expect(server.seen.map((seen) => seen.headers.authorization)).toEqual(["Bearer token-1"]);
  });

  it("without a provider, the request as it is", async () => {
    const request = post(new URL("http://127.0.0.1:1/mcp"));
    expect(await withAuthHeaders(undefined, accessFor(request.url, newClient()), request)).toBe(request);
  });
});
