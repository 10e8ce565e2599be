/**
 * The options one request carries from the client down to the session, copied into a new object
 * of one fixed shape.
 *
 * Each request gets an object of its own at the client's edge (what a caller passes is theirs, and
 * objects shared across layers outlived young-generation collections more often: see
 * `McpClient.send`). Object spread made that copy on every call; with the caller's object shaped
 * differently from call to call it took V8's slow path, about 1.2 µs a spread in the profile of the
 * stdio bench with 64 calls in flight. Written key by key, every copy has the same hidden class.
 */
import type { RequestOptions } from "../session/session.js";

/**
 * What a request of the client carries: the session's options, a label, the caller's `_meta`
 * entries, and whether a -32042 may be answered by running its elicitations and sending the
 * request again (`urlElicitationRetry`, see url-elicitation.ts). False for a request that is
 * itself that repeat, made by a layer above (a tool task that ended with -32042): a -32042 is one
 * round of elicitations per original request, so the user is never asked a second time.
 */
export type SentOptions = RequestOptions & { label: string; meta?: Record<string, unknown>; urlElicitationRetry?: boolean };

/** Every key of `T`, none optional: a key added to `RequestOptions` and not copied below does not compile. */
type EveryKey<T> = { [K in keyof Required<T>]: T[K] | undefined };

/**
 * A copy of `options` with exactly the keys of `SentOptions`; `onDispatch` replaces the caller's when given.
 * `urlElicitationRetry` is copied only when set: only the repeat of a tool task's -32042 sets it,
 * so every other copy goes without the key and its store (all of them still share one shape).
 */
export function sentOptions(options: SentOptions, onDispatch: RequestOptions["onDispatch"] = options.onDispatch): SentOptions {
  const copy: EveryKey<Omit<SentOptions, "urlElicitationRetry">> & Pick<SentOptions, "urlElicitationRetry"> = {
    label: options.label,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    onProgress: options.onProgress,
    resetTimeoutOnProgress: options.resetTimeoutOnProgress,
    maxTotalTimeoutMs: options.maxTotalTimeoutMs,
    headers: options.headers,
    longLived: options.longLived,
    onDispatch,
    onLateResult: options.onLateResult,
    meta: options.meta,
  };
  if (options.urlElicitationRetry !== undefined) copy.urlElicitationRetry = options.urlElicitationRetry;
  return copy as SentOptions;
}
