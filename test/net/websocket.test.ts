/**
 * WebSocket through a forward proxy (a CONNECT tunnel for ws:// and wss://) and over TLS with the
 * test's own certificates: `ca`, mutual TLS with `cert` and `key`, and what each failure becomes.
 */
import { describe, expect, it } from "vitest";
import { WebSocketTransport } from "../../src/index.js";
import { startWsFixture } from "../fixtures/ws-server.js";
import { refusedPort } from "../fixtures/ws-server.js";
import { failure, netTestKit } from "./helpers.js";

const kit = netTestKit();

async function wsServer(): Promise<string> {
  return kit.own(await startWsFixture()).url;
}

describe("WebSocket through a proxy", () => {
  it("a ws:// call goes through a CONNECT tunnel, with the proxy URL's credentials as Proxy-Authorization", async () => {
    const url = await wsServer();
    const proxy = await kit.proxy();
    const client = await kit.connect(new WebSocketTransport(url, { proxy: `http://ada:s3cret@127.0.0.1:${proxy.port}` }));
    expect((await client.listTools()).map((tool) => tool.name)).toContain("echo");
    expect(proxy.seen).toEqual([
      { method: "CONNECT", target: new URL(url).host, proxyAuthorization: `Basic ${Buffer.from("ada:s3cret").toString("base64")}` },
    ]);
  });

  it("a wss:// call goes through the tunnel, TLS inside it, trusting `ca`", async () => {
    const { url, certs, front } = await kit.secured(await wsServer());
    const proxy = await kit.proxy();
    const client = await kit.connect(new WebSocketTransport(url, { proxy: proxy.origin, ca: certs.caCert }));
    await client.ping();
    expect(proxy.seen.map((seen) => [seen.method, seen.target])).toEqual([["CONNECT", `127.0.0.1:${front.port}`]]);
    expect(front.handshakes).toBe(1);
  });

  it("a proxy that refuses the tunnel is UNAVAILABLE naming the proxy, not the server, and never its credentials", async () => {
    const url = await wsServer();
    const proxy = await kit.proxy();
    proxy.refuseWith(403);
    const error = await failure(kit.connect(new WebSocketTransport(url, { proxy: `http://ada:s3cret@127.0.0.1:${proxy.port}` })));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.kind).toBe("proxy_unavailable");
    expect(error.httpStatus).toBe(403);
    expect(error.message).toContain(proxy.origin);
    expect(error.message).not.toContain("s3cret");
    expect(error.message).not.toContain("ada");
  });

  it("a proxy that cannot be reached is UNAVAILABLE naming the proxy", async () => {
    const url = await wsServer();
    const port = await refusedPort();
    const error = await failure(kit.connect(new WebSocketTransport(url, { proxy: `http://127.0.0.1:${port}` })));
    expect(error).toMatchObject({ reason: "UNAVAILABLE", kind: "proxy_unavailable" });
    expect(error.message).toContain(`http://127.0.0.1:${port}`);
  });

  it("proxy: false connects directly", async () => {
    const url = await wsServer();
    const proxy = await kit.proxy();
    const client = await kit.connect(new WebSocketTransport(url, { proxy: false }));
    await client.ping();
    expect(proxy.seen).toEqual([]);
  });
});

describe("wss:// with the test's own CA", () => {
  it("works with `ca`", async () => {
    const { url, certs } = await kit.secured(await wsServer());
    const client = await kit.connect(new WebSocketTransport(url, { ca: certs.caCert, proxy: false }));
    await client.ping();
  });

  it("fails UNAVAILABLE without it, saying the certificate is not trusted", async () => {
    const { url } = await kit.secured(await wsServer());
    const error = await failure(kit.connect(new WebSocketTransport(url, { proxy: false })));
    expect(error).toMatchObject({ reason: "UNAVAILABLE", kind: "tls_handshake" });
    expect(error.message).toContain("not trusted");
    expect(error.message).toContain(new URL(url).host);
  });

  it("fails the same way through a proxy, naming the server", async () => {
    const { url } = await kit.secured(await wsServer());
    const proxy = await kit.proxy();
    const error = await failure(kit.connect(new WebSocketTransport(url, { proxy: proxy.origin })));
    expect(error).toMatchObject({ reason: "UNAVAILABLE", kind: "tls_handshake" });
    expect(error.message).toContain(new URL(url).host);
  });

  it("wss:// to a port that speaks plain ws:// says the server does not speak TLS there, as https:// does", async () => {
    const url = (await wsServer()).replace(/^ws:/, "wss:");
    const error = await failure(kit.connect(new WebSocketTransport(url, { proxy: false })));
    expect(error).toMatchObject({ reason: "UNAVAILABLE", kind: "tls_handshake" });
    expect(error.message).toContain("the server does not speak TLS on that port (is the URL http:// or ws://?)");
  });

  it("a CA that did not sign the server's certificate is not enough", async () => {
    const { url, certs } = await kit.secured(await wsServer());
    const error = await failure(kit.connect(new WebSocketTransport(url, { ca: certs.otherCaCert, proxy: false })));
    expect(error.kind).toBe("tls_handshake");
  });

  it("mutual TLS works with `cert` and `key`, and fails without them", async () => {
    const { url, certs } = await kit.secured(await wsServer(), { clientCa: true });
    const client = await kit.connect(new WebSocketTransport(url, { ca: certs.caCert, cert: certs.clientCert, key: certs.clientKey, proxy: false }));
    await client.ping();
    const error = await failure(kit.connect(new WebSocketTransport(url, { ca: certs.caCert, proxy: false })));
    expect(error).toMatchObject({ reason: "UNAVAILABLE", kind: "tls_handshake" });
    expect(error.message).toContain("give `cert` and `key`");
  });
});
