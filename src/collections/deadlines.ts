/**
 * Many deadlines kept by a single timer: the one clock of mcpwire. The session keeps its
 * requests' end-to-end deadlines here, and the read-stall watch of the transports its streams'
 * silences (transport/common/stream-stall-watch.ts).
 *
 * A timer per request costs, on every call, a timer object, a timer-list insert and removal and
 * two event-loop ref toggles, for a deadline that almost never fires. Here the deadlines sit in
 * a min-heap ordered by when they are due, and one timer is armed for the earliest. A request
 * answered in time only leaves the heap; a new deadline re-arms the timer only when it is due
 * before the timer fires; when the timer fires it settles what is due and re-arms itself for
 * what is left.
 *
 * While a deadline is in the heap the timer is ref'd: a waiting request keeps the process alive,
 * as a per-request timer did (unless made with `keepsProcessAlive: false`, for watches that only
 * ever stand beside a deadline of the session). Once the heap is empty the timer is unref'd and left to lapse on
 * its own (it then finds nothing due and is not re-armed): keeping it costs nothing and spares
 * the next request a new timer. `stop()` clears it for good.
 */
import { performance } from "node:perf_hooks";

/** What the heap needs of an entry: when it is due, and where it sits (-1 when not in the heap). */
export interface Deadline {
  dueAt: number;
  heapIndex: number;
}

/** Milliseconds on a monotonic clock: a wall-clock change neither fires nor delays a deadline. */
export function monotonicNow(): number {
  return performance.now();
}

export class Deadlines<T extends Deadline> {
  private readonly heap: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires, on the monotonic clock; Infinity when none is armed. */
  private firesAt = Infinity;
  private timerRefd = false;
  /** Pauses in force (see `pause()`), and when the first began. */
  private paused = 0;
  private pausedAt = 0;

  private readonly keepsProcessAlive: boolean;

  /** @param onDue called once for each entry whose time came; the entry has left the heap. */
  constructor(
    private readonly onDue: (entry: T) => void,
    options: { keepsProcessAlive?: boolean } = {},
  ) {
    this.keepsProcessAlive = options.keepsProcessAlive ?? true;
  }

  /** Entries waiting. */
  get size(): number {
    return this.heap.length;
  }

  /** Adds an entry due at `dueAt` (monotonic ms), or moves it there if it is already waiting. */
  set(entry: T, dueAt: number): void {
    const previous = entry.dueAt;
    entry.dueAt = dueAt;
    if (entry.heapIndex < 0) {
      entry.heapIndex = this.heap.length;
      this.heap.push(entry);
      this.siftUp(entry.heapIndex);
    } else if (dueAt < previous) {
      this.siftUp(entry.heapIndex);
    } else {
      this.siftDown(entry.heapIndex);
    }
    this.arm();
  }

  /** Removes an entry; nothing happens if it is not waiting. */
  delete(entry: T): void {
    const index = entry.heapIndex;
    if (index < 0) return;
    entry.heapIndex = -1;
    const last = this.heap.pop()!;
    if (last !== entry) {
      this.heap[index] = last;
      last.heapIndex = index;
      this.siftDown(index);
      this.siftUp(last.heapIndex);
    }
    if (this.heap.length === 0 && this.timer && this.timerRefd) {
      this.timer.unref();
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
    // The same shift for every entry keeps the heap's order as it is.
    for (const entry of this.heap) entry.dueAt += elapsed;
    this.arm();
    return elapsed;
  }

  /** Forgets every entry and clears the timer. */
  stop(): void {
    for (const entry of this.heap) entry.heapIndex = -1;
    this.heap.length = 0;
    this.paused = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.firesAt = Infinity;
    this.timerRefd = false;
  }

  /** Makes sure the timer fires no later than the earliest deadline, and is ref'd while any waits. */
  private arm(): void {
    const first = this.heap[0];
    if (!first || this.paused > 0) return;
    if (this.timer && this.firesAt <= first.dueAt) {
      if (!this.timerRefd && this.keepsProcessAlive) {
        this.timer.ref();
        this.timerRefd = true;
      }
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    const now = monotonicNow();
    // Node's timers count whole ms and may fire a little early by our clock: fire() checks again.
    const delay = Math.max(1, Math.ceil(first.dueAt - now));
    this.firesAt = now + delay;
    this.timer = setTimeout(this.fire, delay);
    if (this.keepsProcessAlive) this.timerRefd = true;
    else this.timer.unref();
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.firesAt = Infinity;
    this.timerRefd = false;
    const now = monotonicNow();
    try {
      // Each entry leaves the heap before its callback runs, which may add or remove others.
      let first = this.heap[0];
      while (first && first.dueAt <= now) {
        this.delete(first);
        this.onDue(first);
        first = this.heap[0];
      }
    } finally {
      // A callback that throws must not leave the remaining deadlines without a timer.
      this.arm();
    }
  };

  private siftUp(index: number): void {
    const heap = this.heap;
    const entry = heap[index]!;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex]!;
      if (parent.dueAt <= entry.dueAt) break;
      heap[index] = parent;
      parent.heapIndex = index;
      index = parentIndex;
    }
    heap[index] = entry;
    entry.heapIndex = index;
  }

  private siftDown(index: number): void {
    const heap = this.heap;
    const length = heap.length;
    const entry = heap[index]!;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= length) break;
      if (child + 1 < length && heap[child + 1]!.dueAt < heap[child]!.dueAt) child++;
      const smaller = heap[child]!;
      if (smaller.dueAt >= entry.dueAt) break;
      heap[index] = smaller;
      smaller.heapIndex = index;
      index = child;
    }
    heap[index] = entry;
    entry.heapIndex = index;
  }
}
