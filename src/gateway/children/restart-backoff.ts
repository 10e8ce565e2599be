/**
 * How long the pool waits before it starts a child again after one died: exponential in the
 * failures since the last child that answered its probe, capped, with jitter so that replicas
 * restarting together do not spawn in lockstep.
 */

export interface BackoffOptions {
  /** The first wait, in ms. @default 100 */
  initialMs?: number;
  /** The longest wait, in ms: a crash loop retries at this pace, never faster and never stopping. @default 30_000 */
  maxMs?: number;
}

export const DEFAULT_BACKOFF = Object.freeze({ initialMs: 100, maxMs: 30_000 });

export class RestartBackoff {
  private failures = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;

  constructor(options: BackoffOptions = {}, private readonly random: () => number = Math.random) {
    this.initialMs = options.initialMs ?? DEFAULT_BACKOFF.initialMs;
    this.maxMs = Math.max(this.initialMs, options.maxMs ?? DEFAULT_BACKOFF.maxMs);
  }

  /** The wait before the next start, after one more failure: between half and all of the capped exponential ("equal jitter"). */
  next(): number {
    const ceiling = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.failures, 30));
    this.failures++;
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  /** A child answered its probe: the next failure starts from the first wait again. */
  reset(): void {
    this.failures = 0;
  }
}
