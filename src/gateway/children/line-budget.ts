/**
 * A token bucket of lines: `burst` lines at once, refilled at `perSecond` lines a second. A child
 * that writes its stack trace or its start-up banner has it logged whole; one that floods its
 * stderr gets `perSecond` lines a second into the log, and the rest is counted, not kept.
 */
import { monotonicNow } from "../../collections/deadlines.js";

export class LineBudget {
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly burst: number,
    private readonly perSecond: number,
    /** Milliseconds on a monotonic clock. */
    private readonly now: () => number = monotonicNow,
  ) {
    this.tokens = burst;
    this.refilledAt = now();
  }

  /** Takes one line's token: true when the line may be logged. */
  take(): boolean {
    const now = this.now();
    // Never more than the burst: a child quiet for an hour may not then flood for a minute.
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.perSecond);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
