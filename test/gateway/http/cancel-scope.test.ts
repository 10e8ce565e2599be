/**
 * Whose request a `notifications/cancelled` reaches on the shared pool (2026-07-28 callers, and
 * legacy ones in `--legacy stateless` mode). Callers' ids collide, and without auth every caller
 * is the principal "anonymous": a cancel reaches a request of the same principal sent on the same
 * HTTP connection only (children/caller-relays.ts), and is dropped otherwise (basic/utilities/
 * cancellation: a receiver MAY ignore a cancel it cannot apply).
 */
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { postEventStream, type OpenedStream } from "../helpers/event-stream.js";
import { ECHO_TARGET, startGateway, type RunningGateway } from "../helpers/gateway-fixture.js";
import { post } from "../helpers/json-rpc-post.js";
import { modernCall } from "../helpers/modern-post.js";

const running: RunningGateway[] = [];
const streams: OpenedStream[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(running.splice(0).map((gateway) => gateway.close()));
});

const LEGACY_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };

interface Mode {
  name: string;
  legacy?: "stateless";
  call(id: number, method: string, params?: Record<string, unknown>): { headers: Record<string, string>; body: string };
  cancel(requestId: number): { headers: Record<string, string>; body: string };
}

const modes: Mode[] = [
  {
    name: "legacy stateless",
    legacy: "stateless",
    call: (id, method, params = {}) => ({ headers: LEGACY_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) }),
    cancel: (requestId) => ({ headers: LEGACY_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "mine" } }) }),
  },
  {
    name: "2026-07-28",
    call: (id, method, params = {}) => modernCall(id, method, params),
    cancel: (requestId) => {
      const { headers, body } = modernCall(0, "notifications/cancelled", { requestId, reason: "mine" });
      const { id: _id, ...notification } = JSON.parse(body) as Record<string, unknown>;
      return { headers, body: JSON.stringify(notification) };
    },
  },
];

/** A `hold` that sends one progress event (so a test sees it in flight in the child), then waits for its `release`. */
function holdCall(mode: Mode, id: number, tag: string): { headers: Record<string, string>; body: string } {
  const { headers, body } = mode.call(id, "hold", { tag, before: 1, after: 0 });
  const message = JSON.parse(body) as { params: { _meta?: Record<string, unknown> } };
  message.params._meta = { ...message.params._meta, progressToken: `${tag}-token` };
  return { headers, body: JSON.stringify(message) };
}

/** A `hold` read as it streams: in flight in the child once its progress event came. */
async function holdInFlight(port: number, mode: Mode, id: number, tag: string): Promise<OpenedStream> {
  const { headers, body } = holdCall(mode, id, tag);
  const stream = await postEventStream(port, headers, body);
  streams.push(stream);
  await expect.poll(() => stream.events.some((event) => event.data.includes("notifications/progress"))).toBe(true);
  return stream;
}

function lastMessage(stream: OpenedStream): Record<string, unknown> {
  return JSON.parse(stream.events.at(-1)!.data) as Record<string, unknown>;
}

describe.each(modes)("a caller's notifications/cancelled on the shared pool ($name)", (mode) => {
  it("does not cancel another caller's request with the same id: that request finishes with its result", async () => {
    const gateway = await startGateway({ target: ECHO_TARGET, ...(mode.legacy ? { legacy: mode.legacy } : {}), poolMax: 1 });
    running.push(gateway);
    const callerB = await holdInFlight(gateway.port, mode, 1, "B");

    // Caller A, on a connection of its own, cancels its own id 1: it has none in flight.
    const cancel = mode.cancel(1);
    expect((await post({ port: gateway.port, ...cancel })).status).toBe(202);

    const release = await post({ port: gateway.port, ...mode.call(2, "release", { tag: "B" }) });
    expect(release.message).toMatchObject({ id: 2, result: { released: true } });
    await callerB.ended;
    expect(lastMessage(callerB)).toMatchObject({ id: 1, result: { tag: "B" } });
  });

  it("cancels the caller's own request when it comes on that request's connection", async () => {
    const gateway = await startGateway({ target: ECHO_TARGET, ...(mode.legacy ? { legacy: mode.legacy } : {}), poolMax: 1 });
    running.push(gateway);
    const socket = net.connect(gateway.port, "127.0.0.1");
    sockets.push(socket);
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (text += chunk));
    const raw = ({ headers, body }: { headers: Record<string, string>; body: string }): string =>
      `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${gateway.port}\r\n${Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("")}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

    socket.write(raw(holdCall(mode, 1, "A")));
    await expect.poll(() => text.includes("notifications/progress")).toBe(true);
    // HTTP/1.1 pipelining: the cancel comes on the connection its request is still open on.
    socket.write(raw(mode.cancel(1)));

    await expect.poll(() => text.includes("this request was cancelled by its caller") && text.includes("HTTP/1.1 202")).toBe(true);
    const cancels = await post({ port: gateway.port, ...mode.call(3, "cancels") });
    expect(JSON.stringify(cancels.message)).toContain('"reason":"mine"');
    // The hold is gone from the child: a release finds nothing.
    const release = await post({ port: gateway.port, ...mode.call(2, "release", { tag: "A" }) });
    expect(release.message).toMatchObject({ result: { released: false } });
  });
});
