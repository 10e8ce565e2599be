/** The readiness: ready only when every source lets it be, and never again once draining. */
import { describe, expect, it } from "vitest";
import { Readiness, type ReadinessState } from "../../../src/gateway/ops/readiness.js";
import { readinessCollector } from "../../../src/gateway/ops/readiness-metrics.js";

describe("the readiness", () => {
  it("is not ready until the pool has reported, and says why", () => {
    const readiness = new Readiness();
    expect(readiness.state()).toEqual({ ready: false, reason: "pool: not reported yet" });
    readiness.report("pool", true);
    expect(readiness.state()).toEqual({ ready: true });
  });

  it("is held back by any source, and ready again when all let it", () => {
    const readiness = new Readiness({ waitFor: [] });
    expect(readiness.state().ready).toBe(true);
    readiness.report("capacity", false, "queue full");
    readiness.report("crash_loop", false, "children exit at start");
    expect(readiness.state()).toEqual({ ready: false, reason: "capacity: queue full" });
    readiness.report("capacity", true);
    expect(readiness.state()).toEqual({ ready: false, reason: "crash_loop: children exit at start" });
    readiness.report("crash_loop", true);
    expect(readiness.state().ready).toBe(true);
  });

  it("fails at once when draining starts, whatever the sources say after", () => {
    const readiness = new Readiness({ waitFor: [] });
    const seen: ReadinessState[] = [];
    readiness.onChange((state) => seen.push(state));
    readiness.startDraining();
    readiness.report("pool", true);
    readiness.startDraining();
    expect(readiness.state()).toEqual({ ready: false, reason: "draining" });
    expect(readiness.draining).toBe(true);
    expect(seen).toEqual([{ ready: false, reason: "draining" }]);
  });

  it("tells listeners only of changes, and keeps a reason to one short line", () => {
    const readiness = new Readiness({ waitFor: [] });
    const seen: ReadinessState[] = [];
    const stop = readiness.onChange((state) => seen.push(state));
    readiness.report("pool", true);
    readiness.report("pool", false, `no child\nanswered ${"x".repeat(300)}`);
    readiness.report("pool", false, `no child\nanswered ${"x".repeat(300)}`);
    stop();
    readiness.report("pool", true);
    expect(seen).toHaveLength(1);
    const reason = (seen[0] as { reason: string }).reason;
    expect(reason).not.toContain("\n");
    expect(reason.length).toBeLessThanOrEqual(140);
  });

  it("shows as the mcpwire_gateway_ready and _draining gauges", () => {
    const readiness = new Readiness();
    const values = () => Object.fromEntries(readinessCollector(readiness)().map((family) => [family.name, family.samples[0]!.value]));
    expect(values()).toEqual({ mcpwire_gateway_ready: 0, mcpwire_gateway_draining: 0 });
    readiness.report("pool", true);
    expect(values()).toEqual({ mcpwire_gateway_ready: 1, mcpwire_gateway_draining: 0 });
    readiness.startDraining();
    expect(values()).toEqual({ mcpwire_gateway_ready: 0, mcpwire_gateway_draining: 1 });
  });
});

describe("the readiness following a ready flag", () => {
  it("reports the flag now and at each change, with the reason when not ready, until stopped", () => {
    const listeners = new Set<(ready: boolean) => void>();
    const pool = {
      ready: false,
      looping: false,
      onReadyChange(listener: (ready: boolean) => void) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      set(ready: boolean) {
        this.ready = ready;
        for (const listener of listeners) listener(ready);
      },
    };
    const readiness = new Readiness();
    const stop = readiness.follow("pool", pool, () => (pool.looping ? "children exit before they answer (crash loop)" : "warming"));
    expect(readiness.state()).toEqual({ ready: false, reason: "pool: warming" });
    pool.set(true);
    expect(readiness.state()).toEqual({ ready: true });
    pool.looping = true;
    pool.set(false);
    expect(readiness.state()).toEqual({ ready: false, reason: "pool: children exit before they answer (crash loop)" });
    stop();
    pool.set(true);
    expect(readiness.state().ready).toBe(false);
    expect(listeners.size).toBe(0);
  });

  it("keeps telling the other listeners when one throws", () => {
    const readiness = new Readiness({ waitFor: [] });
    const seen: boolean[] = [];
    readiness.onChange(() => {
      throw new Error("listener broken");
    });
    readiness.onChange((state) => seen.push(state.ready));
    expect(() => readiness.startDraining()).not.toThrow();
    expect(seen).toEqual([false]);
  });
});
