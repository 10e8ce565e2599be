import { afterEach, describe, expect, it } from "vitest";
import type { McpTransportError } from "../../src/errors.js";
import { StreamStallWatch } from "../../src/transport/common/stream-stall-watch.js";

const until = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const watches: StreamStallWatch[] = [];
afterEach(() => {
  for (const watch of watches.splice(0)) watch.close();
});

function stallWatch(readTimeoutMs: number): StreamStallWatch {
  const watch = new StreamStallWatch(readTimeoutMs, "the endpoint");
  watches.push(watch);
  return watch;
}

describe("StreamStallWatch: one timer for the read stalls of many streams", () => {
  it("fails a silent stream alone, once, with TIMEOUT, while a stream with activity goes on", async () => {
    const watch = stallWatch(300);
    const failures: McpTransportError[] = [];
    let busyFailed = false;
    watch.watch((error) => failures.push(error));
    const busy = watch.watch(() => (busyFailed = true));
    for (let i = 0; i < 15; i++) {
      await until(30);
      busy.activity();
    }
    expect(failures).toHaveLength(1);
    expect(failures[0]!.reason).toBe("TIMEOUT");
    expect(failures[0]!.timeoutMs).toBe(300);
    expect(failures[0]!.message).toContain("the endpoint sent nothing for 300 ms");
    expect(busyFailed).toBe(false);
    await until(500);
    expect(busyFailed).toBe(true); // silent since the loop ended
    expect(failures).toHaveLength(1);
  });

  it("counts the silence from the last activity, not from the start", async () => {
    const watch = stallWatch(120);
    const started = Date.now();
    let failedAfter = 0;
    const stream = watch.watch(() => (failedAfter = Date.now() - started));
    await until(80);
    stream.activity();
    await until(300);
    expect(failedAfter).toBeGreaterThanOrEqual(80 + 120 - 5);
  });

  it("never fails a stream that was stopped, nor any after close()", async () => {
    const watch = stallWatch(50);
    let failed = 0;
    watch.watch(() => failed++).stop();
    await until(120);
    expect(failed).toBe(0);
    watch.watch(() => failed++);
    watch.close();
    await until(120);
    expect(failed).toBe(0);
  });

  it("watches a stream added after the timer lapsed with nothing to watch", async () => {
    const watch = stallWatch(50);
    watch.watch(() => {}).stop();
    await until(100); // the timer fires with nothing watched and lapses
    let failed = false;
    watch.watch(() => (failed = true));
    await until(150);
    expect(failed).toBe(true);
  });
});
