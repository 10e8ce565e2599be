/**
 * The pool against real children: the echoing fixture, server-memory (legacy, stateless mode)
 * and the 2026-07-28 fixture on the official v2 server package.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { JsonRpcNotification } from "../../../src/protocol/jsonrpc.js";
import { STATELESS_REFUSAL, type ChildPool, type ChildPoolOptions } from "../../../src/gateway/children/index.js";
import {
  call,
  echoServer,
  eventually,
  isRunning,
  memoryServer,
  modernServer,
  never,
  recorder,
  resultOf,
  runningInGroup,
  stdioFixture,
  useCleanup,
} from "./helpers.js";
import { MODERN_META, ownedPool, recordingTelemetry } from "./pool-helpers.js";

const cleanup = useCleanup();
const scratch = mkdtempSync(join(tmpdir(), "mcpwire-pool-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function pool(options: Partial<ChildPoolOptions> & Pick<ChildPoolOptions, "command">): ChildPool {
  return ownedPool(cleanup, { ...options });
}

describe("ChildPool: isolation", () => {
  it("50 callers, 200 concurrent calls with the same ids and tokens: each gets only its own results and progress", async () => {
    const shared = pool({ command: echoServer(), poolMin: 2, poolMax: 4, limits: { maxInFlight: 16 }, maxQueued: 1_000 });
    await shared.start();
    expect(shared.ready).toBe(true);
    const calls: { caller: number; n: number; seen: ReturnType<typeof recorder> }[] = [];
    for (let caller = 0; caller < 50; caller++) {
      const relay = shared.caller();
      for (let n = 1; n <= 4; n++) {
        const seen = recorder();
        calls.push({ caller, n, seen });
        // Every caller uses ids 1..4 and the one token "t".
        relay.request(call(n, "progress", { _meta: { progressToken: "t" }, steps: 2, tag: `${caller}/${n}` }), seen.sink, never);
      }
    }
    await Promise.all(calls.map(({ seen }) => seen.settled));
    for (const { caller, n, seen } of calls) {
      const outcome = await seen.settled;
      expect(outcome.answer?.id).toBe(n);
      expect(resultOf(outcome).tag).toBe(`${caller}/${n}`);
      expect(seen.messages).toHaveLength(2);
      for (const message of seen.messages as JsonRpcNotification[]) {
        expect(message.params).toMatchObject({ progressToken: "t", message: `${caller}/${n}` });
      }
      expect(seen.calls()).toBe(1);
    }
    // It grew past poolMin under the load, within poolMax.
    expect(shared.stats.children).toBeGreaterThan(2);
    expect(shared.stats.children).toBeLessThanOrEqual(4);
  });
});

describe("ChildPool: picking a child", () => {
  it("sends each request to the least-loaded child", async () => {
    const shared = pool({ command: echoServer(), poolMin: 2, poolMax: 2 });
    await shared.start();
    const held = recorder();
    shared.request(call("held", "sleep", { ms: -1 }), held.sink, never);
    await eventually(() => shared.stats.inFlight === 1);
    const answered: number[] = [];
    for (let n = 0; n < 4; n++) {
      const seen = recorder();
      shared.request(call(n, "pid"), seen.sink, never);
      answered.push(resultOf(await seen.settled).pid as number);
    }
    // All four went to the child without the held request, the same one each time.
    expect(new Set(answered).size).toBe(1);
    expect(shared.pids).toContain(answered[0]);
  });
});

describe("ChildPool: children that die", () => {
  it("a child SIGKILLed mid-call fails its request at once, and the pool replaces it", async () => {
    const { telemetry, exited, spawned, running } = recordingTelemetry();
    const shared = pool({ command: echoServer(), poolMin: 1, backoff: { initialMs: 10, maxMs: 50 }, limits: { requestTimeoutMs: 600_000 }, telemetry });
    await shared.start();
    const [first] = shared.pids;
    const pending = recorder();
    shared.request(call(1, "sleep", { ms: -1 }), pending.sink, never);
    await eventually(() => shared.stats.inFlight === 1);
    process.kill(first!, "SIGKILL");
    expect((await pending.settled).error).toMatchObject({ reason: "DISCONNECTED", signal: "SIGKILL" });
    await eventually(() => shared.pids.length === 1 && shared.pids[0] !== first);
    const after = recorder();
    shared.request(call(2, "echo"), after.sink, never);
    expect(resultOf(await after.settled).line).toContain('"echo"');
    expect(exited).toContainEqual({ pid: first, cause: "killed" });
    expect(spawned).toEqual([first, shared.pids[0]]);
    // The gauge of children running: up, down at the death, up with the replacement.
    expect(running).toEqual([1, 0, 1]);
    expect(shared.ready).toBe(true);
  });

  it("a crash-looping child makes the pool not ready, and requests fail at once with UNAVAILABLE", async () => {
    const { telemetry, notes } = recordingTelemetry();
    const looping = pool({
      command: echoServer("--exit-at-start", "1"),
      poolMin: 1,
      backoff: { initialMs: 5, maxMs: 20 },
      crashLoop: { exits: 3, windowMs: 60_000 },
      telemetry,
    });
    await looping.start();
    expect(looping.ready).toBe(false);
    expect(looping.crashLooping).toBe(true);
    expect(notes).toContain("crash_loop");
    const refused = recorder();
    looping.request(call(1, "echo"), refused.sink, never);
    expect((await refused.settled).error?.reason).toBe("UNAVAILABLE");
  });

  it("a command that cannot be started is a crash loop: start() resolves, not ready", async () => {
    const missing = pool({
      command: { command: "/nonexistent/mcp-server", args: [], env: {}, envAllow: ["PATH"] },
      poolMin: 1,
      backoff: { initialMs: 5, maxMs: 20 },
    });
    await missing.start();
    expect(missing.ready).toBe(false);
    expect(missing.crashLooping).toBe(true);
  });

  it("children that never answer their probe are a crash loop too", async () => {
    // Children that never answer their probe: each is stopped at the probe timeout, a loop.
    const silent = pool({ command: echoServer("--silent"), poolMin: 1, probeTimeoutMs: 100, backoff: { initialMs: 5, maxMs: 20 }, crashLoop: { exits: 2 } });
    await silent.start();
    expect(silent.ready).toBe(false);
    expect(silent.crashLooping).toBe(true);
  });

  it("a pool that recovers from a crash loop becomes ready and says so", async () => {
    const looping = pool({
      command: echoServer("--fail-first", "2", join(scratch, "starts")),
      poolMin: 1,
      backoff: { initialMs: 5, maxMs: 20 },
      crashLoop: { exits: 2 },
    });
    const changes: boolean[] = [];
    looping.onReadyChange((ready) => changes.push(ready));
    await looping.start();
    await eventually(() => looping.ready);
    expect(looping.crashLooping).toBe(false);
    // Told when the loop began (still not ready, now for that reason), then when it was ready.
    expect(changes).toEqual([false, true]);
    const echo = recorder();
    looping.request(call(1, "echo"), echo.sink, never);
    resultOf(await echo.settled);
  });

  it("recycle-after replaces a child without failing its in-flight calls", async () => {
    const { telemetry, exited } = recordingTelemetry();
    const recycling = pool({ command: echoServer(), poolMin: 1, poolMax: 2, recycleAfter: 3, telemetry });
    await recycling.start();
    const [first] = recycling.pids;
    const calls = [1, 2, 3].map((n) => {
      const seen = recorder();
      recycling.request(call(n, "sleep", { ms: 300 }), seen.sink, never);
      return seen;
    });
    for (const seen of calls) expect(resultOf(await seen.settled).slept).toBe(300);
    // Reported once its whole group is stopped.
    await eventually(() => exited.some((exit) => exit.pid === first && exit.cause === "recycled"));
    expect(isRunning(first!)).toBe(false);
    await eventually(() => recycling.pids.length === 1 && recycling.pids[0] !== first);
    const next = recorder();
    recycling.request(call(4, "echo"), next.sink, never);
    resultOf(await next.settled);
  });
});

/**
 * Holds `count` requests that never answer, each in a child of its own (the pool's children take
 * one at a time), so the pool grows to `count`; aborting the returned controller ends them.
 */
async function burst(target: ChildPool, count: number): Promise<{ pids: number[]; end: () => void }> {
  const abort = new AbortController();
  for (let n = 0; n < count; n++) target.request(call(`held-${n}`, "sleep", { ms: -1 }), recorder().sink, abort.signal);
  await eventually(() => target.stats.children === count && target.stats.inFlight === count && target.stats.queued === 0);
  return { pids: target.pids, end: () => abort.abort() };
}

describe("ChildPool: shrinking back after a burst", () => {
  for (const era of ["modern", "legacy-stateless"] as const) {
    it(`${era}: grows to poolMax under a burst, then closes the idle children above poolMin, groups and all`, async () => {
      const { telemetry, exited } = recordingTelemetry();
      const shrinking = pool({ command: echoServer(), era, poolMin: 1, poolMax: 3, poolIdleMs: 200, limits: { maxInFlight: 1 }, telemetry });
      await shrinking.start();
      const { pids, end } = await burst(shrinking, 3);
      end();
      await eventually(() => shrinking.stats.children === 1 && exited.length === 2);
      const [kept] = shrinking.pids;
      expect(pids).toContain(kept);
      const retired = pids.filter((pid) => pid !== kept);
      expect(exited).toEqual(expect.arrayContaining(retired.map((pid) => ({ pid, cause: "idle" }))));
      for (const pid of retired) {
        expect(isRunning(pid)).toBe(false);
        expect(runningInGroup(pid)).toEqual([]);
      }
      // The one kept serves, and a new burst grows the pool again.
      const echo = recorder();
      shrinking.request(call("after", "pid"), echo.sink, never);
      expect(resultOf(await echo.settled).pid).toBe(kept);
      const again = await burst(shrinking, 3);
      again.end();
      await eventually(() => shrinking.stats.children === 1 && exited.length === 4);
      expect(exited.every((exit) => exit.cause === "idle")).toBe(true);
    });
  }

  it("never closes a child with a request in flight (a listen stream), even at poolMin 0; closes it once that ends", async () => {
    const { telemetry, exited } = recordingTelemetry();
    const shrinking = pool({ command: echoServer(), poolMin: 0, poolMax: 2, poolIdleMs: 200, limits: { maxInFlight: 2 }, telemetry });
    await shrinking.start();
    const listening = new AbortController();
    const listen = recorder();
    shrinking.request(call("listen", "subscriptions/listen", {}), listen.sink, listening.signal);
    await eventually(() => listen.messages.length === 1);
    const [listener] = shrinking.pids;
    // One held call beside the stream fills the listener; the next one grows the pool.
    const calls = new AbortController();
    for (const id of ["beside", "grown"]) shrinking.request(call(id, "sleep", { ms: -1 }), recorder().sink, calls.signal);
    await eventually(() => shrinking.stats.children === 2 && shrinking.stats.inFlight === 3);
    const grown = shrinking.pids.find((pid) => pid !== listener)!;
    // Both calls end: the listener's settles beside the open stream, the grown child's leaves it idle.
    calls.abort();
    await eventually(() => exited.length === 1);
    expect(exited).toEqual([{ pid: grown, cause: "idle" }]);
    // Well past its idle time, the listener still serves, and its stream is still open.
    const poke = recorder();
    shrinking.request(call("poke", "poke"), poke.sink, never);
    expect(resultOf(await poke.settled).poked).toBe(1);
    expect(shrinking.pids).toEqual([listener]);
    expect(listen.calls()).toBe(0);
    expect(listen.messages).toHaveLength(2);
    listening.abort();
    await eventually(() => shrinking.stats.children === 0);
    expect(exited).toEqual([
      { pid: grown, cause: "idle" },
      { pid: listener, cause: "idle" },
    ]);
    expect(runningInGroup(listener!)).toEqual([]);
  });

  it("counts a child still closing against poolMax: a new burst gets its room once it exited", async () => {
    const told = join(scratch, "told-to-close");
    const seen = recordingTelemetry();
    // Stubborn children: one closed for being idle runs on until the ladder's SIGKILL.
    const shrinking = pool({ command: echoServer("--stubborn", told), poolMin: 1, poolMax: 2, poolIdleMs: 100, limits: { maxInFlight: 1 }, telemetry: seen.telemetry });
    await shrinking.start();
    const first = await burst(shrinking, 2);
    first.end();
    await eventually(() => existsSync(told) && readFileSync(told, "utf8").trim() !== "");
    const closing = Number(readFileSync(told, "utf8").trim());
    expect(first.pids).toContain(closing);
    const next = new AbortController();
    for (const id of ["next-1", "next-2"]) shrinking.request(call(id, "sleep", { ms: -1 }), recorder().sink, next.signal);
    await eventually(() => shrinking.stats.children === 2 && shrinking.stats.inFlight === 2 && shrinking.stats.queued === 0);
    const grown = seen.spawned.at(-1)!;
    expect(first.pids).not.toContain(grown);
    expect(seen.events.indexOf(`exit ${closing} idle`)).toBeGreaterThan(-1);
    expect(seen.events.indexOf(`exit ${closing} idle`)).toBeLessThan(seen.events.indexOf(`spawn ${grown}`));
    expect(Math.max(...seen.running)).toBe(2);
    next.abort();
  });

  it("keeps every child with poolIdleMs 0, while a pool with a short one shrinks", async () => {
    const keeping = recordingTelemetry();
    const kept = pool({ command: echoServer(), poolMin: 1, poolMax: 2, poolIdleMs: 0, limits: { maxInFlight: 1 }, telemetry: keeping.telemetry });
    const shrinking = pool({ command: echoServer(), poolMin: 1, poolMax: 2, poolIdleMs: 100, limits: { maxInFlight: 1 } });
    await Promise.all([kept.start(), shrinking.start()]);
    const bursts = await Promise.all([burst(kept, 2), burst(shrinking, 2)]);
    for (const { end } of bursts) end();
    await eventually(() => shrinking.stats.children === 1);
    expect(kept.stats).toEqual({ children: 2, inFlight: 0, queued: 0 });
    expect(kept.pids.sort()).toEqual(bursts[0].pids.sort());
    expect(keeping.exited).toEqual([]);
  });
});

describe("ChildPool: ceilings and close", () => {
  it("grows up to poolMax, queues up to maxQueued, refuses past it with LIMIT; close() fails what waits and stops every child", async () => {
    const bounded = pool({ command: echoServer(), poolMin: 1, poolMax: 2, maxQueued: 1, limits: { maxInFlight: 1 } });
    await bounded.start();
    const held = [recorder(), recorder()];
    held.forEach((seen, i) => bounded.request(call(i, "sleep", { ms: -1 }), seen.sink, never));
    // The second child's probe counts in flight too: wait for the second request to reach it.
    await eventually(() => bounded.stats.inFlight === 2 && bounded.stats.queued === 0);
    expect(bounded.stats.children).toBe(2);
    const queued = recorder();
    bounded.request(call("q", "echo"), queued.sink, never);
    expect(bounded.stats.queued).toBe(1);
    const refused = recorder();
    bounded.request(call("r", "echo"), refused.sink, never);
    expect((await refused.settled).error?.reason).toBe("LIMIT");
    const pids = bounded.pids;
    await bounded.close();
    expect((await queued.settled).error?.reason).toBe("UNAVAILABLE");
    for (const seen of held) expect((await seen.settled).error?.reason).toBe("DISCONNECTED");
    for (const pid of pids) expect(isRunning(pid)).toBe(false);
    const late = recorder();
    bounded.request(call("late", "echo"), late.sink, never);
    expect((await late.settled).error?.reason).toBe("UNAVAILABLE");
  });

  it("a request that waits in the queue past the request timeout fails with TIMEOUT", async () => {
    const bounded = pool({ command: echoServer(), poolMin: 1, poolMax: 1, limits: { maxInFlight: 1, requestTimeoutMs: 300 } });
    await bounded.start();
    const held = recorder();
    bounded.request(call(1, "sleep", { ms: -1 }), held.sink, never);
    const queued = recorder();
    bounded.request(call(2, "sleep", { ms: -1 }), queued.sink, never);
    expect((await queued.settled).error).toMatchObject({ reason: "TIMEOUT", timeoutMs: 300 });
    expect((await held.settled).error?.reason).toBe("TIMEOUT");
  });

  it("close() leaves no grandchild of any child", async () => {
    const stateless = pool({ command: stdioFixture("stdio-spawns-grandchild.mjs", "--stubborn"), era: "legacy-stateless", poolMin: 2 });
    await stateless.start();
    const children = stateless.pids;
    const grandchildren: number[] = [];
    for (let n = 0; n < 2; n++) {
      const pids = recorder();
      stateless.request(call(n, "tools/call", { name: "pids" }), pids.sink, never);
      const text = (resultOf(await pids.settled).content as { text: string }[])[0]!.text;
      grandchildren.push((JSON.parse(text) as { grandchild: number }).grandchild);
    }
    await stateless.close();
    for (const pid of grandchildren) expect(isRunning(pid)).toBe(false);
    for (const pid of children) expect(runningInGroup(pid)).toEqual([]);
  });

  it("a queued request whose caller goes away leaves the queue with the abort's reason", async () => {
    const bounded = pool({ command: echoServer(), poolMin: 1, poolMax: 1, limits: { maxInFlight: 1 } });
    await bounded.start();
    bounded.request(call(1, "sleep", { ms: -1 }), recorder().sink, never);
    const queued = recorder();
    const abort = new AbortController();
    bounded.request(call(2, "echo"), queued.sink, abort.signal);
    expect(bounded.stats.queued).toBe(1);
    abort.abort();
    expect((await queued.settled).error?.reason).toBe("DISCONNECTED");
    expect(bounded.stats.queued).toBe(0);
  });
});

describe("ChildPool: legacy stateless", () => {
  it("refuses a request the child sends to the client with a JSON-RPC error saying the gateway is stateless", async () => {
    const stateless = pool({ command: echoServer(), era: "legacy-stateless" });
    await stateless.start();
    const asking = recorder();
    stateless.request(call(1, "ask", { method: "roots/list" }), asking.sink, never);
    const { answer } = resultOf(await asking.settled) as { answer: { error: { message: string } } };
    expect(answer.error.message).toBe(STATELESS_REFUSAL);
    // Nothing of it reached the caller.
    expect(asking.messages).toEqual([]);
  });

  it("answers a caller's initialize from the result the child gave the gateway's own initialize", async () => {
    const stateless = pool({ command: echoServer(), era: "legacy-stateless" });
    await stateless.start();
    const init = recorder();
    stateless.request(call("i", "initialize", { protocolVersion: "2025-06-18", capabilities: { roots: {} }, clientInfo: { name: "c", version: "1" } }), init.sink, never);
    const result = resultOf(await init.settled);
    expect((await init.settled).answer?.id).toBe("i");
    // In the caller's revision, which the server supports (it answers each with the one asked).
    expect(result).toMatchObject({ protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "gateway-echo", version: "1.0.0" } });
    expect(stateless.initializeResult).toEqual({ ...result, protocolVersion: "2025-11-25" });
    // What the child got was the gateway's own initialize: its clientInfo, no client capabilities.
    expect(JSON.parse(result.instructions as string).params).toEqual({
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "mcpwire-gateway", version: expect.any(String) },
    });
  });

  it("answers resources/subscribe itself with an error: no session would carry the updates", async () => {
    const stateless = pool({ command: echoServer(), era: "legacy-stateless" });
    await stateless.start();
    const subscribe = recorder();
    stateless.request(call(1, "resources/subscribe", { uri: "file:///x" }), subscribe.sink, never);
    const { answer } = await subscribe.settled;
    expect(answer).toMatchObject({ id: 1, error: { code: -32601, message: expect.stringContaining("--legacy session") } });
  });

  it("a server that refuses the gateway's initialize (2026-07-28 only) makes the pool not ready, without restarting it", async () => {
    const { telemetry, spawned, notes } = recordingTelemetry();
    const stateless = pool({ command: modernServer(), era: "legacy-stateless", telemetry, backoff: { initialMs: 5, maxMs: 20 } });
    await stateless.start();
    expect(stateless.ready).toBe(false);
    expect(stateless.refusedEra).toBe(true);
    expect(notes).toContain("era_refused");
    expect(spawned).toHaveLength(1);
    const refused = recorder();
    stateless.request(call(1, "tools/list"), refused.sink, never);
    expect((await refused.settled).error?.reason).toBe("UNAVAILABLE");
  });

  it("serves server-memory's tools to callers without a session", async () => {
    const stateless = pool({ command: memoryServer(join(scratch, "stateless.jsonl")), era: "legacy-stateless" });
    await stateless.start();
    expect(stateless.ready).toBe(true);
    const create = recorder();
    stateless.request(
      call(1, "tools/call", { name: "create_entities", arguments: { entities: [{ name: "dune", entityType: "book", observations: ["sand"] }] } }),
      create.sink,
      never,
    );
    resultOf(await create.settled);
    const read = recorder();
    stateless.request(call(2, "tools/call", { name: "read_graph", arguments: {} }), read.sink, never);
    expect(JSON.stringify(resultOf(await read.settled))).toContain("dune");
  });
});

describe("ChildPool: 2026-07-28", () => {
  it("probes the modern fixture with server/discover, and passes requestState byte for byte", async () => {
    const modern = pool({ command: modernServer(), era: "modern" });
    await modern.start();
    expect(modern.ready).toBe(true);
    const echo = recorder();
    modern.request(call(1, "tools/call", { _meta: MODERN_META, name: "echo", arguments: { text: "hi" } }), echo.sink, never);
    expect(resultOf(await echo.settled).content).toEqual([{ type: "text", text: "hi" }]);
    const deploy = recorder();
    const meta = { ...MODERN_META, "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} }, roots: {} } };
    modern.request(call(2, "tools/call", { _meta: meta, name: "deploy", arguments: { env: "prod" } }), deploy.sink, never);
    const first = resultOf(await deploy.settled);
    expect(first.resultType).toBe("input_required");
    expect(JSON.parse(first.requestState as string)).toEqual({ step: 1, env: "prod" });
    // The second round carries the state back as it came, and the server (any child) takes it up.
    const second = recorder();
    const retry = {
      _meta: meta,
      name: "deploy",
      arguments: { env: "prod" },
      inputResponses: { confirm: { action: "accept", content: { confirm: true, team: "blue" } } },
      requestState: first.requestState,
    };
    modern.request(call(3, "tools/call", retry), second.sink, never);
    const next = resultOf(await second.settled);
    expect(next.resultType).toBe("input_required");
    expect(JSON.parse(next.requestState as string)).toEqual({ step: 2, env: "prod" });
  });
});
