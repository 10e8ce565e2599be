/**
 * The logins waiting for a person on one connection (see `ConnectionEvents.waitingForUser`), and
 * when the last of them ended. A deadline that comes due while a person is at it, or sooner than
 * its own length after they finished, starts again: a person's pace never counts against it, and
 * the work after the login gets the whole deadline, however long the login took.
 */
import { monotonicNow } from "../collections/deadlines.js";

export class UserWaits {
  private waits = 0;
  private lastEndedAt = Number.NEGATIVE_INFINITY;

  /** Counts a login that starts (`true`) or ends (`false`) waiting. */
  change(waiting: boolean): void {
    this.waits = Math.max(0, this.waits + (waiting ? 1 : -1));
    if (!waiting && this.waits === 0) this.lastEndedAt = monotonicNow();
  }

  get waiting(): boolean {
    return this.waits > 0;
  }

  /** For a deadline of `ms` that is due now: how much longer it waits, 0 when it fires now. */
  postponement(ms: number): number {
    if (this.waits > 0) return ms;
    return Math.max(0, Math.ceil(this.lastEndedAt + ms - monotonicNow()));
  }
}

/**
 * `onExpire` after `ms`, postponed for as long as `postponement` says (a login waiting for a
 * person, one or several `UserWaits`).
 */
export function deadlineAfterLogins(ms: number, postponement: (ms: number) => number, onExpire: () => void): { clear(): void } {
  let timer: NodeJS.Timeout;
  const due = () => {
    const later = postponement(ms);
    if (later > 0) timer = setTimeout(due, later);
    else onExpire();
  };
  timer = setTimeout(due, ms);
  return { clear: () => clearTimeout(timer) };
}
