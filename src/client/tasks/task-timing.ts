/**
 * The clocks of a task: the bound on the whole wait (`timeoutMs`), the time between polls, and
 * the deadline of the best-effort `tasks/cancel`.
 */
import { McpTransportError } from "../../errors.js";
import { abortReason } from "../../util/abort.js";
import type { TaskState } from "./task-state.js";

/** Between polls when the server suggests no `pollInterval`, in ms. */
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1_000;
/** The shortest wait between polls, in ms, whatever the server suggests (a 0 would spin). */
export const MIN_TASK_POLL_INTERVAL_MS = 50;
/**
 * How long a `tasks/cancel` sent because the caller gave up (an abort, the deadline, a failure)
 * may hold up the caller's rejection, in ms. Past it, the caller hears its failure anyway.
 */
export const TASK_CANCEL_TIMEOUT_MS = 5_000;

/** How long to wait before the next poll: the server's suggestion within the floor, and never past the deadline. */
export function pollDelay(state: TaskState | undefined, remainingMs: number): number {
  const suggested = state?.pollIntervalMs;
  const interval = suggested !== undefined && Number.isFinite(suggested) ? Math.max(MIN_TASK_POLL_INTERVAL_MS, suggested) : DEFAULT_TASK_POLL_INTERVAL_MS;
  return Math.max(0, Math.min(interval, remainingMs));
}

/**
 * The bound on one wait for a task: the caller's signal and `timeoutMs`, as one signal that
 * every request of the wait carries. `failure()` turns whatever a request threw once the bound
 * was reached into the caller's abort reason or one TIMEOUT that names the whole wait.
 */
export class TaskDeadline {
  readonly signal: AbortSignal;
  private readonly endsAt: number;
  private readonly timer: NodeJS.Timeout;
  private readonly expiry = new AbortController();
  private expired = false;

  constructor(
    readonly timeoutMs: number,
    private readonly callerSignal: AbortSignal | undefined,
    /** The wait's name in messages (it may learn the task's id as it goes), and the server's. */
    private readonly label: () => string,
    private readonly where: string,
    /** When the bound started, on `performance.now()`'s clock (a call that became a task started before). */
    startedAt = performance.now(),
  ) {
    this.endsAt = startedAt + timeoutMs;
    this.timer = setTimeout(() => this.expire(), Math.max(0, this.endsAt - performance.now()));
    this.signal = callerSignal ? AbortSignal.any([callerSignal, this.expiry.signal]) : this.expiry.signal;
  }

  /** Time left, in ms (0 once reached). */
  remaining(): number {
    return this.expired ? 0 : Math.max(0, this.endsAt - performance.now());
  }

  /**
   * The time is up: the signal aborts with the TIMEOUT, and `remaining()` is 0 from now on.
   * Called by the deadline's own timer, and by any other timer sized to end with it (the wait
   * before the next poll): a timer may fire a fraction of a millisecond before
   * `performance.now()` reaches its end (the event loop's clock counts whole milliseconds), and
   * that fraction must not buy one more poll, whose answer would come after the deadline.
   */
  expire(): void {
    if (this.expired) return;
    this.expired = true;
    clearTimeout(this.timer);
    this.expiry.abort(this.timeoutError());
  }

  /** Whether the wait is over: the caller aborted, or the time is up (even if the timer has not fired yet). */
  get over(): boolean {
    return this.callerSignal?.aborted === true || this.remaining() === 0;
  }

  /** The error the caller hears for `error`, thrown while waiting. */
  failure(error: unknown): unknown {
    if (this.callerSignal?.aborted) return abortReason(this.callerSignal);
    if (this.remaining() === 0) return this.timeoutError();
    return error;
  }

  /** Throws the caller's abort reason or the TIMEOUT when the wait is over. */
  check(): void {
    if (this.over) throw this.failure(undefined);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }

  private timeoutError(): McpTransportError {
    return new McpTransportError("TIMEOUT", `${this.label()} timed out after ${this.timeoutMs} ms (${this.where})`, {
      timeoutMs: this.timeoutMs,
      method: "tools/call",
    });
  }
}
