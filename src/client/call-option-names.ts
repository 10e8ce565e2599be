/**
 * The options each of the client's calls reads, checked where a call comes in (`callTool`,
 * `listTools`, `request`...): a key nobody reads is refused with a TypeError that names it, the
 * nearest name for a typo and the names taken, rather than dropped. `{ timeout: 5000 }` for
 * `timeoutMs`, say, would otherwise give the call the default deadline without a word.
 *
 * Each list is written as an object with every key of its options type, so that an option added
 * to a type and not here does not compile.
 */
import { didYouMean } from "../util/option-names.js";
import { describeValue } from "../util/whole-number.js";
import type { CallOptions, NotifyOptions, PageOptions, RawRequestOptions, TaskPageOptions, ToolCallOptions } from "./client.js";
import type { TaskCallOptions, TaskWaitOptions } from "./tasks/tool-task.js";
import type { StartToolTaskOptions } from "./tasks/tool-tasks.js";

/** Every key of `T`, none optional. */
type EveryName<T> = { readonly [K in keyof Required<T>]: true };

function names<T>(every: EveryName<T>): ReadonlySet<string> {
  return new Set(Object.keys(every));
}

const CALL: EveryName<CallOptions> = {
  timeoutMs: true,
  signal: true,
  onProgress: true,
  resetTimeoutOnProgress: true,
  maxTotalTimeoutMs: true,
  headers: true,
  longLived: true,
  onDispatch: true,
  meta: true,
};

export const CALL_OPTIONS = names<CallOptions>(CALL);
export const PAGE_OPTIONS = names<PageOptions>({ ...CALL, cursor: true });
export const TASK_PAGE_OPTIONS = names<TaskPageOptions>({ ...CALL, cursor: true });
export const TOOL_CALL_OPTIONS = names<ToolCallOptions>({ ...CALL, validateOutput: true, task: true, onTaskStatus: true });
export const START_TOOL_TASK_OPTIONS = names<StartToolTaskOptions>({ ...CALL, ttlMs: true });
export const RAW_REQUEST_OPTIONS = names<RawRequestOptions>({ ...CALL, schema: true });
export const COMPLETE_OPTIONS = names<CallOptions & { context?: unknown }>({ ...CALL, context: true });
export const NOTIFY_OPTIONS = names<NotifyOptions>({ meta: true });
export const LISTEN_OPTIONS: ReadonlySet<string> = new Set(["timeoutMs"]);
export const TASK_HANDLE_OPTIONS: ReadonlySet<string> = new Set(["tool"]);
/** A task handle's `status()` and `cancel()`, and its `result()`. */
export const TASK_CALL_OPTIONS = names<TaskCallOptions>({ timeoutMs: true, signal: true });
export const TASK_WAIT_OPTIONS = names<TaskWaitOptions>({ timeoutMs: true, signal: true, validateOutput: true, onStatus: true, onProgress: true });

/**
 * Throws a TypeError, naming the call (`label`) and the option, when `listener` is given and is not
 * a function: a listener is called only later (at the task's next state), where a wrong one would
 * be skipped without a word.
 */
export function checkListenerOption(listener: unknown, name: string, label: string): void {
  if (listener !== undefined && typeof listener !== "function") {
    throw new TypeError(`${label}: "${name}" must be a function, got ${describeValue(listener)}`);
  }
}

/**
 * Throws a TypeError, naming the call (`label`), when `options` is not an object, has a key that
 * is not in `allowed`, or gives a `signal` that is not an AbortSignal or an `onProgress` that is
 * not a function.
 */
export function checkCallOptions(options: unknown, allowed: ReadonlySet<string>, label: string): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(`${label}: the options must be an object (the options are ${[...allowed].join(", ")})`);
  }
  for (const key in options) {
    if (!allowed.has(key)) {
      throw new TypeError(`${label}: unknown option "${key}"${didYouMean(key, allowed)}; the options are ${[...allowed].join(", ")}`);
    }
  }
  // Both are used only later, once the request is out: a signal without listeners threw from the
  // response's handler (uncaught, ending the process) and a number for onProgress at the first
  // progress notification. Refused here, before anything is sent.
  const { signal, onProgress, cursor } = options as { signal?: unknown; onProgress?: unknown; cursor?: unknown };
  checkSignalOption(signal, label);
  if (onProgress !== undefined && typeof onProgress !== "function") {
    throw new TypeError(`${label}: "onProgress" must be a function of the progress, got ${describeValue(onProgress)}`);
  }
  // A cursor is the server's opaque string (basic/utilities/pagination), given back as it came.
  if (cursor !== undefined && typeof cursor !== "string") {
    throw new TypeError(`${label}: "cursor" must be a string, the nextCursor of the page before, got ${describeValue(cursor)}`);
  }
}

/** Throws a TypeError, naming the call (`label`), when `signal` is given and is not an AbortSignal. */
export function checkSignalOption(signal: unknown, label: string): void {
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw new TypeError(`${label}: "signal" must be an AbortSignal (AbortController's signal, AbortSignal.timeout()), got ${describeValue(signal)}`);
  }
}

/** What the session needs of a signal: `aborted`, `reason` and its listeners (our own AbortSignalLike passes too). */
function isAbortSignal(value: unknown): boolean {
  const signal = value as { aborted?: unknown; addEventListener?: unknown; removeEventListener?: unknown } | null;
  return (
    typeof signal === "object" &&
    signal !== null &&
    typeof signal.aborted === "boolean" &&
    typeof signal.addEventListener === "function" &&
    typeof signal.removeEventListener === "function"
  );
}
