/**
 * What the proxy and TLS tests share: the forward proxy, TLS fronts with the test's own
 * certificates, and clients, all closed after each test.
 */
import { afterEach } from "vitest";
import { McpClient, type ClientOptions, type McpTransport } from "../../src/index.js";
import { startForwardProxy, type ForwardProxy } from "../fixtures/forward-proxy.js";
import { startTlsFront, type TlsFront } from "../fixtures/tls-front.js";
import { testCertificates, type TestCertificates } from "../helpers/test-certificates.js";

export { failure, rejection } from "../helpers/failure.js";

export interface NetTestKit {
  proxy(): Promise<ForwardProxy>;
  /** A TLS front for the plain server at `url` (http: or ws:); returns the same URL in https: or wss:. */
  secured(url: string, options?: { clientCa?: boolean }): Promise<{ url: string; front: TlsFront; certs: TestCertificates }>;
  connect(transport: McpTransport, options?: ClientOptions): Promise<McpClient>;
  /** Anything else to close after the test. */
  own<T extends { close(): Promise<unknown> }>(thing: T): T;
}

export function netTestKit(): NetTestKit {
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => {});
  });
  return {
    async proxy() {
      const proxy = await startForwardProxy();
      closers.push(() => proxy.stop());
      return proxy;
    },
    async secured(url, options = {}) {
      const certs = await testCertificates();
      const plain = new URL(url);
      const front = await startTlsFront({
        targetPort: Number(plain.port),
        cert: certs.serverCert,
        key: certs.serverKey,
        ...(options.clientCa ? { clientCa: certs.caCert } : {}),
      });
      closers.push(() => front.stop());
      const secure = new URL(url);
      secure.protocol = plain.protocol === "ws:" ? "wss:" : "https:";
      secure.port = String(front.port);
      return { url: secure.href, front, certs };
    },
    async connect(transport, options = {}) {
      const client = await McpClient.connect(transport, options);
      closers.push(() => client.close());
      return client;
    },
    own(thing) {
      closers.push(() => thing.close());
      return thing;
    },
  };
}
