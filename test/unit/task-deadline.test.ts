/**
 * The bound on a task's wait is reached when its time is up, even when a timer sized to it fires a
 * fraction of a millisecond before `performance.now()` gets there (the event loop's clock counts
 * whole milliseconds): from then on nothing may be sent for the wait, whose answer would come
 * after the deadline. The clock is replaced here so that the fraction is there every time.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { TaskDeadline } from "../../src/client/tasks/task-timing.js";
import { McpTransportError } from "../../src/errors.js";

let now = 0;

function deadlineOf(timeoutMs: number): TaskDeadline {
  vi.spyOn(performance, "now").mockImplementation(() => now);
  return new TaskDeadline(timeoutMs, undefined, () => 'tool "job"', "the test server");
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("TaskDeadline", () => {
  it("expire() ends the bound at once: nothing remains, the signal carries the TIMEOUT, and a second call changes nothing", () => {
    now = 1_000;
    const deadline = deadlineOf(100);
    now = 1_099.5;
    expect(deadline.remaining()).toBeGreaterThan(0);
    expect(deadline.over).toBe(false);
    deadline.expire();
    expect(deadline.remaining()).toBe(0);
    expect(deadline.over).toBe(true);
    expect(deadline.signal.aborted).toBe(true);
    const reason = deadline.signal.reason as McpTransportError;
    expect(reason).toBeInstanceOf(McpTransportError);
    expect(reason.reason).toBe("TIMEOUT");
    deadline.expire();
    expect(deadline.signal.reason).toBe(reason);
    expect(() => deadline.check()).toThrow('tool "job" timed out after 100 ms (the test server)');
    deadline.dispose();
  });

  it("its own timer reaches the bound though the clock is a fraction short of the end", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    now = 0;
    const deadline = deadlineOf(100);
    now = 99.6;
    vi.advanceTimersByTime(100);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.over).toBe(true);
    expect(deadline.remaining()).toBe(0);
  });
});
