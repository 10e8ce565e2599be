import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { UserWaits, deadlineAfterLogins } from "../../src/util/user-waits.js";

// The clock under test is performance.now(); it follows the faked Date here.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  vi.spyOn(performance, "now").mockImplementation(() => Date.now());
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("a deadline that waits for logins", () => {
  it("fires after its length when nobody logs in", () => {
    const waits = new UserWaits();
    const expired = vi.fn();
    deadlineAfterLogins(1_000, (ms) => waits.postponement(ms), expired);
    vi.advanceTimersByTime(999);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledOnce();
  });

  it("stands while a login waits, then gives the work after it the whole length again", () => {
    const waits = new UserWaits();
    const expired = vi.fn();
    deadlineAfterLogins(1_000, (ms) => waits.postponement(ms), expired);
    vi.advanceTimersByTime(400);
    waits.change(true);
    vi.advanceTimersByTime(5_000);
    expect(expired).not.toHaveBeenCalled();
    waits.change(false);
    vi.advanceTimersByTime(999);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1_001);
    expect(expired).toHaveBeenCalledOnce();
  });

  it("counts nested logins: the clock runs again only when the last one ends", () => {
    const waits = new UserWaits();
    waits.change(true);
    waits.change(true);
    waits.change(false);
    expect(waits.waiting).toBe(true);
    expect(waits.postponement(1_000)).toBe(1_000);
    waits.change(false);
    expect(waits.waiting).toBe(false);
    expect(waits.postponement(1_000)).toBe(1_000);
    vi.advanceTimersByTime(1_000);
    expect(waits.postponement(1_000)).toBe(0);
  });

  it("is cleared for good", () => {
    const expired = vi.fn();
    deadlineAfterLogins(100, () => 0, expired).clear();
    vi.advanceTimersByTime(1_000);
    expect(expired).not.toHaveBeenCalled();
  });
});
