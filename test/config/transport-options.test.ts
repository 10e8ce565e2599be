/**
 * Every documented option of every transport reaches that transport, whichever way it is given:
 * to `connect(target, options)`, in a declaration, and in an `mcpServers` file. Each case checks
 * the option's effect on the wire or the process (a ping within the interval, the variable in the
 * child, the redirect refused), never only that it was accepted; dropped on the way, the default
 * would show instead and the case fails.
 */
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  StdioTransport,
  TRANSPORT_OPTION_NAMES,
  connect,
  loadServerConfig,
  type AuthProvider,
  type ClientOptions,
  type McpClient,
  type TransportName,
} from "../../src/index.js";
import { startEndpoint, type ScriptedEndpoint } from "../fixtures/http-endpoint.js";
import { startSseEndpoint, type SseEndpoint } from "../fixtures/sse-endpoint.js";
import { startWsFixture, type WsFixture } from "../fixtures/ws-server.js";
import { failure, rejection } from "../helpers/failure.js";
import { closedAfterEach } from "../helpers/owned.js";
import { FIXTURES } from "../stdio/helpers.js";
import { startForwardProxy } from "../fixtures/forward-proxy.js";
import { startTlsFront } from "../fixtures/tls-front.js";
import { testCertificates } from "../helpers/test-certificates.js";

type Route = "connect()" | "declaration" | "config file";
const DATA_ROUTES: readonly Route[] = ["connect()", "declaration", "config file"];
const CODE_ROUTES: readonly Route[] = ["connect()"];

/** Where a server is: a command line for stdio, a URL for the others. */
interface Target {
  transport: TransportName;
  command?: string;
  args?: string[];
  url?: string;
}

interface Case {
  transport: TransportName;
  option: string;
  /** What the case shows, for its title. */
  effect: string;
  /** Only `connect()` can carry code (functions, streams). */
  code?: boolean;
  /** The test's own limit, in ms, where only the option can make it pass in time. */
  limitMs?: number;
  run(open: Opener): Promise<void>;
}

/** Connects to `target` with `options` given the way the route gives them. */
type Opener = (target: Target, options: Record<string, unknown>, client?: ClientOptions) => Promise<McpClient>;

/** The TypeError a call is refused with. */
async function refusal(promise: Promise<unknown>): Promise<TypeError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(TypeError);
  return error as TypeError;
}

const own = closedAfterEach();

function openerFor(route: Route): Opener {
  return async (target, options, client = {}) => {
    const clientOptions: ClientOptions = { timeoutMs: 20_000, ...client };
    if (route === "connect()") {
      const text = target.url ?? [target.command!, ...(target.args ?? [])].join(" ");
      return own(await connect(text, { ...clientOptions, ...options }));
    }
    const declaration = { transport: target.transport, ...withoutTransport(target), ...options };
    if (route === "declaration") return own(await connect({ name: "under-test", ...declaration }, clientOptions));
    const folder = mkdtempSync(join(tmpdir(), "mcpwire-options-"));
    const configFile = join(folder, "mcp.json");
    writeFileSync(configFile, JSON.stringify({ mcpServers: { "under-test": declaration } }));
    return own(await connect(await loadServerConfig("under-test", { configFile }), clientOptions));
  };
}

function withoutTransport(target: Target): Omit<Target, "transport"> {
  const { transport: _transport, ...rest } = target;
  return rest;
}

const node = process.execPath;
const stdioServer = (fixture: string, ...args: string[]): Target => ({ transport: "stdio", command: node, args: [FIXTURES + fixture, ...args] });
/** A child that writes three stderr lines and exits with code 1 before it answers anything. */
const failingChild = (): Target => ({
  transport: "stdio",
  command: node,
  args: [FIXTURES + "stdio-stderr-then-exit.mjs"],
});
const text = (result: { content: { type: string; text?: string }[] }): string => result.content[0]?.text ?? "";
const stdioOf = (client: McpClient): StdioTransport => client.session.transport as StdioTransport;

async function http(behaviour?: Parameters<typeof startEndpoint>[0]): Promise<ScriptedEndpoint> {
  return own(await startEndpoint(behaviour));
}
async function ws(options?: Parameters<typeof startWsFixture>[0]): Promise<WsFixture> {
  return own(await startWsFixture(options));
}
async function sse(options?: Parameters<typeof startSseEndpoint>[0]): Promise<SseEndpoint> {
  return own(await startSseEndpoint(options));
}

/** An auth provider with one fixed header, which never settles a refusal. */
function staticAuth(authorization: string): AuthProvider {
  return { headers: () => ({ authorization }), challenged: async () => false };
}

/** A `fetch` that counts its calls and passes them to the global one. */
function countingFetch(): { fetch: typeof fetch; calls: () => number } {
  let calls = 0;
  return {
    fetch: (input, init) => {
      calls++;
      return fetch(input, init);
    },
    calls: () => calls,
  };
}

const CASES: Case[] = [
  // ---- stdio ----
  {
    transport: "stdio",
    option: "env",
    effect: "the variable is set in the child",
    async run(open) {
      const client = await open(stdioServer("stdio-print-env.mjs"), { env: { MCPWIRE_OPTION_ENV: "from-the-option" } });
      expect(JSON.parse(text(await client.callTool("env")))).toMatchObject({ MCPWIRE_OPTION_ENV: "from-the-option" });
    },
  },
  {
    transport: "stdio",
    option: "envAllow",
    effect: "the child inherits exactly the allowed variable",
    async run(open) {
      process.env.MCPWIRE_OPTION_INHERITED = "inherited";
      try {
        const client = await open(stdioServer("stdio-print-env.mjs"), { envAllow: ["MCPWIRE_OPTION_INHERITED"] });
        const env = JSON.parse(text(await client.callTool("env"))) as Record<string, string>;
        expect(env.MCPWIRE_OPTION_INHERITED).toBe("inherited");
        expect(env.PATH).toBeUndefined();
      } finally {
        delete process.env.MCPWIRE_OPTION_INHERITED;
      }
    },
  },
  {
    transport: "stdio",
    option: "cwd",
    effect: "the child runs in that directory",
    async run(open) {
      const folder = realpathSync(mkdtempSync(join(tmpdir(), "mcpwire-cwd-")));
      const client = await open(stdioServer("stdio-print-env.mjs"), { cwd: folder });
      expect(text(await client.callTool("cwd"))).toBe(folder);
    },
  },
  {
    transport: "stdio",
    option: "stderr",
    effect: "the child's stderr is forwarded to the callback",
    code: true,
    async run(open) {
      let forwarded = "";
      await failure(open(failingChild(), { stderr: (chunk: string) => (forwarded += chunk) }));
      expect(forwarded).toContain("third line");
    },
  },
  {
    transport: "stdio",
    option: "nonProtocolLines",
    effect: `"skip" lets a banner line pass, counted`,
    async run(open) {
      const client = await open(stdioServer("stdio-garbage.mjs", "--banner"), { nonProtocolLines: "skip" });
      expect(text(await client.callTool("echo", { text: "still here" }))).toBe("still here");
      expect(stdioOf(client).skippedLines).toBe(1);
    },
  },
  {
    transport: "stdio",
    option: "stderrTailLines",
    effect: "the error's stderr tail keeps that many lines",
    async run(open) {
      const error = await failure(open(failingChild(), { stderrTailLines: 1 }));
      expect(error.stderrTail).toContain("third line");
      expect(error.stderrTail).not.toContain("second line");
    },
  },
  {
    transport: "stdio",
    option: "stderrTailBytes",
    effect: "the error's stderr tail keeps at most that many bytes",
    async run(open) {
      const error = await failure(open(failingChild(), { stderrTailBytes: 16 }));
      expect(error.stderrTail).toContain("third line");
      expect(error.stderrTail).not.toContain("first line");
    },
  },
  {
    transport: "stdio",
    option: "stdinCloseGraceMs",
    effect: "a child slower to leave than the grace gets SIGTERM (by default it would exit by itself first)",
    async run(open) {
      const client = await open(stdioServer("stdio-slow-to-exit.mjs", "--after-stdin-end", "1500"), { stdinCloseGraceMs: 1 });
      const transport = stdioOf(client);
      await client.close();
      expect(transport.exitSignal).toBe("SIGTERM");
    },
  },
  {
    transport: "stdio",
    option: "terminateGraceMs",
    effect: "a child slower to leave after SIGTERM than the grace gets SIGKILL (by default it would exit by itself first)",
    async run(open) {
      const target = stdioServer("stdio-slow-to-exit.mjs", "--after-sigterm", "1500");
      const client = await open(target, { terminateGraceMs: 1, stdinCloseGraceMs: 1 });
      const transport = stdioOf(client);
      await client.close();
      expect(transport.exitSignal).toBe("SIGKILL");
    },
  },

  // ---- Streamable HTTP ----
  {
    transport: "http",
    option: "headers",
    effect: "the header is on every request",
    async run(open) {
      const endpoint = await http();
      const client = await open({ transport: "http", url: endpoint.url }, { headers: { "X-Option-Test": "yes" } });
      await client.ping();
      const posts = endpoint.requests.filter((request) => request.method === "POST");
      expect(posts.length).toBeGreaterThan(1);
      for (const post of posts) expect(post.headers["x-option-test"]).toBe("yes");
    },
  },
  {
    transport: "http",
    option: "headers",
    effect: "a function is called per request (code only)",
    code: true,
    async run(open) {
      const endpoint = await http();
      let calls = 0;
      const client = await open({ transport: "http", url: endpoint.url }, { headers: () => ({ "X-Call": String(++calls) }) });
      await client.ping();
      const values = endpoint.requests.filter((request) => request.method === "POST").map((request) => request.headers["x-call"]);
      expect(new Set(values).size).toBe(values.length);
      expect(calls).toBeGreaterThan(1);
    },
  },
  {
    transport: "http",
    option: "fetch",
    effect: "every request goes through the given fetch",
    code: true,
    async run(open) {
      const endpoint = await http();
      const counting = countingFetch();
      const client = await open({ transport: "http", url: endpoint.url }, { fetch: counting.fetch });
      await client.ping();
      expect(counting.calls()).toBe(endpoint.requests.length);
    },
  },
  {
    transport: "http",
    option: "auth",
    effect: "every request carries the provider's Authorization header",
    code: true,
    async run(open) {
      const endpoint = await http();
      const client = await open({ transport: "http", url: endpoint.url }, { auth: staticAuth("Bearer from-provider") });
      await client.ping();
      const posts = endpoint.requests.filter((request) => request.method === "POST");
      expect(posts.length).toBeGreaterThan(0);
      for (const request of posts) expect(request.headers.authorization).toBe("Bearer from-provider");
    },
  },
  {
    transport: "http",
    option: "redirect",
    effect: `"none" refuses a same-origin redirect the default follows`,
    async run(open) {
      const endpoint = await http((request, res) => {
        if (!request.path.includes("moved")) return false;
        res.writeHead(307, { location: "/mcp" }).end();
        return true;
      });
      const error = await failure(open({ transport: "http", url: `${endpoint.url}?moved=1` }, { redirect: "none", fallback: false }));
      expect(error.message).toMatch(/redirect/i);
      expect(endpoint.requests.filter((request) => request.path === "/mcp")).toEqual([]);
    },
  },
  {
    transport: "http",
    option: "fallback",
    effect: "false fails on a 404 without trying the legacy HTTP+SSE transport",
    async run(open) {
      const endpoint = await http((request, res) => {
        if (request.method !== "POST") return false;
        res.writeHead(404).end();
        return true;
      });
      const error = await failure(open({ transport: "http", url: endpoint.url }, { fallback: false }));
      expect(error.httpStatus).toBe(404);
      expect(endpoint.count("GET")).toBe(0);
    },
  },
  {
    transport: "http",
    option: "listen",
    effect: "false opens no GET stream",
    async run(open) {
      const endpoint = await http();
      const client = await open({ transport: "http", url: endpoint.url }, { listen: false, fallback: false });
      await client.ping();
      await client.ping();
      expect(endpoint.count("GET")).toBe(0);
    },
  },

  // ---- legacy HTTP+SSE ----
  {
    transport: "sse",
    option: "headers",
    effect: "the header is on the stream's GET and on every POST",
    async run(open) {
      const endpoint = await sse();
      const client = await open({ transport: "sse", url: endpoint.url }, { headers: { "X-Option-Test": "yes" } });
      await client.ping();
      expect(endpoint.requests.length).toBeGreaterThan(2);
      for (const request of endpoint.requests) expect(request.headers["x-option-test"]).toBe("yes");
    },
  },
  {
    transport: "sse",
    option: "fetch",
    effect: "every request goes through the given fetch",
    code: true,
    async run(open) {
      const endpoint = await sse();
      const counting = countingFetch();
      const client = await open({ transport: "sse", url: endpoint.url }, { fetch: counting.fetch });
      await client.ping();
      expect(counting.calls()).toBe(endpoint.requests.length);
    },
  },
  {
    transport: "sse",
    option: "auth",
    effect: "the stream and every POST carry the provider's Authorization header",
    code: true,
    async run(open) {
      const endpoint = await sse();
      const client = await open({ transport: "sse", url: endpoint.url }, { auth: staticAuth("Bearer from-provider") });
      await client.ping();
      expect(endpoint.requests.length).toBeGreaterThan(1);
      for (const request of endpoint.requests) expect(request.headers.authorization).toBe("Bearer from-provider");
    },
  },
  {
    transport: "sse",
    option: "redirect",
    effect: `"none" refuses a same-origin redirect of the stream the default follows`,
    async run(open) {
      const endpoint = await sse({
        onStream: (res, request) => {
          if (!request.path.includes("moved")) return false;
          res.writeHead(307, { location: "/sse" }).end();
          return true;
        },
      });
      const error = await failure(open({ transport: "sse", url: `${endpoint.url}?moved=1` }, { redirect: "none" }));
      expect(error.message).toMatch(/redirect/i);
      expect(endpoint.requests.filter((request) => request.path === "/sse")).toEqual([]);
    },
  },

  // ---- WebSocket ----
  {
    transport: "websocket",
    option: "headers",
    effect: "the header is on the upgrade request",
    async run(open) {
      const server = await ws();
      await open({ transport: "websocket", url: server.url }, { headers: { "X-Option-Test": "yes" } });
      expect(server.upgrades[0]?.["x-option-test"]).toBe("yes");
    },
  },
  {
    transport: "websocket",
    option: "keepAlive",
    effect: "pings come within the interval, and a peer that stops answering them ends the connection",
    async run(open) {
      const server = await ws({ answerPings: false });
      const client = await open({ transport: "websocket", url: server.url }, { keepAlive: { intervalMs: 50, timeoutMs: 200 } });
      await expect.poll(() => server.connections[0]?.pings ?? 0, { timeout: 10_000 }).toBeGreaterThan(0);
      const ending = await client.ended;
      expect(ending.error?.reason).toBe("DISCONNECTED");
    },
  },
  {
    transport: "websocket",
    option: "upgradeTimeoutMs",
    effect: "an upgrade never answered fails with TIMEOUT at that deadline",
    async run(open) {
      const server = await ws({ stallUpgrade: true });
      const error = await failure(open({ transport: "websocket", url: server.url }, { upgradeTimeoutMs: 200 }));
      expect(error.reason).toBe("TIMEOUT");
      expect(error.timeoutMs).toBe(200);
    },
  },
  {
    transport: "websocket",
    option: "closeTimeoutMs",
    effect: "close() ends a socket whose server never answers the close frame (below the 5 s default)",
    limitMs: 4_000,
    async run(open) {
      const server = await ws();
      const client = await open({ transport: "websocket", url: server.url }, { closeTimeoutMs: 100, keepAlive: { intervalMs: 0 } });
      (await server.connection(0)).deafen();
      // close() resolves only once the socket is closed; the test's own limit is below the default.
      await client.close();
    },
  },

  // ---- proxy and TLS, the same on every network transport ----
  ...(["http", "sse", "websocket"] as const).flatMap(networkCases),
];

/** A plain server of `transport` on 127.0.0.1, its URL. */
async function plainServer(transport: "http" | "sse" | "websocket"): Promise<string> {
  if (transport === "http") return (await http()).url;
  if (transport === "sse") return (await sse()).url;
  return (await ws()).url;
}

/** The same server behind TLS with the test's certificates (asking for a client certificate with `mutual`). */
async function securedServer(transport: "http" | "sse" | "websocket", mutual = false): Promise<string> {
  const certs = await testCertificates();
  const url = new URL(await plainServer(transport));
  const front = await startTlsFront({ targetPort: Number(url.port), cert: certs.serverCert, key: certs.serverKey, ...(mutual ? { clientCa: certs.caCert } : {}) });
  own({ close: () => front.stop() });
  url.protocol = transport === "websocket" ? "wss:" : "https:";
  url.port = String(front.port);
  return url.href;
}

function networkCases(transport: "http" | "sse" | "websocket"): Case[] {
  return [
    {
      transport,
      option: "proxy",
      effect: "the connection goes through that proxy",
      async run(open) {
        const proxy = await startForwardProxy();
        own({ close: () => proxy.stop() });
        await open({ transport, url: await plainServer(transport) }, { proxy: proxy.origin });
        expect(proxy.seen.length).toBeGreaterThan(0);
      },
    },
    {
      transport,
      option: "ca",
      effect: "a server whose certificate that CA signed is trusted",
      async run(open) {
        const certs = await testCertificates();
        const client = await open({ transport, url: await securedServer(transport) }, { ca: certs.caCert, proxy: false });
        await client.ping();
      },
    },
    {
      transport,
      option: "cert",
      effect: "a server that asks for a client certificate gets this one",
      async run(open) {
        const certs = await testCertificates();
        const client = await open({ transport, url: await securedServer(transport, true) }, { ca: certs.caCert, cert: certs.clientCert, key: certs.clientKey, proxy: false });
        await client.ping();
      },
    },
    {
      transport,
      option: "key",
      effect: "a key that is not the certificate's fails, UNAVAILABLE, before anything is sent",
      async run(open) {
        const certs = await testCertificates();
        const error = await failure(open({ transport, url: await securedServer(transport, true) }, { ca: certs.caCert, cert: certs.clientCert, key: certs.serverKey, proxy: false }));
        expect(error.reason).toBe("UNAVAILABLE");
        expect(error.message).toContain(`"key" is not the private key of "cert"`);
      },
    },
    {
      transport,
      option: "passphrase",
      effect: "an encrypted key is unlocked with it",
      async run(open) {
        const certs = await testCertificates();
        const client = await open(
          { transport, url: await securedServer(transport, true) },
          { ca: certs.caCert, cert: certs.clientCert, key: certs.clientKeyEncrypted, passphrase: certs.clientKeyPassphrase, proxy: false },
        );
        await client.ping();
      },
    },
  ];
}

describe("every transport option reaches its transport", () => {
  it("covers every option each transport takes", () => {
    for (const transport of Object.keys(TRANSPORT_OPTION_NAMES) as TransportName[]) {
      const covered = new Set(CASES.filter((c) => c.transport === transport).map((c) => c.option));
      expect([...TRANSPORT_OPTION_NAMES[transport]].sort()).toEqual([...covered].sort());
    }
  });

  for (const testCase of CASES) {
    for (const route of testCase.code ? CODE_ROUTES : DATA_ROUTES) {
      it(`${testCase.transport}: ${testCase.option} through ${route}: ${testCase.effect}`, () => testCase.run(openerFor(route)), testCase.limitMs);
    }
  }
});

describe("options nobody reads are refused", () => {
  it("names a key of another transport, says which transport the target resolved to and what it takes", async () => {
    const error = await refusal(connect(`${node} ${FIXTURES}stdio-print-env.mjs`, { keepAlive: { intervalMs: 1_000 } } as never));
    expect(error.message).toContain(`connect(): option "keepAlive" is for the websocket transport`);
    expect(error.message).toContain("(stdio)");
    expect(error.message).toContain("the stdio transport takes env, envAllow, cwd, stderr");
  });

  it("refuses envAllow for a URL target, naming the transport", async () => {
    const error = await refusal(connect("http://127.0.0.1:9/mcp", { envAllow: ["HOME"] }));
    expect(error.message).toContain(`option "envAllow" is for the stdio transport, but the target resolved to the http endpoint http://127.0.0.1:9/mcp`);
    expect(error.message).toContain("the http transport takes headers, fetch, redirect, auth, proxy, ca, cert, key, passphrase, listen, fallback");
  });

  it("suggests the nearest name for a typo, among the transport's and the client's options", async () => {
    const typo = await refusal(connect("ws://127.0.0.1:9/mcp", { keepalive: {} } as never));
    expect(typo.message).toContain(`unknown option "keepalive" (did you mean "keepAlive"?)`);
    const client = await refusal(connect("ws://127.0.0.1:9/mcp", { timeoutMS: 5 } as never));
    expect(client.message).toContain(`(did you mean "timeoutMs"?)`);
  });

  it("refuses transport options for a transport given ready-made", async () => {
    const transport = new StdioTransport({ command: node, args: [FIXTURES + "stdio-print-env.mjs"] });
    const error = await refusal(connect(transport, { cwd: "/" }));
    expect(error.message).toContain("give them to its constructor");
  });

  it("refuses a key nobody reads in McpClient's own options", async () => {
    const transport = new StdioTransport({ command: node, args: [FIXTURES + "stdio-print-env.mjs"] });
    await expect(() => import("../../src/index.js").then(({ McpClient }) => McpClient.connect(transport, { keepAlive: {} } as never))).rejects.toThrow(
      /McpClient: unknown option "keepAlive"/,
    );
  });

  it("refuses headers given to connect() that are not an object, before anything is sent: never as headers named 0, 1...", async () => {
    const endpoint = await http();
    for (const headers of [["X-Token: t0k"], "X-Token: t0k"]) {
      const bare = await refusal(connect(endpoint.url, { headers } as never));
      expect(bare.message).toContain('"headers" must be an object of header names to string values');
      // Over declared headers too, where they would have been merged.
      const declared = { name: "s", transport: "http" as const, url: endpoint.url, headers: { "X-Declared": "d" } };
      const merged = await refusal(connect(declared, { headers } as never));
      expect(merged.message).toContain('"headers" must be an object of header names to string values');
    }
    expect(endpoint.requests).toHaveLength(0);
  });

  it("refuses a key of another transport in a declaration, naming its transports", async () => {
    const error = await refusal(connect({ name: "s", transport: "http", url: "http://127.0.0.1:9/mcp", keepAlive: { intervalMs: 1 } }));
    expect(error.message).toContain(`"keepAlive" applies to websocket servers only`);
  });
});
