/**
 * The replica's in-flight ceiling (`maxRequests`) with its bounded queue (`maxQueue`): a request
 * past both is refused at once (503 with `Retry-After`), so the excess is turned away and never
 * piles up. A queued request whose caller leaves, or whose deadline fires, gives up its place.
 */

/** Seconds a refused caller is told to wait before trying again. */
export const RETRY_AFTER_SECONDS = 1;

export interface AdmissionCounts {
  running: number;
  queued: number;
}

export class Admission {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly maxRunning: number,
    private readonly maxQueued: number,
    private readonly changed: (counts: AdmissionCounts) => void = () => {},
  ) {}

  get counts(): AdmissionCounts {
    return { running: this.running, queued: this.waiting.length };
  }

  /**
   * A slot: resolves with its release (call it exactly once) when one is free; `undefined` at
   * once when the queue is full; rejects with the signal's reason if it aborts while queued.
   */
  acquire(signal: AbortSignal): Promise<(() => void) | undefined> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.running < this.maxRunning) {
      this.running++;
      this.changed(this.counts);
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.maxQueued) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal.removeEventListener("abort", onAbort);
        this.running++;
        resolve(this.releaser());
      };
      const onAbort = (): void => {
        const index = this.waiting.indexOf(grant);
        if (index >= 0) this.waiting.splice(index, 1);
        this.changed(this.counts);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(grant);
      this.changed(this.counts);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.waiting.shift()?.();
      this.changed(this.counts);
    };
  }
}
