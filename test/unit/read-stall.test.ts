import { afterEach, describe, expect, it } from "vitest";
import type { McpTransportError } from "../../src/errors.js";
import type { RequestId } from "../../src/protocol/jsonrpc.js";
import { ReadStallWatch } from "../../src/transport/common/read-stall.js";

const until = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const request = (id: RequestId) => ({ jsonrpc: "2.0" as const, id, method: "tools/call" });
const response = (id: RequestId) => ({ jsonrpc: "2.0" as const, id, result: {} });

const watches: ReadStallWatch[] = [];
afterEach(() => {
  for (const watch of watches.splice(0)) watch.stop();
});

/** A watch whose stalls are recorded, with when each came (ms after `started`). */
function stallWatch(readTimeoutMs: number) {
  const stalls: { id: RequestId; error: McpTransportError; afterMs: number }[] = [];
  const started = Date.now();
  const watch = new ReadStallWatch(readTimeoutMs, "the server process", (id, error) =>
    stalls.push({ id, error, afterMs: Date.now() - started }),
  );
  watches.push(watch);
  return { watch, stalls };
}

describe("ReadStallWatch: the read-stall ceiling of a connection that is one stream", () => {
  it("fails every request still waiting once, with TIMEOUT naming the peer; an answered one is not failed", async () => {
    const { watch, stalls } = stallWatch(100);
    watch.sent(request(1));
    watch.sent(request(2));
    watch.sent(request("three"));
    watch.received(response(2));
    expect(watch.waiting).toBe(2);
    await expect.poll(() => stalls.length, { timeout: 5_000 }).toBe(2);
    expect(stalls.map((stall) => stall.id).sort()).toEqual([1, "three"]);
    expect(stalls[0]!.error).toBe(stalls[1]!.error);
    expect(stalls[0]!.error.reason).toBe("TIMEOUT");
    expect(stalls[0]!.error.timeoutMs).toBe(100);
    expect(stalls[0]!.error.message).toBe("the server process sent nothing for 100 ms while a request waited (readTimeoutMs)");
    expect(stalls[0]!.afterMs).toBeGreaterThanOrEqual(100 - 5);
    expect(watch.waiting).toBe(0);
    // Failed once: a request sent after the stall is a new busy spell, counted from its own start.
    watch.sent(request(4));
    await expect.poll(() => stalls.length, { timeout: 5_000 }).toBe(3);
    expect(stalls[2]!.id).toBe(4);
  });

  it("counts the silence from the last activity, bytes or a message", async () => {
    const { watch, stalls } = stallWatch(150);
    watch.sent(request(1));
    watch.sent(request(2));
    // Activity every 30 ms for 300 ms: twice the ceiling, without a stall. A late sleep cannot
    // make one: its timer is due before the stall's.
    for (let i = 0; i < 10; i++) {
      await until(30);
      if (i % 2 === 0) watch.activity();
      else watch.received({ jsonrpc: "2.0", method: "notifications/progress", params: {} });
    }
    expect(stalls).toHaveLength(0);
    const lastActivity = Date.now();
    await expect.poll(() => stalls.length, { timeout: 5_000 }).toBe(2);
    expect(Date.now() - lastActivity).toBeGreaterThanOrEqual(150 - 5);
  });

  it("counts from the first request of a busy spell, not from the last idle byte nor an earlier spell", async () => {
    const { watch, stalls } = stallWatch(150);
    // A first spell, answered at once: its timer is left armed.
    watch.sent(request(1));
    watch.received(response(1));
    // Idle for most of the ceiling, with a stray byte: neither counts against the next request.
    await until(60);
    watch.activity();
    await until(60);
    const sentAt = Date.now();
    watch.sent(request(2));
    await expect.poll(() => stalls.length, { timeout: 5_000 }).toBe(1);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(150 - 5);
  });

  it("waits for neither notifications nor long-lived requests, nor for requests answered or forgotten", async () => {
    const { watch, stalls } = stallWatch(50);
    watch.sent({ jsonrpc: "2.0", method: "notifications/initialized" });
    watch.sent(request("listen"), true);
    watch.sent(request(1));
    watch.sent(request(2));
    watch.received(response(1));
    watch.forget(2);
    expect(watch.waiting).toBe(0);
    // A request sent after them all, and left to stall: by its stall the others' time has passed.
    watch.sent(request(3));
    // Every request waiting fails in the same turn: had 1 or 2 been waited for, they would be here.
    await expect.poll(() => stalls.length, { timeout: 5_000 }).toBe(1);
    expect(stalls.map((stall) => stall.id)).toEqual([3]);
  });

  it("fails nothing once stopped, and arms no timer after", async () => {
    const { watch, stalls } = stallWatch(40);
    const other = stallWatch(120);
    watch.sent(request(1));
    watch.stop();
    watch.sent(request(2));
    // The other watch stalls after both of this one's ceilings have passed.
    other.watch.sent(request("other"));
    await expect.poll(() => other.stalls.length, { timeout: 5_000 }).toBe(1);
    expect(stalls).toHaveLength(0);
  });
});
