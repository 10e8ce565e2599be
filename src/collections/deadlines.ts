/**
 * Many deadlines kept by a single timer: the one clock of mcpwire. The session keeps its
 * requests' end-to-end deadlines here, and Streamable HTTP's read-stall watch its reply streams'
 * silences (transport/common/stream-stall-watch.ts).
 *
 * A timer per request costs, on every call, a timer object, a timer-list insert and removal and
 * two event-loop ref toggles, for a deadline that almost never fires. Here the deadlines sit in
 * one list, and one timer is armed no later than the earliest. A request answered in time only
 * leaves the list; a new deadline re-arms the timer only when it is due before the timer fires;
 * when the timer fires it settles what is due, earliest first, and re-arms itself for what is
 * left.
 *
 * Why a list in no order rather than a heap: adding and removing a deadline are then the same few
 * steps whether one request waits or sixty-four do. A heap's sifting only runs once deadlines
 * overlap; the first time calls overlap, V8 then throws away the optimized code of the whole call
 * path that inlines it (the session's `request` and `settle`) and compiles it again, and in the
 * first thousands of calls in flight that compiling is a large part of what a call costs
 * (bench/RESULTS.md, "One path whether calls overlap or not"). What the list gives up, the
 * earliest deadline at a glance, is only needed when the timer fires: about once per `timeoutMs`
 * while requests come and go, with a walk over the deadlines waiting.
 *
 * While a deadline is in the list the timer is ref'd: a waiting request keeps the process alive,
 * as a per-request timer did (unless made with `keepsProcessAlive: false`, for watches that only
 * ever stand beside a deadline of the session). Once the list is empty the timer is unref'd and
 * left to lapse on its own (it then finds nothing due and is not re-armed): keeping it costs
 * nothing and spares the next request a new timer. `stop()` clears it for good.
 */
import { performance } from "node:perf_hooks";

/** What the clock needs of an entry: when it is due, and where it sits in the list (-1 when not waiting). */
export interface Deadline {
  dueAt: number;
  clockIndex: number;
}

/** Milliseconds on a monotonic clock: a wall-clock change neither fires nor delays a deadline. */
export function monotonicNow(): number {
  return performance.now();
}

export class Deadlines<T extends Deadline> {
  private readonly entries: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires, on the monotonic clock; Infinity when none is armed. */
  private firesAt = Infinity;
  private timerRefd = false;
  /** Pauses in force (see `pause()`), and when the first began. */
  private paused = 0;
  private pausedAt = 0;

  private readonly keepsProcessAlive: boolean;

  /** @param onDue called once for each entry whose time came; the entry has left the list. */
  constructor(
    private readonly onDue: (entry: T) => void,
    options: { keepsProcessAlive?: boolean } = {},
  ) {
    this.keepsProcessAlive = options.keepsProcessAlive ?? true;
  }

  /** Entries waiting. */
  get size(): number {
    return this.entries.length;
  }

  /** Adds an entry due at `dueAt` (monotonic ms), or moves it there if it is already waiting. */
  set(entry: T, dueAt: number): void {
    entry.dueAt = dueAt;
    if (entry.clockIndex < 0) {
      entry.clockIndex = this.entries.length;
      this.entries.push(entry);
    }
    this.arm(dueAt);
  }

  /** Removes an entry; nothing happens if it is not waiting. */
  delete(entry: T): void {
    const index = entry.clockIndex;
    if (index < 0) return;
    // The last entry takes the removed one's place. When the removed one is the last, it is
    // written over itself and then dropped: one path for every case (see the module comment).
    const entries = this.entries;
    const last = entries[entries.length - 1]!;
    entries[index] = last;
    last.clockIndex = index;
    entries.pop();
    entry.clockIndex = -1;
    if (entries.length === 0 && this.timerRefd) {
      this.timer!.unref();
      this.timerRefd = false;
    }
  }

  /**
   * Stops the clock: nothing is due until `resume()`, which moves every waiting entry later by
   * the time spent paused. Pauses nest; the clock runs again at the last resume.
   */
  pause(): void {
    if (this.paused++ > 0) return;
    this.pausedAt = monotonicNow();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.firesAt = Infinity;
    this.timerRefd = false;
  }

  /** @returns the ms spent paused, when this resume starts the clock again; else 0. */
  resume(): number {
    if (this.paused === 0 || --this.paused > 0) return 0;
    const elapsed = monotonicNow() - this.pausedAt;
    for (const entry of this.entries) entry.dueAt += elapsed;
    this.arm(this.earliest());
    return elapsed;
  }

  /** Forgets every entry and clears the timer. */
  stop(): void {
    for (const entry of this.entries) entry.clockIndex = -1;
    this.entries.length = 0;
    this.paused = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.firesAt = Infinity;
    this.timerRefd = false;
  }

  /**
   * Makes sure the timer fires no later than `dueAt` (an entry's, or the earliest of all), and is
   * ref'd while any entry waits.
   */
  private arm(dueAt: number): void {
    if (this.entries.length === 0 || this.paused > 0) return;
    if (this.timer && this.firesAt <= dueAt) {
      if (!this.timerRefd && this.keepsProcessAlive) {
        this.timer.ref();
        this.timerRefd = true;
      }
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    const now = monotonicNow();
    // Node's timers count whole ms and may fire a little early by our clock: fire() checks again.
    const delay = Math.max(1, Math.ceil(dueAt - now));
    this.firesAt = now + delay;
    this.timer = setTimeout(this.fire, delay);
    if (this.keepsProcessAlive) this.timerRefd = true;
    else this.timer.unref();
  }

  /** When the earliest entry is due; Infinity when none waits. */
  private earliest(): number {
    let earliest = Infinity;
    for (const entry of this.entries) if (entry.dueAt < earliest) earliest = entry.dueAt;
    return earliest;
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.firesAt = Infinity;
    this.timerRefd = false;
    const now = monotonicNow();
    try {
      // Each entry leaves the list before its callback runs, which may add or remove others:
      // the callbacks run after the walk, earliest first, each if it still waits and is still due.
      const due = this.entries.filter((entry) => entry.dueAt <= now).sort((a, b) => a.dueAt - b.dueAt);
      for (const entry of due) {
        if (entry.clockIndex < 0 || entry.dueAt > now) continue;
        this.delete(entry);
        this.onDue(entry);
      }
    } finally {
      // A callback that throws must not leave the remaining deadlines without a timer.
      this.arm(this.earliest());
    }
  };
}
