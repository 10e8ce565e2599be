/** The pool's restart policy, as pure code: the backoff's bounds and what a crash loop is. */
import { describe, expect, it } from "vitest";
import { RestartBackoff } from "../../../src/gateway/children/restart-backoff.js";
import { CrashLoopWatch } from "../../../src/gateway/children/crash-loop.js";

describe("RestartBackoff", () => {
  it("doubles from the first wait up to the cap, each wait between half and all of its step", () => {
    const low = new RestartBackoff({ initialMs: 100, maxMs: 1_000 }, () => 0);
    const high = new RestartBackoff({ initialMs: 100, maxMs: 1_000 }, () => 1);
    expect(Array.from({ length: 6 }, () => low.next())).toEqual([50, 100, 200, 400, 500, 500]);
    expect(Array.from({ length: 6 }, () => high.next())).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it("starts again from the first wait after a reset", () => {
    const backoff = new RestartBackoff({ initialMs: 10, maxMs: 1_000 }, () => 1);
    backoff.next();
    backoff.next();
    backoff.reset();
    expect(backoff.next()).toBe(10);
  });
});

describe("CrashLoopWatch", () => {
  it("is a loop at the given number of exits within the window, and not once they fall out of it", () => {
    let now = 0;
    const watch = new CrashLoopWatch({ exits: 3, windowMs: 1_000 }, () => now);
    expect(watch.unprobedExit()).toBe(false);
    now = 400;
    expect(watch.unprobedExit()).toBe(false);
    now = 1_200; // the first exit is out of the window
    expect(watch.unprobedExit()).toBe(false);
    now = 1_300;
    expect(watch.unprobedExit()).toBe(true);
    watch.probed();
    expect(watch.looping).toBe(false);
  });
});
