/**
 * The in-flight ceiling: at most `max` requests outstanding at once; the others wait in order.
 *
 * A waiter can leave the line (its deadline fired, its signal aborted) without disturbing
 * the others, and `rejectAll` empties the line when the connection ends. A waiter that gets its
 * slot is handed to the one `grant` function given at construction, not to a function of its
 * own: a request needs no closure for a wait that is rare.
 */
export interface SlotWaiter {
  reject(error: unknown): void;
}

export class InFlightSlots<T extends SlotWaiter = SlotWaiter> {
  private used = 0;
  /** Waiters in order from `head`; a slot before `head` is emptied once its waiter is granted. */
  private readonly line: (T | undefined)[] = [];
  private head = 0;

  constructor(
    private readonly max: number,
    /** Called with a waiter from the line when a slot is freed for it. */
    private readonly grant: (waiter: T) => void,
  ) {}

  get inFlight(): number {
    return this.used;
  }

  get waiting(): number {
    return this.line.length - this.head;
  }

  /** Takes a slot at once when one is free (returns true); otherwise queues the waiter. */
  acquire(waiter: T): boolean {
    if (this.used < this.max && this.waiting === 0) {
      this.used++;
      return true;
    }
    this.line.push(waiter);
    return false;
  }

  /** Takes a waiter out of the line; returns false when it was already granted or gone. */
  leave(waiter: T): boolean {
    const index = this.line.indexOf(waiter, this.head);
    if (index < 0) return false;
    this.line.splice(index, 1);
    return true;
  }

  /** Frees a slot and hands it to the first in line. */
  release(): void {
    this.used--;
    while (this.used < this.max && this.waiting > 0) {
      const next = this.line[this.head]!;
      // Not kept once granted: the line would otherwise hold up to 1 024 finished requests
      // (their messages too) until it is trimmed.
      this.line[this.head] = undefined;
      this.head++;
      this.used++;
      this.grant(next);
    }
    // Keep the array from growing without bound under steady load.
    if (this.head > 1024 && this.head * 2 > this.line.length) {
      this.line.splice(0, this.head);
      this.head = 0;
    }
  }

  rejectAll(error: (waiter: T) => unknown): void {
    const waiters = this.line.splice(this.head);
    this.line.length = 0;
    this.head = 0;
    for (const waiter of waiters) if (waiter) waiter.reject(error(waiter));
  }
}
