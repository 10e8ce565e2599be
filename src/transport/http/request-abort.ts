/**
 * The abort switch of one HTTP request, cheaper than an AbortController.
 *
 * On Node 20 an AbortController with its signal costs about 6 µs to make, and an abort listener
 * added and removed about as much again (both are EventTargets, with all their bookkeeping). An
 * HTTP request needs one switch and a listener or two, so that was 10 to 15 µs of every call:
 * the largest cost of mcpwire's own in the profile of a Streamable HTTP call. This switch has
 * only what the HTTP transports use (`aborted`, `reason`, abort listeners) and is its own
 * signal. A real `AbortSignal` has the same shape (`AbortSignalLike`), so code that takes one
 * takes either; a user's `fetch`, which needs a real one, gets one made for it.
 */
import { abortError, type AbortSignalLike } from "../../util/abort.js";

export type { AbortSignalLike };

let nextSerial = 1;

export class RequestAbort implements AbortSignalLike {
  /** Its key in a table of the switches in use (an `IdTable`, unlike a `Set`, keys by id); unique in the process. */
  readonly serial = nextSerial++;
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | undefined;

  /** The switch is its own signal (the name matches AbortController's). */
  get signal(): AbortSignalLike {
    return this;
  }

  /** Aborts once: later calls do nothing. Without a reason, the reason is an AbortError, as with AbortController. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? abortError();
    const listeners = this.listeners;
    this.listeners = undefined;
    for (const listener of listeners ?? []) {
      try {
        listener();
      } catch (error) {
        // As an EventTarget does: a listener's failure is reported, and the others still run.
        process.nextTick(() => {
          throw error;
        });
      }
    }
  }

  /** Each listener runs once, on abort; one added after the abort never runs (as with an AbortSignal). */
  addEventListener(_type: "abort", listener: () => void): void {
    if (this.aborted) return;
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    const index = this.listeners?.indexOf(listener) ?? -1;
    if (index >= 0) this.listeners!.splice(index, 1);
  }
}

/** A real AbortSignal that follows `signal`, for APIs that need one (a user's `fetch`). */
export function toAbortSignal(signal: AbortSignalLike): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", () => controller.abort(signal.reason));
  return controller.signal;
}
