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
    // Activity every 30 ms until the silent stream fails (at most 200 turns, 6 s). A late sleep
    // cannot fail the busy one: its timer is due before the stall's, so the activity comes first.
    for (let i = 0; i < 200 && failures.length === 0; i++) {
      await until(30);
      busy.activity();
    }
    expect(failures).toHaveLength(1);
    expect(failures[0]!.reason).toBe("TIMEOUT");
    expect(failures[0]!.timeoutMs).toBe(300);
    expect(failures[0]!.message).toContain("the endpoint sent nothing for 300 ms");
    expect(busyFailed).toBe(false);
    await expect.poll(() => busyFailed, { timeout: 5_000 }).toBe(true); // silent since the loop ended
    // The silent stream, no longer watched, did not fail again in the 300 ms since.
    expect(failures).toHaveLength(1);
  });

  it("counts the silence from the last activity, not from the start", async () => {
    const watch = stallWatch(120);
    const started = Date.now();
    let failedAfter = 0;
    const stream = watch.watch(() => (failedAfter = Date.now() - started));
    // A late sleep only moves the activity later: its timer is due before the stall's.
    await until(80);
    stream.activity();
    await expect.poll(() => failedAfter, { timeout: 5_000 }).toBeGreaterThan(0);
    expect(failedAfter).toBeGreaterThanOrEqual(80 + 120 - 5);
  });

  it("never fails a stream that was stopped, nor any after close()", async () => {
    const watch = stallWatch(50);
    let failed = 0;
    watch.watch(() => failed++).stop();
    // A stream watched after it and not stopped: once that one has stalled, the stopped one's time has passed.
    await new Promise<void>((resolve) => watch.watch(() => resolve()));
    expect(failed).toBe(0);
    watch.watch(() => failed++);
    watch.close();
    // The same again on a watch that was not closed, started after it with the same ceiling.
    await new Promise<void>((resolve) => stallWatch(50).watch(() => resolve()));
    expect(failed).toBe(0);
  });

  it("watches a stream added after the timer lapsed with nothing to watch", async () => {
    const watch = stallWatch(50);
    watch.watch(() => {}).stop();
    // The timer fires with nothing watched and lapses: the wait is the subject, and a late one
    // only leaves the timer lapsed for longer.
    await until(100);
    let failed = false;
    watch.watch(() => (failed = true));
    await expect.poll(() => failed, { timeout: 5_000 }).toBe(true);
  });
});
