/** AbortSignal, the same way everywhere: check first, reject with `signal.reason`, clean up after. */

/** What is read of a signal: a real `AbortSignal`, or the HTTP transports' lighter `RequestAbort`. */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** The error an abort without a reason stands for, as AbortController makes it. */
export function abortError(): DOMException {
  return new DOMException("This operation was aborted", "AbortError");
}

/** The reason of an aborted signal, as thrown value. */
export function abortReason(signal: AbortSignalLike): unknown {
  return signal.reason ?? abortError();
}

/**
 * Races `promise` against `signal`. The listener is removed when either settles, so a long-lived
 * signal shared by many calls never accumulates listeners.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignalLike | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** A promise that resolves after `ms`, or rejects early when `signal` aborts. */
export function delay(ms: number, signal?: AbortSignalLike): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
