/**
 * `oauth()` driven through `connect()` against a scripted authorization server and an MCP
 * endpoint that checks its tokens, both real HTTP servers on 127.0.0.1: the behaviours a real
 * authorization server cannot be told to show on demand (a refused refresh, a 5xx, a step-up,
 * concurrent refusals), and what must never reach it.
 */
import { describe, expect, it, vi, type MockInstance } from "vitest";
import {
  McpClient,
  McpTransportError,
  StreamableHttpTransport,
  connect,
  memoryTokenStore,
  oauth,
  type McpTransport,
  type OAuthOptions,
  type StoredCredentials,
  type TokenStore,
  type TokenStoreKey,
} from "../../src/index.js";
import { startEndpoint, type ScriptedEndpoint } from "../fixtures/http-endpoint.js";
import { startProtectedEndpoint, type ProtectedEndpointOptions } from "../fixtures/oauth/protected-endpoint.js";
import { startScriptedAuthorizationServer } from "../fixtures/oauth/scripted-authorization-server.js";
import { rejection } from "../helpers/failure.js";
import { everythingShown, leaksIn } from "../helpers/redaction.js";
import { closedAfterEach } from "../helpers/owned.js";

const own = closedAfterEach();

/** A headless user agent: the scripted server redirects at once, so the callback is its Location. */
function headlessAuthorize(): { authorize: OAuthOptions["authorize"]; urls: URL[] } {
  const urls: URL[] = [];
  return {
    urls,
    authorize: async (url) => {
      urls.push(url);
      const response = await fetch(url, { redirect: "manual" });
      await response.body?.cancel();
      return response.headers.get("location")!;
    },
  };
}

/** A store that logs what is written, in order with what the resource server sees. */
function loggingStore(log: string[]): TokenStore & { last(key: TokenStoreKey): StoredCredentials | undefined } {
  const inner = memoryTokenStore();
  const last = new Map<string, StoredCredentials>();
  return {
    get: (key) => inner.get(key),
    set: (key, value) => {
      log.push(`store ${value.tokens?.refresh_token ?? "-"}`);
      last.set(`${key.resource} ${key.issuer}`, value);
      return inner.set(key, value);
    },
    delete: (key) => inner.delete(key),
    last: (key) => last.get(`${key.resource} ${key.issuer}`),
  };
}

const bearerSeen = (endpoint: ScriptedEndpoint): string[] =>
  endpoint.requests.map((request) => request.headers.authorization ?? "").filter((value) => value !== "");

async function setUp(resourceOptions: ProtectedEndpointOptions = {}, authOptions: Partial<OAuthOptions> = {}, asOptions = {}) {
  const as = own(await startScriptedAuthorizationServer(asOptions));
  const endpoint = own(await startProtectedEndpoint(as, resourceOptions));
  const agent = headlessAuthorize();
  const connectClient = async (): Promise<McpClient> =>
    own(await connect(endpoint.url, { auth: oauth({ authorize: agent.authorize, ...authOptions }), timeoutMs: 20_000, fallback: false }));
  return { as, endpoint, agent, connectClient };
}

describe("oauth() against a scripted authorization server", () => {
  it("logs in on the 401 of the handshake, then every request carries the token", async () => {
    const { as, endpoint, agent, connectClient } = await setUp();
    const client = await connectClient();
    await client.callTool("echo", { text: "hi" });
    expect(agent.urls).toHaveLength(1);
    const url = agent.urls[0]!;
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("resource")).toBe(endpoint.url);
    expect(url.searchParams.get("scope")).toBe("read");
    const token = as.issued[0]!.access;
    const afterLogin = endpoint.requests.slice(endpoint.requests.findIndex((request) => request.headers.authorization !== undefined));
    for (const request of afterLogin.filter((r) => r.path === "/mcp")) expect(request.headers.authorization).toBe(`Bearer ${token}`);
    // The token never reached the authorization server, nor a metadata document.
    expect(leaksIn([token], as.requests.map((request) => request.headers.authorization ?? ""))).toEqual([]);
    for (const request of endpoint.requests.filter((r) => r.path.startsWith("/.well-known"))) expect(request.headers.authorization).toBeUndefined();
  });

  it("shares one login among requests refused at once", async () => {
    const { agent, connectClient } = await setUp({ open: ["initialize", "notifications/initialized", "server/discover"] });
    const client = await connectClient();
    expect(agent.urls).toHaveLength(0);
    await Promise.all(Array.from({ length: 5 }, (_, i) => client.callTool("echo", { text: `call ${i}` })));
    expect(agent.urls).toHaveLength(1);
  });

  it("refreshes once for requests refused at once, and stores the rotated refresh token before its access token is used", async () => {
    const log: string[] = [];
    const store = loggingStore(log);
    const { as, endpoint, agent, connectClient } = await setUp({}, { store });
    const client = await connectClient();
    const first = as.issued[0]!;
    as.revoke(first.access);
    const seenBefore = endpoint.requests.length;
    await Promise.all(Array.from({ length: 4 }, (_, i) => client.callTool("echo", { text: `call ${i}` })));
    expect(as.requests.filter((request) => request.form.grant_type === "refresh_token")).toHaveLength(1);
    expect(agent.urls).toHaveLength(1);
    const second = as.issued[1]!;
    expect(as.requests.find((request) => request.form.grant_type === "refresh_token")!.form.refresh_token).toBe(first.refresh);
    expect(log).toContain(`store ${second.refresh}`);
    // Stored before the new access token went to the server.
    const storedAt = log.indexOf(`store ${second.refresh}`);
    expect(storedAt).toBeGreaterThanOrEqual(0);
    const firstUse = endpoint.requests.slice(seenBefore).findIndex((request) => request.headers.authorization === `Bearer ${second.access}`);
    expect(firstUse).toBeGreaterThanOrEqual(0);
    expect(log.slice(0, storedAt + 1).filter((entry) => entry === `store ${second.refresh}`)).toHaveLength(1);
  });

  it("logs in again when the refresh token is refused (invalid_grant), and drops the old tokens", async () => {
    const { as, agent, connectClient } = await setUp();
    const client = await connectClient();
    as.revoke(as.issued[0]!.access);
    as.revokeRefreshTokens();
    await client.callTool("echo", { text: "after" });
    expect(agent.urls).toHaveLength(2);
    expect(as.requests.filter((request) => request.form.grant_type === "refresh_token")).toHaveLength(1);
  });

  it("refreshes a token about to expire before sending it", async () => {
    // Tokens that live one second are always within the refresh margin.
    const { as, endpoint, connectClient } = await setUp({}, {}, { expiresIn: 1 });
    const client = await connectClient();
    const refusedBefore = endpoint.requests.length;
    await client.callTool("echo", { text: "one" });
    await client.callTool("echo", { text: "two" });
    expect(as.requests.filter((request) => request.form.grant_type === "refresh_token").length).toBeGreaterThanOrEqual(2);
    expect(endpoint.requests.slice(refusedBefore).filter((request) => request.headers.authorization === undefined && request.path === "/mcp")).toEqual([]);
  });

  it("steps up on 403 insufficient_scope with the union of the scopes, once", async () => {
    const { agent, connectClient } = await setUp({ needs: { "tools/call": ["write"] } });
    const client = await connectClient();
    await client.callTool("echo", { text: "write" });
    expect(agent.urls).toHaveLength(2);
    expect(agent.urls[1]!.searchParams.get("scope")).toBe("read write");
  });

  it("with maxStepUps 0, a 403 insufficient_scope fails PROTOCOL with httpStatus 403", async () => {
    const { agent, connectClient } = await setUp({ needs: { "tools/call": ["write"] } }, { maxStepUps: 0 });
    const client = await connectClient();
    const error = await rejection(client.callTool("echo", { text: "write" }));
    expect(error).toBeInstanceOf(McpTransportError);
    expect((error as McpTransportError).reason).toBe("PROTOCOL");
    expect((error as McpTransportError).httpStatus).toBe(403);
    expect(agent.urls).toHaveLength(1);
  });

  // maxStepUps counts step-ups "in a row": one that let its request through starts the count again.
  it("three operations in turn, each needing one more scope, each step up once and go through", async () => {
    const { agent, connectClient } = await setUp({ toolNeeds: { a: ["a"], b: ["b"], c: ["c"] } });
    const client = await connectClient();
    for (const tool of ["a", "b", "c"]) await client.callTool(tool, { text: tool });
    expect(agent.urls.map((url) => url.searchParams.get("scope"))).toEqual(["read", "read a", "read a b", "read a b c"]);
  });

  it("after maxStepUps step-ups in a row that still fall short, a 403 insufficient_scope fails PROTOCOL 403 without another login", async () => {
    const { agent, connectClient } = await setUp({ toolNeeds: { x: ["x"], y: ["y"], z: ["z"] } }, {
      // A user who grants only "read", whatever is asked.
      authorize: (url, context) => {
        const granted = new URL(url);
        granted.searchParams.set("scope", "read");
        return agent.authorize(granted, context);
      },
    });
    const client = await connectClient();
    for (const tool of ["x", "y", "z"]) {
      const error = await rejection(client.callTool(tool, { text: tool }));
      expect((error as McpTransportError).reason).toBe("PROTOCOL");
      expect((error as McpTransportError).httpStatus).toBe(403);
    }
    // The login, then one step-up each for x and y (DEFAULT_MAX_STEP_UPS is 2), none for z.
    expect(agent.urls).toHaveLength(3);
  });

  // RFC 9728 §3.1 puts the query in the well-known URL, and §3.3 wants the metadata's resource
  // identical to the URL it was built from.
  it("servers that differ only in their query: each one's identical metadata is taken, and each has its own login and tokens", async () => {
    const as = own(await startScriptedAuthorizationServer());
    const endpoint = own(
      await startEndpoint((request, res, self) => {
        const url = new URL(request.path, self.origin);
        const resource = `${self.origin}/mcp${url.search}`;
        if (url.pathname === "/.well-known/oauth-protected-resource/mcp") {
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ resource, authorization_servers: [as.issuer] }));
          return true;
        }
        if (url.pathname.startsWith("/.well-known/")) return (res.writeHead(404).end(), true);
        const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
        // A token is for the tenant it was asked for (RFC 8707 §2: the audience).
        if (token === undefined || as.valid.get(token)?.resource !== resource) return (res.writeHead(401, { "www-authenticate": 'Bearer scope="read"' }).end(), true);
        return false;
      }),
    );
    const keys: string[] = [];
    const inner = memoryTokenStore();
    const store: TokenStore = { get: (key) => inner.get(key), set: (key, value) => (keys.push(key.resource), inner.set(key, value)), delete: (key) => inner.delete(key) };
    const agent = headlessAuthorize();
    const auth = oauth({ authorize: agent.authorize, store });
    for (const tenant of ["1", "2"]) {
      const client = own(await connect(`${endpoint.url}?tenant=${tenant}`, { auth, timeoutMs: 20_000, fallback: false }));
      await client.callTool("echo", { text: tenant });
    }
    expect(agent.urls.map((url) => url.searchParams.get("resource"))).toEqual([`${endpoint.url}?tenant=1`, `${endpoint.url}?tenant=2`]);
    expect(new Set(keys)).toEqual(new Set([`${endpoint.url}?tenant=1`, `${endpoint.url}?tenant=2`]));
    const first = as.issued[0]!.access;
    const toTenant2 = endpoint.requests.filter((request) => request.path === "/mcp?tenant=2");
    expect(toTenant2.length).toBeGreaterThan(0);
    for (const request of toTenant2) expect(request.headers.authorization).not.toBe(`Bearer ${first}`);
  });

  it("a 5xx from the authorization server's metadata is UNAVAILABLE at the discovery step", async () => {
    const { as, agent, connectClient } = await setUp();
    as.failMetadataWith(503);
    const error = (await rejection(connectClient())) as McpTransportError;
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.authStep).toBe("discovery");
    expect(agent.urls).toHaveLength(0);
  });

  it("never puts a token, refresh token or code in an error", async () => {
    const { as, connectClient } = await setUp({ needs: { "tools/call": ["admin"] } }, { maxStepUps: 0 });
    const client = await connectClient();
    as.revokeRefreshTokens();
    const error = await rejection(client.callTool("echo", { text: "x" }));
    const text = everythingShown(error);
    expect(leaksIn(as.issued.flatMap((token) => [token.access, token.refresh!]), [text])).toEqual([]);
    expect(text).not.toMatch(/code-\d+-secret|rt-leak-check/);
  });

  it("a login in the browser does not count against timeoutMs, neither the request's nor the connection's", async () => {
    const as = own(await startScriptedAuthorizationServer());
    const endpoint = own(await startProtectedEndpoint(as));
    const agent = headlessAuthorize();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let asked!: () => void;
    const loginAsked = new Promise<void>((resolve) => (asked = resolve));
    const auth = oauth({
      authorize: async (url, context) => {
        asked();
        await released;
        return agent.authorize(url, context);
      },
    });
    // Generous enough for a loaded machine to reach the login; the silent server then proves that
    // a whole deadline passed while the login waited, counted from after it began.
    const timeoutMs = 1_000;
    const silent = own(await startEndpoint((_request, res) => (res.writeHead(200, { "content-type": "text/event-stream" }), res.write(": wait\n\n"), true)));
    const connecting = connect(endpoint.url, { auth, timeoutMs, fallback: false });
    let settled = false;
    void connecting.then(() => (settled = true), () => (settled = true));
    await loginAsked;
    // A server that never answers, with the same deadline: its TIMEOUT says the deadline passed.
    const timedOut = await rejection(connect(silent.url, { timeoutMs, fallback: false }));
    expect((timedOut as McpTransportError).reason).toBe("TIMEOUT");
    expect(settled).toBe(false);
    release();
    const client = own(await connecting);
    await client.callTool("echo", { text: "after the login" });
  });

  describe("a login that nobody waits for any more is told so through the authorize hook's signal", () => {
    /** An authorize hook that waits until it is released or its signal aborts, and says when it is asked. */
    function waitingAuthorize() {
      const agent = headlessAuthorize();
      let asked!: (signal: AbortSignal) => void;
      const loginAsked = new Promise<AbortSignal>((resolve) => (asked = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const authorize: OAuthOptions["authorize"] = (url, context) => {
        asked(context.signal);
        return new Promise<string | URL>((resolve, reject) => {
          context.signal.addEventListener("abort", () => reject(context.signal.reason as Error), { once: true });
          void released.then(() => resolve(agent.authorize(url, context)));
        });
      };
      return { authorize, loginAsked, release };
    }
    const abortedEvent = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));

    it("connect()'s signal aborted during the login: the hook's signal aborts, and connect rejects with the abort reason", async () => {
      const as = own(await startScriptedAuthorizationServer());
      const endpoint = own(await startProtectedEndpoint(as));
      const hook = waitingAuthorize();
      const controller = new AbortController();
      const connecting = connect(endpoint.url, { auth: oauth({ authorize: hook.authorize }), signal: controller.signal, timeoutMs: 20_000, fallback: false });
      const signal = await hook.loginAsked;
      const aborted = abortedEvent(signal);
      const rejected = rejection(connecting);
      const reason = new Error("the user gave up");
      controller.abort(reason);
      await aborted;
      expect(signal.aborted).toBe(true);
      expect(await rejected).toBe(reason);
    });

    it("one of two requests waiting on the login gives up: the login goes on for the other", async () => {
      const as = own(await startScriptedAuthorizationServer());
      const endpoint = own(await startProtectedEndpoint(as, { open: ["initialize", "notifications/initialized", "server/discover"] }));
      const hook = waitingAuthorize();
      // The GET stream is on (the default), but it starts no login: the first call does.
      const client = own(await connect(endpoint.url, { auth: oauth({ authorize: hook.authorize }), timeoutMs: 20_000, fallback: false }));
      // The request that started the login stays; one refused while it runs joins it, then leaves.
      const staying = client.callTool("echo", { text: "stays" });
      const signal = await hook.loginAsked;
      const controller = new AbortController();
      const leaving = client.callTool("echo", { text: "leaves" }, { signal: controller.signal });
      await expect.poll(() => endpoint.requests.filter((request) => request.path === "/mcp" && request.body?.method === "tools/call").length).toBe(2);
      const left = rejection(leaving);
      const reason = new Error("this one gave up");
      controller.abort(reason);
      expect(await left).toBe(reason);
      expect(signal.aborted).toBe(false);
      hook.release();
      expect((await staying).content).toEqual([{ type: "text", text: "stays" }]);
      // The GET stream, refused without a token, is opened again with the one the login obtained.
      const token = as.issued.at(-1)!.access;
      await expect.poll(() => endpoint.requests.some((request) => request.method === "GET" && request.path === "/mcp" && request.headers.authorization === `Bearer ${token}`), { timeout: 10_000 }).toBe(true);
    });

    it("with the GET stream on (the default), both requests waiting on the login give up: the hook's signal aborts", async () => {
      // The GET stream is background traffic: it neither starts a login nor keeps one going.
      const as = own(await startScriptedAuthorizationServer());
      const endpoint = own(await startProtectedEndpoint(as, { open: ["initialize", "notifications/initialized", "server/discover"] }));
      const hook = waitingAuthorize();
      let asked = 0;
      const counted: OAuthOptions["authorize"] = (url, context) => {
        asked++;
        return hook.authorize(url, context);
      };
      const client = own(await connect(endpoint.url, { auth: oauth({ authorize: counted }), timeoutMs: 20_000, fallback: false }));
      await expect.poll(() => endpoint.requests.filter((request) => request.method === "GET" && request.path === "/mcp").length, { timeout: 10_000 }).toBe(1);
      const first = new AbortController();
      const firstCall = rejection(client.callTool("echo", { text: "first" }, { signal: first.signal }));
      const signal = await hook.loginAsked;
      const second = new AbortController();
      const secondCall = rejection(client.callTool("echo", { text: "second" }, { signal: second.signal }));
      await expect.poll(() => endpoint.requests.filter((request) => request.path === "/mcp" && request.body?.method === "tools/call").length, { timeout: 10_000 }).toBe(2);
      second.abort(new Error("the second gave up"));
      await secondCall;
      expect(signal.aborted).toBe(false);
      first.abort(new Error("the first gave up"));
      await firstCall;
      await expect.poll(() => signal.aborted, { timeout: 10_000 }).toBe(true);
      expect(asked).toBe(1);
    });

    it("both requests waiting on the login give up: the hook's signal aborts, though their cancel notices were refused while it ran", async () => {
      // STYLE: "The cancel notice never holds up the caller"; nor does it keep a login going that
      // nobody waits for, or start one.
      const as = own(await startScriptedAuthorizationServer());
      const endpoint = own(await startProtectedEndpoint(as, { open: ["initialize", "notifications/initialized", "server/discover"] }));
      const hook = waitingAuthorize();
      let asked = 0;
      const counted: OAuthOptions["authorize"] = (url, context) => {
        asked++;
        return hook.authorize(url, context);
      };
      // Says when the client has the endpoint's answer to a cancel notice (a 401: no token yet).
      const refusedNotices: number[] = [];
      const watching: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (typeof init?.body === "string" && init.body.includes('"notifications/cancelled"')) refusedNotices.push(response.status);
        return response;
      };
      const client = own(await connect(endpoint.url, { auth: oauth({ authorize: counted }), fetch: watching, listen: false, timeoutMs: 20_000, fallback: false }));
      const first = new AbortController();
      const firstCall = rejection(client.callTool("echo", { text: "first" }, { signal: first.signal }));
      const signal = await hook.loginAsked;
      const second = new AbortController();
      const secondCall = rejection(client.callTool("echo", { text: "second" }, { signal: second.signal }));
      await expect.poll(() => endpoint.requests.filter((request) => request.path === "/mcp" && request.body?.method === "tools/call").length, { timeout: 10_000 }).toBe(2);
      second.abort(new Error("the second gave up"));
      await secondCall;
      await expect.poll(() => refusedNotices, { timeout: 10_000 }).toEqual([401]);
      // One turn of the event loop: what the client does with that answer is done by then.
      await new Promise((resolve) => setImmediate(resolve));
      expect(signal.aborted).toBe(false);
      first.abort(new Error("the first gave up"));
      await firstCall;
      await expect.poll(() => signal.aborted, { timeout: 10_000 }).toBe(true);
      await expect.poll(() => refusedNotices, { timeout: 10_000 }).toEqual([401, 401]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(asked).toBe(1);
      const discoveries = endpoint.requests.filter((request) => request.path.startsWith("/.well-known/")).length;
      expect(discoveries).toBe(1);
    });

    it("the GET that checks the endpoint is still there after a lost reply, refused (401), starts no login: the endpoint answered", async () => {
      // Background traffic like the GET stream: nobody waits for this GET's answer as such, and any
      // status, a 401 too, says the endpoint is there.
      const as = own(await startScriptedAuthorizationServer());
      const endpoint = own(
        await startProtectedEndpoint(as, {
          open: ["initialize", "notifications/initialized", "server/discover", "ping"],
          behaviour: (request, res) => {
            if (request.body?.method !== "tools/call") return false;
            // A reply stream that ends before its answer, with no event id to resume it from: lost.
            res.writeHead(200, { "content-type": "text/event-stream" }).end();
            return true;
          },
        }),
      );
      let asked = 0;
      const authorize: OAuthOptions["authorize"] = (url, context) => {
        asked++;
        return headlessAuthorize().authorize(url, context);
      };
      // The statuses the client got for GETs of the endpoint: the liveness check's, and any other.
      const gets: number[] = [];
      const watching: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (init?.method === "GET" && new URL(input instanceof Request ? input.url : input).pathname === "/mcp") gets.push(response.status);
        return response;
      };
      // The connection the client opens, to follow its liveness check (`unreachable`) to the end:
      // nothing else says when the transport has concluded about the 401.
      const transport = new StreamableHttpTransport(endpoint.url, { auth: oauth({ authorize }), fetch: watching, listen: false });
      let checks: MockInstance<() => Promise<unknown>> | undefined;
      const watched: McpTransport = {
        kind: transport.kind,
        description: transport.description,
        open: async (events, options) => {
          const connection = await transport.open(events, options);
          checks = vi.spyOn(connection as unknown as { unreachable(): Promise<unknown> }, "unreachable");
          return connection;
        },
      };
      const client = own(await McpClient.connect(watched, { timeoutMs: 20_000 }));
      const lost = await rejection(client.callTool("echo", { text: "lost" }));
      expect((lost as McpTransportError).reason).toBe("DISCONNECTED");
      await expect.poll(() => checks?.mock.results.length, { timeout: 10_000 }).toBe(1);
      // The check concluded: the endpoint answered (undefined, no failure). A login it started or
      // joined would have run by then, since the check would wait on it for its answer.
      expect(await checks!.mock.results[0]!.value).toBeUndefined();
      expect(gets).toEqual([401]);
      expect(endpoint.requests.filter((request) => request.path.startsWith("/.well-known/"))).toEqual([]);
      expect(as.requests).toEqual([]);
      expect(asked).toBe(0);
      // The 401 is an answer: the endpoint is there, and the connection stays open.
      await client.ping();
    });

    it("the client closed during the login: the hook's signal aborts", async () => {
      const as = own(await startScriptedAuthorizationServer());
      const endpoint = own(await startProtectedEndpoint(as, { open: ["initialize", "notifications/initialized", "server/discover"] }));
      const hook = waitingAuthorize();
      const client = own(await connect(endpoint.url, { auth: oauth({ authorize: hook.authorize }), timeoutMs: 20_000, fallback: false }));
      const calling = client.callTool("echo", { text: "never" });
      void calling.catch(() => {});
      const signal = await hook.loginAsked;
      const aborted = abortedEvent(signal);
      await client.close();
      await aborted;
      await rejection(calling);
    });
  });

  it("refuses auth beside an Authorization header", async () => {
    const { endpoint } = await setUp();
    const auth = oauth({ authorize: headlessAuthorize().authorize });
    const error = await rejection(connect(endpoint.url, { auth, headers: { Authorization: "Bearer mine" } }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/auth.*Authorization/);
    expect(bearerSeen(endpoint)).toEqual([]);
  });
});
