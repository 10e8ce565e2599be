/**
 * The http→https upgrade redirect (a 307/308 from http://host to https://host, default ports),
 * which both HTTP transports follow: http://host and https://host are different origins, and the
 * README's policy says "Credentials: Never sent to another origin (user headers are dropped on the
 * http→https upgrade)". Streamable HTTP posts every message to the configured URL and is
 * redirected each time; the legacy HTTP+SSE transport's stream is redirected once, and its message
 * endpoint is then on the https origin, so its POSTs reach it directly: they too go without the
 * user's headers.
 *
 * Real servers on loopback: a plain server that redirects everything to https://localhost, the
 * MCP server behind a TLS front with the test's own certificate, and a forward proxy that reaches
 * localhost:80 and localhost:443 on free ports (as a hosts file would), so that the URLs have the
 * default ports the upgrade rule asks for.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SseTransport, StreamableHttpTransport } from "../../src/index.js";
import { startForwardProxy, type ForwardProxy } from "../fixtures/forward-proxy.js";
import { startEndpoint } from "../fixtures/http-endpoint.js";
import { startSseEndpoint } from "../fixtures/sse-endpoint.js";
import { netTestKit } from "./helpers.js";

const kit = netTestKit();
const USER_HEADERS = { Authorization: "Bearer user-secret-token", "X-Api-Key": "user-api-key" };

/** A plain server that answers every request with a 308 to the same path on https://localhost; it records the headers it got. */
async function startUpgrader(): Promise<{ port: number; seen: http.IncomingHttpHeaders[] }> {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    req.on("end", () => res.writeHead(308, { location: `https://localhost${req.url ?? "/"}` }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  kit.own({ close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())) });
  return { port: (server.address() as AddressInfo).port, seen };
}

/** The proxy that reaches http://localhost at the upgrader and https://localhost at the TLS front. */
async function proxyFor(upgraderPort: number, tlsPort: number): Promise<ForwardProxy> {
  const proxy = await startForwardProxy({ routes: { "localhost:80": upgraderPort, "localhost:443": tlsPort } });
  kit.own({ close: () => proxy.stop() });
  return proxy;
}

describe("an http→https upgrade redirect: the user's headers never reach the https origin", () => {
  // The proxy is named in the options; a NO_PROXY of this machine listing localhost would bypass it.
  const saved = { NO_PROXY: process.env.NO_PROXY, no_proxy: process.env.no_proxy };
  beforeEach(() => {
    delete process.env.NO_PROXY;
    delete process.env.no_proxy;
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) if (value !== undefined) process.env[name] = value;
  });

  it("legacy HTTP+SSE: the stream and every POST to the message endpoint on https go without them", async () => {
    const server = kit.own(await startSseEndpoint({ streamPath: "/sse" }));
    const { front, certs } = await kit.secured(server.url);
    const upgrader = await startUpgrader();
    const proxy = await proxyFor(upgrader.port, front.port);
    const transport = new SseTransport("http://localhost/sse", { headers: USER_HEADERS, proxy: proxy.origin, ca: certs.caCert });
    const client = await kit.connect(transport);
    expect((await client.callTool("echo", { text: "upgraded" })).content).toEqual([{ type: "text", text: "upgraded" }]);

    // The configured origin got them; the stream was redirected to https, and the endpoint is there.
    expect(upgrader.seen[0]).toMatchObject({ authorization: USER_HEADERS.Authorization, "x-api-key": USER_HEADERS["X-Api-Key"] });
    const posts = server.requests.filter((request) => request.method === "POST");
    expect(posts.map((request) => request.body?.method)).toEqual(expect.arrayContaining(["initialize", "tools/call"]));
    expect(server.requests.length).toBeGreaterThan(posts.length); // the GET of the stream too
    for (const request of server.requests) {
      expect(request.headers.authorization).toBeUndefined();
      expect(request.headers["x-api-key"]).toBeUndefined();
    }
    expect(proxy.seen.filter((seen) => seen.method === "CONNECT").map((seen) => seen.target)).toContain("localhost:443");
  });

  it("Streamable HTTP (the reference): each POST is redirected, and arrives on https without them", async () => {
    const server = kit.own(await startEndpoint());
    const { front, certs } = await kit.secured(server.url);
    const upgrader = await startUpgrader();
    const proxy = await proxyFor(upgrader.port, front.port);
    const transport = new StreamableHttpTransport("http://localhost/mcp", { headers: USER_HEADERS, proxy: proxy.origin, ca: certs.caCert });
    const client = await kit.connect(transport, { protocolVersion: "legacy" });
    expect((await client.callTool("echo", { text: "upgraded" })).content).toEqual([{ type: "text", text: "upgraded" }]);
    for (const headers of upgrader.seen) expect(headers.authorization).toBe(USER_HEADERS.Authorization);
    expect(server.count("tools/call")).toBe(1);
    for (const request of server.requests) {
      expect(request.headers.authorization).toBeUndefined();
      expect(request.headers["x-api-key"]).toBeUndefined();
    }
  });
});
