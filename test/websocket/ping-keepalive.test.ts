/** The keepalive's schedule and its options, with the clock under the test's control. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  DEFAULT_KEEPALIVE_INTERVAL_MS,
  DEFAULT_KEEPALIVE_TIMEOUT_MS,
  PingKeepAlive,
  resolveKeepAlive,
} from "../../src/transport/websocket/ping-keepalive.js";

describe("PingKeepAlive", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function keepAlive(intervalMs: number, timeoutMs: number) {
    const state = { pings: 0, dead: 0 };
    const watch = new PingKeepAlive({ intervalMs, timeoutMs }, () => state.pings++, () => state.dead++);
    watch.start();
    return { watch, state };
  }

  it("pings after intervalMs and declares the peer dead timeoutMs later without a pong", () => {
    const { state } = keepAlive(1_000, 500);
    vi.advanceTimersByTime(999);
    expect(state.pings).toBe(0);
    vi.advanceTimersByTime(1);
    expect(state.pings).toBe(1);
    vi.advanceTimersByTime(499);
    expect(state.dead).toBe(0);
    vi.advanceTimersByTime(1);
    expect(state.dead).toBe(1);
    vi.advanceTimersByTime(10_000);
    expect(state).toEqual({ pings: 1, dead: 1 });
  });

  it("a pong schedules the next ping intervalMs later, one ping at a time", () => {
    const { watch, state } = keepAlive(1_000, 500);
    vi.advanceTimersByTime(1_000);
    watch.pong();
    vi.advanceTimersByTime(999);
    expect(state.pings).toBe(1);
    vi.advanceTimersByTime(1);
    expect(state.pings).toBe(2);
    watch.pong();
    vi.advanceTimersByTime(1_499);
    expect(state).toEqual({ pings: 3, dead: 0 });
    vi.advanceTimersByTime(1);
    expect(state).toEqual({ pings: 3, dead: 1 });
  });

  it("a message from the peer while a pong is late counts as life", () => {
    const { watch, state } = keepAlive(1_000, 500);
    vi.advanceTimersByTime(1_000);
    watch.activity();
    vi.advanceTimersByTime(500);
    expect(state.dead).toBe(0);
    vi.advanceTimersByTime(1_000);
    expect(state.pings).toBe(2);
    vi.advanceTimersByTime(500);
    expect(state.dead).toBe(1);
  });

  it("activity before the ping does not excuse a missing pong", () => {
    const { watch, state } = keepAlive(1_000, 500);
    vi.advanceTimersByTime(900);
    watch.activity();
    vi.advanceTimersByTime(600);
    expect(state.dead).toBe(1);
  });

  it("intervalMs 0 never pings; timeoutMs 0 pings without a deadline", () => {
    const off = keepAlive(0, 500);
    vi.advanceTimersByTime(60_000);
    expect(off.state).toEqual({ pings: 0, dead: 0 });
    const noDeadline = keepAlive(1_000, 0);
    vi.advanceTimersByTime(10_000);
    expect(noDeadline.state).toEqual({ pings: 10, dead: 0 });
  });

  it("stop() ends every timer", () => {
    const { watch, state } = keepAlive(1_000, 500);
    vi.advanceTimersByTime(1_000);
    watch.stop();
    vi.advanceTimersByTime(60_000);
    expect(state).toEqual({ pings: 1, dead: 0 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a ping that throws (socket closing) stops nothing and declares nothing", () => {
    let dead = 0;
    const watch = new PingKeepAlive({ intervalMs: 100, timeoutMs: 100 }, () => {
      throw new Error("not open");
    }, () => dead++);
    watch.start();
    vi.advanceTimersByTime(1_000);
    expect(dead).toBe(0);
  });
});

describe("resolveKeepAlive", () => {
  it("has documented defaults", () => {
    expect(resolveKeepAlive(undefined)).toEqual({ intervalMs: 30_000, timeoutMs: 10_000 });
    expect(DEFAULT_KEEPALIVE_INTERVAL_MS).toBe(30_000);
    expect(DEFAULT_KEEPALIVE_TIMEOUT_MS).toBe(10_000);
  });

  it("takes each value given, 0 included", () => {
    expect(resolveKeepAlive({ intervalMs: 0 })).toEqual({ intervalMs: 0, timeoutMs: 10_000 });
    expect(resolveKeepAlive({ timeoutMs: 0, intervalMs: 5 })).toEqual({ intervalMs: 5, timeoutMs: 0 });
  });

  it.each([
    [null, '"keepAlive" must be an object'],
    [true, '"keepAlive" must be an object'],
    [[], '"keepAlive" must be an object'],
    [{ interval: 5 }, '"keepAlive.interval" is not an option; the options are intervalMs, timeoutMs'],
    [{ intervalMs: -1 }, '"keepAlive.intervalMs" must be a whole number of ms from 0 (off)'],
    [{ intervalMs: 1.5 }, '"keepAlive.intervalMs" must be a whole number'],
    [{ timeoutMs: "10" }, '"keepAlive.timeoutMs" must be a whole number of ms from 0 (off) to 2147483647, got "10" (default 10000)'],
    [{ timeoutMs: 2 ** 31 }, '"keepAlive.timeoutMs" must be a whole number'],
  ])("refuses %j naming the key", (value, message) => {
    expect(() => resolveKeepAlive(value, "where")).toThrow(TypeError);
    expect(() => resolveKeepAlive(value, "where")).toThrow(message);
  });
});
