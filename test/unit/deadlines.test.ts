import { afterEach, describe, expect, it } from "vitest";
import { Deadlines, monotonicNow, type Deadline } from "../../src/collections/deadlines.js";

interface Entry extends Deadline {
  name: string;
}

function entry(name: string): Entry {
  return { name, dueAt: 0, clockIndex: -1 };
}

/** Ref'd timers only: an unref'd one does not keep the process alive and is not listed. */
function refdTimers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
}

const running: Deadlines<Entry>[] = [];
afterEach(() => {
  for (const deadlines of running.splice(0)) deadlines.stop();
});

function watch(onDue: (entry: Entry) => void): Deadlines<Entry> {
  const deadlines = new Deadlines<Entry>(onDue);
  running.push(deadlines);
  return deadlines;
}

describe("Deadlines: one timer for every request's deadline", () => {
  it("fires each entry once, when it is due, earliest first, whatever the order they were added in", async () => {
    const fired: string[] = [];
    const firedEarly: string[] = [];
    const deadlines = watch((e) => {
      fired.push(e.name);
      if (monotonicNow() < e.dueAt) firedEarly.push(e.name);
    });
    const now = monotonicNow();
    deadlines.set(entry("late"), now + 60);
    deadlines.set(entry("early"), now + 20);
    deadlines.set(entry("middle"), now + 40);
    await expect.poll(() => fired, { timeout: 5_000 }).toEqual(["early", "middle", "late"]);
    // Not before it is due, by the clock each entry is due on (a late run only fires them later).
    expect(firedEarly).toEqual([]);
    expect(deadlines.size).toBe(0);
  });

  it("never fires an entry that was deleted, and keeps the others", async () => {
    const fired: string[] = [];
    const deadlines = watch((e) => fired.push(e.name));
    const now = monotonicNow();
    const gone = entry("gone");
    deadlines.set(gone, now + 20);
    deadlines.set(entry("kept"), now + 30);
    deadlines.delete(gone);
    deadlines.delete(gone);
    expect(gone.clockIndex).toBe(-1);
    // "gone" was due first: had it fired, it would stand before "kept".
    await expect.poll(() => fired, { timeout: 5_000 }).toEqual(["kept"]);
  });

  it("moves an entry later or sooner (progress restarting its count)", async () => {
    const fired: string[] = [];
    const deadlines = watch((e) => fired.push(e.name));
    const now = monotonicNow();
    const moved = entry("moved");
    deadlines.set(moved, now + 30);
    deadlines.set(entry("other"), now + 60);
    // Later, far past anything this test waits for: it cannot come due while the test looks.
    deadlines.set(moved, now + 60_000);
    // Had it kept its first time, "moved" would have fired before "other".
    await expect.poll(() => fired, { timeout: 5_000 }).toEqual(["other"]);
    // Sooner: it fires within the poll's 5 s only if the clock's timer was brought forward for it.
    deadlines.set(moved, monotonicNow() + 10);
    await expect.poll(() => fired, { timeout: 5_000 }).toEqual(["other", "moved"]);
  });

  it("keeps the process alive while an entry waits, and not once none does", async () => {
    const before = refdTimers();
    const deadlines = watch(() => {});
    const waiting = entry("waiting");
    deadlines.set(waiting, monotonicNow() + 60_000);
    expect(refdTimers()).toBe(before + 1);
    deadlines.delete(waiting);
    expect(refdTimers()).toBe(before);
    // The next entry reuses the timer, which holds the process again.
    deadlines.set(waiting, monotonicNow() + 60_000);
    expect(refdTimers()).toBe(before + 1);
    deadlines.stop();
    expect(refdTimers()).toBe(before);
    expect(waiting.clockIndex).toBe(-1);
  });

  it("knows where each entry sits under many adds and deletes, and fires the rest earliest first", async () => {
    const fired: number[] = [];
    const deadlines = watch((e) => fired.push(Number(e.name)));
    const entries = Array.from({ length: 200 }, (_, i) => entry(String(i)));
    const now = monotonicNow();
    const dueOf = (i: number) => now + 20 + ((i * 7919) % 200) / 10;
    entries.forEach((e, i) => deadlines.set(e, dueOf(i)));
    // Removed from the front, the middle and the end of the list alike.
    const removed = entries.filter((_, i) => i % 3 === 0);
    for (const e of removed) deadlines.delete(e);
    const list = (deadlines as unknown as { entries: Entry[] }).entries;
    list.forEach((e, i) => expect(e.clockIndex).toBe(i));
    expect(removed.every((e) => e.clockIndex === -1)).toBe(true);
    expect(deadlines.size).toBe(200 - 67);
    const kept = entries.map((_, i) => i).filter((i) => i % 3 !== 0);
    const inDueOrder = [...kept].sort((a, b) => dueOf(a) - dueOf(b));
    await expect.poll(() => fired.length, { timeout: 5_000 }).toBe(kept.length);
    // Entries due in the same firing come out earliest first; later firings come later still.
    expect(fired).toEqual(inDueOrder);
  });

  it("fires an entry due sooner than the armed timer, after the entry the timer was armed for left", async () => {
    const fired: string[] = [];
    const deadlines = watch((e) => fired.push(e.name));
    const now = monotonicNow();
    const first = entry("first");
    deadlines.set(first, now + 60_000);
    deadlines.set(entry("alone"), now + 30);
    // The entry the timer was armed for leaves: the timer still fires, and re-arms for the rest.
    deadlines.delete(first);
    await expect.poll(() => fired, { timeout: 5_000 }).toEqual(["alone"]);
    expect(deadlines.size).toBe(0);
  });
});

describe("Deadlines: paused while a person is at a login", () => {
  it("fires nothing while paused, and moves every deadline later by the time spent paused", async () => {
    const fired: string[] = [];
    const paused = watch((e) => fired.push(e.name));
    // A clock that is not paused, with the same deadline: when it fires, the paused one would have.
    let controlFired!: () => void;
    const control = watch(() => controlFired());
    const controlDone = new Promise<void>((resolve) => (controlFired = resolve));
    const now = monotonicNow();
    const late = entry("late");
    paused.set(entry("early"), now + 20);
    paused.set(late, now + 40);
    paused.pause();
    // An entry added while paused waits too.
    paused.set(entry("added"), now + 30);
    control.set(entry("control"), now + 60);
    await controlDone;
    expect(fired).toEqual([]);
    const dueBefore = late.dueAt;
    const elapsed = paused.resume();
    expect(elapsed).toBeGreaterThanOrEqual(monotonicNow() - now - 60);
    expect(late.dueAt).toBeCloseTo(dueBefore + elapsed, 6);
    await expect.poll(() => fired, { timeout: 5_000 }).toEqual(["early", "added", "late"]);
  });

  it("nests: the clock runs again at the last resume only", () => {
    const deadlines = watch(() => {});
    deadlines.set(entry("a"), monotonicNow() + 10_000);
    deadlines.pause();
    deadlines.pause();
    expect(deadlines.resume()).toBe(0);
    expect(deadlines.resume()).toBeGreaterThanOrEqual(0);
    expect(deadlines.resume()).toBe(0);
  });
});
