/**
 * The modern pool in front of a server that speaks the legacy era only (server-everything answers
 * `server/discover` with -32601): it learns so from its probe and keeps no warm children
 * (child-pool.ts); the 2026-07-28 fixture keeps its own.
 */
import { describe, expect, it } from "vitest";
import { ChildPool, type ChildPoolOptions } from "../../../src/gateway/children/index.js";
import { call, everythingServer, isRunning, modernServer, never, recorder, resultOf, useCleanup } from "./helpers.js";
import { MODERN_META, ownedPool, recordingTelemetry } from "./pool-helpers.js";

const cleanup = useCleanup();

function pool(options: Partial<ChildPoolOptions> & Pick<ChildPoolOptions, "command">): ChildPool {
  return ownedPool(cleanup, { probeTimeoutMs: 30_000, ...options });
}

describe("ChildPool (modern) before a legacy-only server", () => {
  it("learns from its probe, stays ready, and keeps no child running", async () => {
    const seen = recordingTelemetry();
    const legacy = pool({ command: everythingServer(), poolMin: 2, telemetry: seen.telemetry });
    await legacy.start();
    expect(legacy.ready).toBe(true);
    expect(legacy.legacyOnly).toBe(true);
    expect(seen.notes).toContain("era_legacy_only");
    await expect.poll(() => legacy.stats.children, { timeout: 20_000 }).toBe(0);
    expect(seen.spawned.length).toBeGreaterThan(0);
    await expect.poll(() => seen.spawned.filter(isRunning), { timeout: 20_000 }).toEqual([]);
    expect(seen.exited.every((exit) => exit.cause === "idle")).toBe(true);
    expect(legacy.ready).toBe(true);
  }, 60_000);

  it("answers a caller's server/discover with the server's own error, in the caller's id, without a child", async () => {
    const seen = recordingTelemetry();
    const legacy = pool({ command: everythingServer(), poolMin: 1, telemetry: seen.telemetry });
    await legacy.start();
    await expect.poll(() => legacy.stats.children, { timeout: 20_000 }).toBe(0);
    const spawnedBefore = seen.spawned.length;
    const discover = recorder();
    legacy.caller().request(call("caller-7", "server/discover", { _meta: MODERN_META }), discover.sink, never);
    const { answer } = await discover.settled;
    expect(answer).toEqual({ jsonrpc: "2.0", id: "caller-7", error: { code: -32601, message: "Method not found" } });
    expect(seen.spawned.length).toBe(spawnedBefore);
  }, 60_000);

  it("serves another modern request from a child spawned on demand, and closes it once idle", async () => {
    const seen = recordingTelemetry();
    const legacy = pool({ command: everythingServer(), poolMin: 1, idleCloseMs: 200, telemetry: seen.telemetry });
    await legacy.start();
    await expect.poll(() => legacy.stats.children, { timeout: 20_000 }).toBe(0);
    const listed = recorder();
    legacy.request(call(1, "tools/list", { _meta: MODERN_META }), listed.sink, never);
    const tools = resultOf(await listed.settled).tools as { name: string }[];
    expect(tools.map((tool) => tool.name)).toContain("echo");
    const onDemand = seen.spawned.at(-1)!;
    await expect.poll(() => isRunning(onDemand), { timeout: 20_000 }).toBe(false);
    // The pool hears of the exit once the child's pipes have closed, a moment after the process is gone.
    await expect.poll(() => legacy.stats.children, { timeout: 20_000 }).toBe(0);
    expect(seen.exited.find((exit) => exit.pid === onDemand)?.cause).toBe("idle");
  }, 60_000);
});

describe("ChildPool: idleCloseMs", () => {
  it("refuses a value that is not a whole number of ms, naming the option", () => {
    for (const idleCloseMs of [-1, 1.5, "5s"]) {
      expect(() => new ChildPool({ command: everythingServer(), era: "modern", idleCloseMs: idleCloseMs as number })).toThrow(/idleCloseMs/);
    }
  });
});

describe("ChildPool (modern) before a 2026-07-28 server", () => {
  it("keeps its warm child between requests, even with idleCloseMs at 0", async () => {
    const seen = recordingTelemetry();
    const modern = pool({ command: modernServer(), poolMin: 1, poolMax: 1, idleCloseMs: 0, telemetry: seen.telemetry });
    await modern.start();
    expect(modern.legacyOnly).toBe(false);
    expect(seen.notes).not.toContain("era_legacy_only");
    for (const id of [1, 2]) {
      const echoed = recorder();
      modern.request(call(id, "tools/call", { name: "echo", arguments: { text: "warm" }, _meta: MODERN_META }), echoed.sink, never);
      resultOf(await echoed.settled);
    }
    expect(seen.spawned).toHaveLength(1);
    expect(seen.exited).toEqual([]);
    expect(isRunning(seen.spawned[0]!)).toBe(true);
    expect(modern.stats.children).toBe(1);
  }, 60_000);
});
