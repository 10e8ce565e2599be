/**
 * The dispatcher on its own, below any transport: a plain proxy's 407 fails the request naming
 * the proxy for both of undici's handler styles (the `request()` API's, and a handler of
 * `onRequestStart`/`onResponseStart`), and answers pass through either style unchanged.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { request, type Dispatcher } from "undici";
import { McpTransportError } from "../../src/index.js";
import { netDispatcher } from "../../src/transport/net/dispatcher.js";
import { undiciParts } from "../../src/transport/http/undici-parts.js";
import { proxyRules } from "../../src/transport/net/proxy-rules.js";
import { startForwardProxy, type ForwardProxy } from "../fixtures/forward-proxy.js";

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setUp(): Promise<{ origin: string; proxy: ForwardProxy; dispatcher: Dispatcher }> {
  const server = http.createServer((_req, res) => res.end("hello"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const proxy = await startForwardProxy();
  closers.push(() => proxy.stop());
  const dispatcher = netDispatcher({ proxy: proxyRules(proxy.origin, "test:", {}), tls: undefined, connectTimeoutMs: 10_000 })(undiciParts());
  closers.push(() => dispatcher.close());
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, proxy, dispatcher };
}

/** One request with a handler of undici's newer style; resolves with the status and body, or rejects with the error. */
function withNewStyleHandler(dispatcher: Dispatcher, origin: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let body = "";
    dispatcher.dispatch(
      { origin, path: "/", method: "GET" },
      {
        onRequestStart() {},
        onResponseStart(_controller, statusCode) {
          status = statusCode;
        },
        onResponseData(_controller, chunk) {
          body += chunk.toString();
        },
        onResponseEnd() {
          resolve({ status, body });
        },
        onResponseError(_controller, error) {
          reject(error);
        },
      } as Dispatcher.DispatchHandler,
    );
  });
}

describe("a plain proxy's answers", () => {
  it("pass through the request() API's handler", async () => {
    const { origin, proxy, dispatcher } = await setUp();
    const response = await request(`${origin}/`, { dispatcher });
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe("hello");
    expect(proxy.seen).toEqual([{ method: "GET", target: new URL(origin).host, proxyAuthorization: undefined }]);
  });

  it("pass through a handler of the newer style", async () => {
    const { origin, dispatcher } = await setUp();
    expect(await withNewStyleHandler(dispatcher, origin)).toEqual({ status: 200, body: "hello" });
  });

  it("a 407 fails the request() API's request naming the proxy", async () => {
    const { origin, proxy, dispatcher } = await setUp();
    proxy.refuseWith(407);
    const error = await request(`${origin}/`, { dispatcher }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(McpTransportError);
    expect(error).toMatchObject({ reason: "UNAVAILABLE", kind: "proxy_unavailable", httpStatus: 407 });
    expect((error as Error).message).toContain(`the proxy ${proxy.origin} answered HTTP 407: it asks for credentials`);
  });

  it("a 407 fails a newer-style handler's request naming the proxy", async () => {
    const { origin, proxy, dispatcher } = await setUp();
    proxy.refuseWith(407);
    const error = await withNewStyleHandler(dispatcher, origin).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toMatchObject({ reason: "UNAVAILABLE", kind: "proxy_unavailable", httpStatus: 407 });
  });
});
