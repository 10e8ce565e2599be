/**
 * Where a pool child's `notifications/message` goes. Over stdio a log message names no request
 * (2026-07-28 basic/transports/stdio), and it is request-scoped: it may reach only the stream of
 * the request that set the log level (server/utilities/logging). On a shared child another
 * caller's request may be what made the child log, so a log message is that request's only while
 * no other caller's request runs on the child; otherwise it is dropped, never sent to a guess.
 */
import { afterEach, describe, expect, it } from "vitest";
import { postEventStream, type OpenedStream } from "../helpers/event-stream.js";
import { ECHO_TARGET, startGateway, type RunningGateway } from "../helpers/gateway-fixture.js";
import { post } from "../helpers/json-rpc-post.js";
import { modernCall } from "../helpers/modern-post.js";

const running: RunningGateway[] = [];
const streams: OpenedStream[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await Promise.all(running.splice(0).map((gateway) => gateway.close()));
});

/** A 2026-07-28 call whose `_meta` asks for log messages at `debug`, and progress. */
function callWithLogs(id: number, method: string, params: Record<string, unknown>): { headers: Record<string, string>; body: string } {
  const { headers, body } = modernCall(id, method, params);
  const message = JSON.parse(body) as { params: { _meta: Record<string, unknown> } };
  message.params._meta = { ...message.params._meta, "io.modelcontextprotocol/logLevel": "debug", progressToken: "A-token" };
  return { headers, body: JSON.stringify(message) };
}

describe("a pool child's log messages (2026-07-28)", () => {
  it("never reach a caller who asked for logs when another caller's request made the child log", async () => {
    const gateway = await startGateway({ target: ECHO_TARGET, poolMax: 1 });
    running.push(gateway);
    const a = callWithLogs(1, "hold", { tag: "A", before: 1, after: 0 });
    const callerA = await postEventStream(gateway.port, a.headers, a.body);
    streams.push(callerA);
    await expect.poll(() => callerA.events.some((event) => event.data.includes("notifications/progress"))).toBe(true);

    // Caller B, on the same child (poolMax 1), asked for no logs; the child logs its text anyway.
    const callerB = await post({ port: gateway.port, ...modernCall(1, "log", { text: "B private text" }) });
    expect(callerB.message).toMatchObject({ id: 1, result: {} });

    expect((await post({ port: gateway.port, ...modernCall(2, "release", { tag: "A" }) })).message).toMatchObject({ result: { released: true } });
    await callerA.ended;
    expect(JSON.parse(callerA.events.at(-1)!.data)).toMatchObject({ id: 1, result: { tag: "A" } });
    expect(callerA.text()).not.toContain("B private text");
  });

  it("reach the one request that asked for them while it is alone on the child", async () => {
    const gateway = await startGateway({ target: ECHO_TARGET, poolMax: 1 });
    running.push(gateway);
    const own = callWithLogs(1, "log", { text: "my own text" });
    const answer = await postEventStream(gateway.port, own.headers, own.body);
    streams.push(answer);
    await answer.ended;
    expect(answer.events.map((event) => JSON.parse(event.data) as Record<string, unknown>)).toEqual([
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "my own text" } },
      { jsonrpc: "2.0", id: 1, result: {} },
    ]);
  });
});
