/**
 * One child as the gateway drives it, against real processes: the echoing fixture and the stdio
 * transport's misbehaving ones. What is checked is what the brief of issue #21 asks of the
 * children side: ids and tokens rewritten and mapped back, everything else unchanged, the
 * request timeout as `notifications/cancelled` (basic/patterns/cancellation, "Timeouts"), and a
 * death that fails pending requests at once.
 */
import { describe, expect, it } from "vitest";
import type { JsonRpcNotification, JsonRpcRequest } from "../../../src/protocol/jsonrpc.js";
import { GatewayChild, type ChildExit, type GatewayChildOptions } from "../../../src/gateway/children/index.js";
import {
  FAST_LADDER,
  call,
  echoServer,
  eventually,
  isRunning,
  never,
  recorder,
  resultOf,
  runningInGroup,
  stdioFixture,
  useCleanup,
} from "./helpers.js";

const cleanup = useCleanup();

interface Started {
  child: GatewayChild;
  unrelated: (JsonRpcRequest | JsonRpcNotification)[];
  exited: Promise<ChildExit>;
}

async function start(options: Omit<GatewayChildOptions, "owner">): Promise<Started> {
  const unrelated: (JsonRpcRequest | JsonRpcNotification)[] = [];
  let onExit!: (exit: ChildExit) => void;
  const exited = new Promise<ChildExit>((resolve) => (onExit = resolve));
  const child = await GatewayChild.spawn({
    stopTimings: FAST_LADDER,
    ...options,
    owner: { unrelated: (message) => unrelated.push(message), exited: (exit) => onExit(exit) },
  });
  cleanup.own(child);
  cleanup.pids(() => [child.pid]);
  return { child, unrelated, exited };
}

describe("GatewayChild: what reaches the child", () => {
  it("passes the request as it came, _meta included, with only the id replaced", async () => {
    const { child } = await start({ command: echoServer() });
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", nested: { a: [1, 2.5, "x"], "é": null }, "z-first": true };
    const request = call("caller-7", "echo", { _meta: meta, arguments: { b: 1, a: 2 }, requestState: "opaque+/=" });
    const seen = recorder();
    child.request(request, seen.sink, never);
    const { line } = resultOf(await seen.settled) as { line: string };
    const received = JSON.parse(line);
    expect(received.id).not.toBe("caller-7");
    expect(line).toBe(JSON.stringify({ ...request, id: received.id }));
    // The answer goes back under the caller's id.
    expect((await seen.settled).answer!.id).toBe("caller-7");
  });

  it("rewrites the progress token to one unique in the child and maps progress back to the caller's token", async () => {
    const { child } = await start({ command: echoServer() });
    const first = recorder();
    const second = recorder();
    // Two callers with the same id and the same token on one child.
    child.request(call(1, "progress", { _meta: { progressToken: "tok" }, steps: 3, tag: "A" }), first.sink, never, { scope: {} });
    child.request(call(1, "progress", { _meta: { progressToken: "tok" }, steps: 2, tag: "B" }), second.sink, never, { scope: {} });
    const [a, b] = await Promise.all([first.settled, second.settled]);
    expect(resultOf(a).tag).toBe("A");
    expect(resultOf(b).tag).toBe("B");
    expect(resultOf(a).token).not.toBe(resultOf(b).token);
    expect(resultOf(a).token).not.toBe("tok");
    expect(first.messages).toEqual([1, 2, 3].map((progress) => ({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "tok", progress, total: 3, message: "A" } })));
    expect(second.messages.map((m) => (m as JsonRpcNotification).params!.message)).toEqual(["B", "B"]);
  });

  it("maps a caller's notifications/cancelled to the child's id, among that caller's requests only", async () => {
    const { child } = await start({ command: echoServer() });
    const mine = {};
    const theirs = {};
    const myCall = recorder();
    const theirCall = recorder();
    child.request(call(5, "sleep", { ms: -1 }), myCall.sink, never, { scope: mine });
    child.request(call(5, "sleep", { ms: -1 }), theirCall.sink, never, { scope: theirs });
    expect(child.cancel(mine, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5, reason: "user" } })).toBe(true);
    expect((await myCall.settled).error?.reason).toBe("DISCONNECTED");
    const cancels = recorder();
    child.request(call("c", "cancels"), cancels.sink, never);
    const listed = resultOf(await cancels.settled).cancels as { requestId: number; reason: string }[];
    expect(listed).toHaveLength(1);
    expect(listed[0]!.reason).toBe("user");
    expect(listed[0]!.requestId).not.toBe(5);
    // The other caller's request with the same id is untouched.
    expect(theirCall.calls()).toBe(0);
    expect(child.inFlight).toBe(1);
  });

  it("routes a listen stream's notifications to its request, with the caller's id as subscription id", async () => {
    const { child, unrelated } = await start({ command: echoServer() });
    const listen = recorder();
    const abort = new AbortController();
    child.request(call("L1", "subscriptions/listen", { notifications: { toolsListChanged: true } }), listen.sink, abort.signal, { scope: {} });
    await eventually(() => listen.messages.length === 1);
    expect(listen.messages[0]).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: { "io.modelcontextprotocol/subscriptionId": "L1" } },
    });
    const poke = recorder();
    child.request(call("p", "poke"), poke.sink, never);
    expect(resultOf(await poke.settled).poked).toBe(1);
    await eventually(() => listen.messages.length === 2);
    expect(listen.messages[1]).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { "io.modelcontextprotocol/subscriptionId": "L1" } },
    });
    expect(unrelated).toEqual([]);
    // The caller going away ends the stream in the child (stdio: notifications/cancelled).
    abort.abort();
    expect((await listen.settled).error?.reason).toBe("DISCONNECTED");
    const again = recorder();
    child.request(call("p2", "poke"), again.sink, never);
    expect(resultOf(await again.settled).poked).toBe(0);
  });

  it("a listen stream is counted neither by the request timeout nor by the read stall", async () => {
    const { child } = await start({ command: echoServer(), limits: { requestTimeoutMs: 200, readTimeoutMs: 200 } });
    const listen = recorder();
    child.request(call("L", "subscriptions/listen", { notifications: { toolsListChanged: true } }), listen.sink, never, { scope: {} });
    await eventually(() => listen.messages.length === 1);
    // Another child serves as the clock: its answer comes well after both ceilings of the first.
    const { child: clock } = await start({ command: echoServer() });
    const slept = recorder();
    clock.request(call(1, "sleep", { ms: 800 }), slept.sink, never);
    resultOf(await slept.settled);
    expect(listen.calls()).toBe(0);
    const poke = recorder();
    child.request(call("p", "poke"), poke.sink, never);
    expect(resultOf(await poke.settled).poked).toBe(1);
    await eventually(() => listen.messages.length === 2);
  });

  it("a listen stream the server ends gracefully is answered with the caller's id as subscription id", async () => {
    const { child } = await start({ command: echoServer() });
    const listen = recorder();
    child.request(call(42, "subscriptions/listen", { notifications: { toolsListChanged: true } }), listen.sink, never, { scope: {} });
    await eventually(() => listen.messages.length === 1);
    const end = recorder();
    child.request(call("e", "end_listens"), end.sink, never);
    expect(resultOf(await end.settled).ended).toBe(1);
    expect((await listen.settled).answer).toEqual({
      jsonrpc: "2.0",
      id: 42,
      result: { resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": 42 } },
    });
  });

  it("hands what belongs to no request to the owner: the child's requests and unrelated notifications", async () => {
    const { child, unrelated } = await start({ command: echoServer() });
    const asking = recorder();
    child.request(call(1, "ask", { method: "roots/list" }), asking.sink, never);
    await eventually(() => unrelated.length === 1);
    const question = unrelated[0] as JsonRpcRequest;
    expect(question.method).toBe("roots/list");
    child.respond({ jsonrpc: "2.0", id: question.id, result: { roots: [] } });
    expect(resultOf(await asking.settled).answer).toEqual({ jsonrpc: "2.0", id: question.id, result: { roots: [] } });
    // A log message while one request asked for logs (2026-07-28 `_meta` logLevel) is that request's.
    const wanting = recorder();
    child.request(call(3, "log", { _meta: { "io.modelcontextprotocol/logLevel": "info" }, text: "mine" }), wanting.sink, never);
    await wanting.settled;
    expect(wanting.messages).toEqual([{ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "mine" } }]);
    // A log message with no request asking for logs belongs to nobody: the owner.
    const logging = recorder();
    child.request(call(2, "log", { text: "hello" }), logging.sink, never);
    await logging.settled;
    expect(logging.messages).toEqual([]);
    expect(unrelated[1]).toMatchObject({ method: "notifications/message", params: { data: "hello" } });
  });
});

describe("GatewayChild: ceilings and timeouts", () => {
  it("past the request timeout: notifications/cancelled to the child, TIMEOUT to the sink, and the late answer dropped", async () => {
    const { child } = await start({ command: echoServer(), limits: { requestTimeoutMs: 200 } });
    const slow = recorder();
    child.request(call("slow", "sleep", { ms: 1_500 }), slow.sink, never);
    const { error } = await slow.settled;
    expect(error?.reason).toBe("TIMEOUT");
    expect(error?.timeoutMs).toBe(200);
    const cancels = recorder();
    child.request(call("c", "cancels"), cancels.sink, never, { timeoutMs: 10_000 });
    const listed = resultOf(await cancels.settled).cancels as { requestId: unknown; reason: string }[];
    expect(listed).toEqual([{ requestId: expect.any(Number), reason: "the gateway's request timeout passed" }]);
    // The child answers the sleep late (it ignores cancels): nothing more reaches the sink.
    const after = recorder();
    child.request(call("after", "sleep", { ms: 1_600 }), after.sink, never, { timeoutMs: 10_000 });
    await after.settled;
    expect(slow.calls()).toBe(1);
  });

  it("refuses a request past maxInFlight with LIMIT, without sending it", async () => {
    const { child } = await start({ command: echoServer(), limits: { maxInFlight: 2 } });
    const held = [recorder(), recorder()];
    held.forEach((r, i) => child.request(call(i, "sleep", { ms: -1 }), r.sink, never));
    expect(child.atCeiling).toBe(true);
    const third = recorder();
    child.request(call(3, "echo"), third.sink, never);
    expect((await third.settled).error?.reason).toBe("LIMIT");
  });

  it("a message past maxMessageBytes fails its request with LIMIT, and the child goes on", async () => {
    const { child } = await start({ command: echoServer(), limits: { maxMessageBytes: 1_000 } });
    const big = recorder();
    child.request(call(1, "echo", { pad: "x".repeat(2_000) }), big.sink, never);
    expect((await big.settled).error?.reason).toBe("LIMIT");
    const small = recorder();
    child.request(call(2, "echo"), small.sink, never);
    expect(resultOf(await small.settled).line).toContain('"echo"');
  });
});

describe("GatewayChild: death and close", () => {
  it("a child SIGKILLed mid-call fails its pending requests at once, and reports its exit", async () => {
    const { child, exited } = await start({ command: echoServer("--stderr", "SECRET-FROM-STDERR"), limits: { requestTimeoutMs: 600_000 } });
    const pending = [recorder(), recorder(), recorder()];
    pending.forEach((r, i) => child.request(call(i, "sleep", { ms: -1 }), r.sink, never));
    process.kill(child.pid, "SIGKILL");
    // At once: the request timeout (10 minutes) is far past the test's own, so only the death settles them.
    const outcomes = await Promise.all(pending.map((r) => r.settled));
    for (const { error } of outcomes) {
      expect(error?.reason).toBe("DISCONNECTED");
      expect(error?.signal).toBe("SIGKILL");
      expect(error?.message).not.toContain("SECRET");
      expect(error?.stderrTail).toBeUndefined();
    }
    expect(await exited).toEqual({ pid: child.pid, cause: "killed", exitCode: null, signal: "SIGKILL" });
    expect(child.alive).toBe(false);
    const late = recorder();
    child.request(call(9, "echo"), late.sink, never);
    expect((await late.settled).error).toMatchObject({ reason: "DISCONNECTED", signal: "SIGKILL" });
  });

  it("a child that exits by itself is reported as a crash with its code", async () => {
    const { child, exited } = await start({ command: echoServer() });
    const dying = recorder();
    child.request(call(1, "exit", { code: 7 }), dying.sink, never);
    expect((await dying.settled).error).toMatchObject({ reason: "DISCONNECTED", exitCode: 7 });
    expect(await exited).toMatchObject({ cause: "crash", exitCode: 7 });
  });

  it("close() on a child ignoring stdin EOF and SIGTERM kills it with SIGKILL", async () => {
    const { child, exited } = await start({ command: stdioFixture("stdio-ignores-sigterm.mjs") });
    const pid = child.pid;
    const echo = recorder();
    child.request(call(1, "tools/call", { name: "echo", arguments: { text: "up" } }), echo.sink, never);
    resultOf(await echo.settled);
    await child.close("shutdown");
    expect(isRunning(pid)).toBe(false);
    expect(await exited).toMatchObject({ cause: "shutdown", signal: "SIGKILL" });
  });

  it("after close() no grandchild of the child is left", async () => {
    const { child } = await start({ command: stdioFixture("stdio-spawns-grandchild.mjs", "--stubborn") });
    const pids = recorder();
    child.request(call(1, "tools/call", { name: "pids" }), pids.sink, never);
    const text = ((resultOf(await pids.settled).content as { text: string }[])[0]!).text;
    const { grandchild } = JSON.parse(text) as { grandchild: number };
    expect(isRunning(grandchild)).toBe(true);
    await child.close("shutdown");
    expect(isRunning(grandchild)).toBe(false);
    expect(runningInGroup(child.pid)).toEqual([]);
  });

  it("a child that cannot be started rejects with UNAVAILABLE", async () => {
    await expect(
      GatewayChild.spawn({
        command: { command: "/nonexistent/mcp-server", args: [], env: {}, envAllow: ["PATH"] },
        owner: { unrelated: () => {}, exited: () => {} },
      }),
    ).rejects.toMatchObject({ reason: "UNAVAILABLE" });
  });
});
