/**
 * Jittered exponential backoff for the few bounded retries mcpwire makes (an unreachable
 * endpoint, a dropped stream). Jitter spreads the retries of many replicas that lost the same
 * server at the same moment, so they do not come back at it all at once.
 */

export interface BackoffSchedule {
  /** The wait before the second attempt, in ms, before jitter. */
  baseMs: number;
  /** The longest wait, in ms, before jitter. */
  maxMs: number;
}

/**
 * The wait before attempt `attempt + 1`, after `attempt` failed (1-based): the exponential step
 * `baseMs * 2^(attempt-1)`, capped at `maxMs`, then a uniformly random point in its upper half
 * ("equal jitter": never zero, never above the step).
 */
export function backoffDelay(attempt: number, schedule: BackoffSchedule, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  const step = Math.min(schedule.maxMs, schedule.baseMs * 2 ** exponent);
  return Math.round(step / 2 + random() * (step / 2));
}
