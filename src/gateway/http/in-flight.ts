/**
 * The requests being forwarded now, for the drain: it waits until none is left (`whenIdle`), and
 * past its grace answers those still running with an error (`failAll`), so a caller always gets
 * an answer and never a cut connection.
 */
import type { McpTransportError } from "../../errors.js";

export class InFlightRequests {
  private readonly running = new Set<(error: McpTransportError) => void>();
  private idleWaiters: Array<() => void> = [];

  /** Registers a request; returns what removes it once it is answered. */
  add(fail: (error: McpTransportError) => void): () => void {
    this.running.add(fail);
    return () => {
      this.running.delete(fail);
      if (this.running.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    };
  }

  get size(): number {
    return this.running.size;
  }

  whenIdle(): Promise<void> {
    return this.running.size === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Answers every running request with `error`; returns how many there were. */
  failAll(error: McpTransportError): number {
    const all = [...this.running];
    for (const fail of all) fail(error);
    return all.length;
  }
}
