/**
 * Streamable HTTP (JSON and SSE replies), legacy HTTP+SSE, the fallback between them and the
 * OAuth requests, through a forward proxy on loopback (absolute form for http://, CONNECT for
 * https://) and over TLS with the test's own certificates.
 */
import { describe, expect, it } from "vitest";
import { HttpTransport, McpTransportError, SseTransport, StreamableHttpTransport, clientCredentials, connect } from "../../src/index.js";
import { startHttpContractServer } from "../fixtures/http-contract-server.js";
import { startSseContractServer } from "../fixtures/sse-contract-server.js";
import { startMachineAuthorizationServer } from "../fixtures/oauth/machine-authorization-server.js";
import { startMachineProtectedEndpoint } from "../fixtures/oauth/machine-protected-endpoint.js";
import { refusedPort } from "../fixtures/ws-server.js";
import { recordShown } from "../helpers/redaction.js";
import { failure, netTestKit } from "./helpers.js";

const kit = netTestKit();
const PASSWORD = "pr0xy-pa55word";
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

async function streamable(replies: "json" | "sse"): Promise<string> {
  return kit.own(await startHttpContractServer({ replies, stateful: true })).url;
}

describe("Streamable HTTP through a proxy", () => {
  for (const replies of ["json", "sse"] as const) {
    it(`calls work over http:// in absolute form (${replies} replies), with Proxy-Authorization from the URL`, async () => {
      const url = await streamable(replies);
      const proxy = await kit.proxy();
      const client = await kit.connect(new StreamableHttpTransport(url, { proxy: `http://ada:${PASSWORD}@127.0.0.1:${proxy.port}` }));
      expect((await client.callTool("echo", { text: "through" })).content).toEqual([{ type: "text", text: "through" }]);
      const host = new URL(url).host;
      expect(proxy.seen.length).toBeGreaterThanOrEqual(2);
      for (const seen of proxy.seen) {
        expect(seen.target).toBe(host);
        expect(seen.proxyAuthorization).toBe(basic("ada", PASSWORD));
        expect(seen.method).not.toBe("CONNECT");
      }
      expect(proxy.seen.map((seen) => seen.method)).toContain("POST");
    });
  }

  it("calls work over https:// through a CONNECT tunnel, trusting `ca`", async () => {
    const { url, certs, front } = await kit.secured(await streamable("sse"));
    const proxy = await kit.proxy();
    const client = await kit.connect(new StreamableHttpTransport(url, { proxy: proxy.origin, ca: certs.caCert }));
    await client.callTool("echo", { text: "tunnelled" });
    expect(proxy.seen.length).toBeGreaterThan(0);
    for (const seen of proxy.seen) expect(seen).toMatchObject({ method: "CONNECT", target: `127.0.0.1:${front.port}` });
  });

  it("an https:// proxy is reached over TLS, trusting `ca`, for plain and tunnelled requests", async () => {
    const proxy = await kit.proxy();
    const secureProxy = await kit.secured(proxy.origin);
    const plainUrl = await streamable("json");
    const tunnelled = await kit.secured(await streamable("json"));
    const options = { proxy: secureProxy.url, ca: secureProxy.certs.caCert };
    await (await kit.connect(new StreamableHttpTransport(plainUrl, options))).ping();
    await (await kit.connect(new StreamableHttpTransport(tunnelled.url, options))).ping();
    expect(secureProxy.front.handshakes).toBeGreaterThanOrEqual(2);
    expect(new Set(proxy.seen.map((seen) => seen.method === "CONNECT"))).toEqual(new Set([false, true]));
  });

  it("proxy: false connects directly", async () => {
    const url = await streamable("json");
    const proxy = await kit.proxy();
    const client = await kit.connect(new StreamableHttpTransport(url, { proxy: false }));
    await client.ping();
    expect(proxy.seen).toEqual([]);
  });
});

describe("legacy HTTP+SSE through a proxy", () => {
  it("the stream and the POSTs go through it", async () => {
    const server = kit.own(await startSseContractServer());
    const proxy = await kit.proxy();
    const client = await kit.connect(new SseTransport(server.url, { proxy: proxy.origin }));
    await client.callTool("echo", { text: "legacy" });
    expect(proxy.seen.map((seen) => seen.method)).toEqual(expect.arrayContaining(["GET", "POST"]));
  });

  it("the fallback from Streamable HTTP reaches a legacy server through the same proxy", async () => {
    const server = kit.own(await startSseContractServer());
    const proxy = await kit.proxy();
    const client = await kit.connect(new HttpTransport(server.url, { proxy: proxy.origin }));
    await client.callTool("echo", { text: "fell back" });
    expect(client.transportKind).toBe("sse");
    // The refused POST, then the legacy GET stream and its POSTs: every one through the proxy.
    expect(proxy.seen.map((seen) => seen.method)).toEqual(expect.arrayContaining(["POST", "GET"]));
    expect(server.streamsOpened).toBe(1);
  });
});

describe("OAuth through a proxy", () => {
  it("the metadata and token requests go through it, like the MCP requests", async () => {
    const as = kit.own(await startMachineAuthorizationServer({ authMethods: ["client_secret_basic"] }));
    const endpoint = kit.own(await startMachineProtectedEndpoint(as, { resource: (origin) => `${origin}/` }));
    const proxy = await kit.proxy();
    const client = kit.own(
      await connect(endpoint.url, { auth: clientCredentials({ clientId: "m", clientSecret: "cc-secret-1" }), fallback: false, proxy: proxy.origin, timeoutMs: 20_000 }),
    );
    await client.callTool("echo", { text: "authorized" });
    const asHost = new URL(as.issuer).host;
    const toAs = proxy.seen.filter((seen) => seen.target === asHost);
    expect(toAs.map((seen) => seen.method)).toEqual(expect.arrayContaining(["GET", "POST"]));
    expect(as.tokenRequests).toHaveLength(1);
    expect(proxy.seen.filter((seen) => seen.target === new URL(endpoint.url).host).length).toBeGreaterThan(0);
  });
});

describe("a proxy that refuses, or cannot be reached", () => {
  it("a CONNECT answered 403 is UNAVAILABLE naming the proxy, not the server, and is not tried again", async () => {
    const { url, certs } = await kit.secured(await streamable("json"));
    const proxy = await kit.proxy();
    proxy.refuseWith(403);
    const error = await failure(kit.connect(new StreamableHttpTransport(url, { proxy: proxy.origin, ca: certs.caCert })));
    expect(error).toMatchObject({ reason: "UNAVAILABLE", kind: "proxy_unavailable", httpStatus: 403 });
    expect(error.message).toContain(`the proxy ${proxy.origin} answered HTTP 403`);
    expect(proxy.seen).toHaveLength(1);
  });

  it("a proxy's 404 is not the server's: the fallback to legacy SSE is not taken", async () => {
    const { url, certs } = await kit.secured(await streamable("json"));
    const proxy = await kit.proxy();
    proxy.refuseWith(404);
    const error = await failure(kit.connect(new HttpTransport(url, { proxy: proxy.origin, ca: certs.caCert })));
    expect(error).toMatchObject({ reason: "UNAVAILABLE", kind: "proxy_unavailable", httpStatus: 404 });
    expect(proxy.seen).toHaveLength(1);
  });

  it("a CONNECT answered 502 is UNAVAILABLE naming the proxy", async () => {
    const { url, certs } = await kit.secured(await streamable("json"));
    const proxy = await kit.proxy();
    proxy.refuseWith(502);
    const error = await failure(kit.connect(new StreamableHttpTransport(url, { proxy: proxy.origin, ca: certs.caCert })));
    expect(error).toMatchObject({ reason: "UNAVAILABLE", kind: "proxy_unavailable", httpStatus: 502 });
    expect(error.message).toContain(proxy.origin);
  });

  it("a 407 to a plain request is UNAVAILABLE naming the proxy", async () => {
    const url = await streamable("json");
    const proxy = await kit.proxy();
    proxy.requireAuthorization(basic("ada", "right"));
    const error = await failure(kit.connect(new StreamableHttpTransport(url, { proxy: `http://ada:wrong@127.0.0.1:${proxy.port}` })));
    expect(error).toMatchObject({ reason: "UNAVAILABLE", kind: "proxy_unavailable", httpStatus: 407 });
    expect(error.message).toContain("did not accept the credentials in the proxy URL");
  });

  it("a proxy that cannot be reached is UNAVAILABLE naming it", async () => {
    const url = await streamable("json");
    const port = await refusedPort();
    const error = await failure(kit.connect(new StreamableHttpTransport(url, { proxy: `http://127.0.0.1:${port}` })));
    expect(error).toMatchObject({ reason: "UNAVAILABLE", kind: "proxy_unavailable" });
    expect(error.message).toContain(`the proxy http://127.0.0.1:${port} could not be reached`);
  });

  it("the proxy URL's credentials reach the proxy, and appear in no error, log line or description", async () => {
    const { url, certs } = await kit.secured(await streamable("json"));
    const proxy = await kit.proxy();
    proxy.refuseWith(407);
    const shown = recordShown();
    shown.captureOutput();
    try {
      const transport = new StreamableHttpTransport(url, { proxy: `http://ada:${PASSWORD}@127.0.0.1:${proxy.port}`, ca: certs.caCert });
      expect(transport.description).not.toContain(PASSWORD);
      const error = await shown.failureOf(kit.connect(transport));
      expect(error.kind).toBe("proxy_unavailable");
    } finally {
      shown.restoreOutput();
    }
    expect(proxy.seen[0]!.proxyAuthorization).toBe(basic("ada", PASSWORD));
    expect(shown.errorTexts.length).toBeGreaterThan(0);
    expect(shown.leaks([PASSWORD, basic("ada", PASSWORD).slice("Basic ".length)])).toEqual([]);
  });
});

describe("https:// with the test's own CA", () => {
  it("works with `ca`", async () => {
    const { url, certs } = await kit.secured(await streamable("sse"));
    const client = await kit.connect(new StreamableHttpTransport(url, { ca: certs.caCert, proxy: false }));
    await client.callTool("echo", { text: "secure" });
  });

  it("fails UNAVAILABLE without it, naming the server and saying to give its CA, and is not tried again", async () => {
    const { url, front } = await kit.secured(await streamable("sse"));
    const error = await failure(kit.connect(new StreamableHttpTransport(url, { proxy: false })));
    expect(error).toMatchObject({ reason: "UNAVAILABLE", kind: "tls_handshake" });
    expect(error.message).toContain(`https://127.0.0.1:${front.port}`);
    expect(error.message).toContain("give its CA with `ca`");
    expect(error).toBeInstanceOf(McpTransportError);
    expect(front.connections).toBe(1);
  });

  it("legacy HTTP+SSE works with `ca` too", async () => {
    const server = kit.own(await startSseContractServer());
    const { url, certs } = await kit.secured(server.url);
    const client = await kit.connect(new SseTransport(url, { ca: certs.caCert, proxy: false }));
    await client.ping();
  });

  it("mutual TLS works with `cert` and `key`, and fails without them, saying to give them", async () => {
    const { url, certs } = await kit.secured(await streamable("json"), { clientCa: true });
    const client = await kit.connect(new StreamableHttpTransport(url, { ca: certs.caCert, cert: certs.clientCert, key: certs.clientKey, proxy: false }));
    await client.ping();
    const error = await failure(kit.connect(new StreamableHttpTransport(url, { ca: certs.caCert, proxy: false })));
    expect(error).toMatchObject({ reason: "UNAVAILABLE", kind: "tls_handshake" });
    expect(error.message).toContain("give `cert` and `key`");
  });
});
