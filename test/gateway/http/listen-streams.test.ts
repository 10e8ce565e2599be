/**
 * The ceiling on `subscriptions/listen` streams (`maxListenStreams`): they hold no request slot and
 * have no deadline, so past their own ceiling a new one is refused at once (503, `Retry-After`,
 * counted as `listen_streams_full`), a plain call still goes through, and a stream that ends gives
 * its place back. The modern fixture's pool child holds the streams, a real process.
 */
import http from "node:http";
import { describe, expect, it } from "vitest";
import { closedAfterEach } from "../../helpers/owned.js";
import { MODERN_TARGET, startGateway } from "../helpers/gateway-fixture.js";
import { post } from "../helpers/json-rpc-post.js";
import { modernCall } from "../helpers/modern-post.js";

const own = closedAfterEach(30_000);

/** A listen stream opened over a connection of its own: resolves once its SSE headers came. */
function openListen(port: number, id: number): Promise<{ status: number; close(): void }> {
  const { headers, body } = modernCall(id, "subscriptions/listen", { notifications: { toolsListChanged: true } });
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: "127.0.0.1", port, method: "POST", path: "/mcp", headers: { host: `127.0.0.1:${port}`, ...headers }, agent: false },
      (response) => {
        response.resume();
        resolve({ status: response.statusCode ?? 0, close: () => request.destroy() });
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

function metric(gateway: { telemetry: { metrics: { listenStreams: { get(): number }; rejections: { get(labels: Record<string, string>): number } } } }) {
  return {
    open: () => gateway.telemetry.metrics.listenStreams.get(),
    refused: () => gateway.telemetry.metrics.rejections.get({ cause: "listen_streams_full" }),
  };
}

describe("maxListenStreams", () => {
  it("refuses the stream past the ceiling with 503 and Retry-After, serves calls meanwhile, and frees the place when a stream ends", async () => {
    const { port, gateway } = own(await startGateway({ target: MODERN_TARGET, poolMin: 1, poolMax: 1, maxListenStreams: 2 }));
    await expect.poll(() => gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    const counts = metric(gateway);

    const first = await openListen(port, 1);
    const second = await openListen(port, 2);
    own({ close: async () => (first.close(), second.close()) });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(counts.open()).toBe(2);

    const refused = await post({ port, ...modernCall(3, "subscriptions/listen", { notifications: { toolsListChanged: true } }) });
    expect(refused.status).toBe(503);
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.message).toMatchObject({ id: 3, error: { code: -32000, message: expect.stringContaining("limit of 2 subscriptions/listen streams") } });
    expect(counts.refused()).toBe(1);

    // The streams hold no request slot: a call goes through while they are all taken.
    const call = await post({ port, ...modernCall(4, "tools/call", { name: "echo", arguments: { text: "meanwhile" } }) });
    expect(call.status).toBe(200);
    expect(call.message).toMatchObject({ id: 4, result: { content: [{ type: "text", text: "meanwhile" }] } });

    first.close();
    await expect.poll(counts.open, { timeout: 20_000 }).toBe(1);
    const again = await openListen(port, 5);
    own({ close: async () => again.close() });
    expect(again.status).toBe(200);
    expect(counts.open()).toBe(2);
    expect(counts.refused()).toBe(1);
  }, 60_000);
});
