/**
 * Opening an event stream again (GET, with `Last-Event-ID` when the stream gave one), after the
 * server's `retry` or a jittered backoff, within a budget of reconnections that only a message
 * received refills. One loop for the reply stream of a request being resumed and for the GET
 * stream of server-initiated messages; each decides what an outcome means for it.
 */
import { McpTransportError } from "../../errors.js";
import { delay, type AbortSignalLike } from "../../util/abort.js";
import { backoffDelay, type BackoffSchedule } from "./backoff.js";
import { isUnreachable } from "./endpoint-policy.js";
import type { HttpResponse } from "./http-client.js";
import type { SseProgress } from "./sse-reader.js";

/**
 * Reconnections of one stream that bring no message before it is given up. A reconnection
 * itself does not refill this budget (so a server that accepts and drops at once cannot keep
 * the client looping); only a message received does.
 * @default 5
 */
export const MAX_STREAM_RECONNECTS = 5;

/** The wait before reconnecting a stream when the server gave no `retry`: about 0.5 s, doubling, at most about 10 s. */
export const STREAM_RECONNECT_BACKOFF: BackoffSchedule = { baseMs: 500, maxMs: 10_000 };

/** Reconnections spent since the stream last brought a message; the caller sets it to 0 on one. */
export interface ReconnectBudget {
  reconnects: number;
}

export type Reopened =
  /** The stream, to read. */
  | { kind: "stream"; response: HttpResponse }
  /** The server offers no stream here (405). */
  | { kind: "none" }
  /** MAX_STREAM_RECONNECTS reconnections brought no message. */
  | { kind: "exhausted" }
  /** The endpoint cannot be reached any more. */
  | { kind: "unreachable"; error: unknown }
  /** Any other failure (a 4xx, a 2xx that is not an event stream, a session the server forgot). */
  | { kind: "refused"; error: unknown };

/**
 * Opens the stream, first waiting (unless `now`) and spending one reconnection; a 5xx is tried
 * again within the budget. Rejects only when `signal` aborts.
 */
export async function reopenEventStream(
  openGet: (lastEventId: string | undefined) => Promise<HttpResponse | undefined>,
  budget: ReconnectBudget,
  progress: SseProgress,
  signal: AbortSignalLike,
  now = false,
): Promise<Reopened> {
  for (let wait = !now; ; wait = true) {
    if (wait) {
      if (budget.reconnects >= MAX_STREAM_RECONNECTS) return { kind: "exhausted" };
      budget.reconnects++;
      await delay(progress.retryMs ?? backoffDelay(budget.reconnects, STREAM_RECONNECT_BACKOFF), signal);
    }
    try {
      const response = await openGet(progress.lastEventId);
      return response ? { kind: "stream", response } : { kind: "none" };
    } catch (error) {
      if (signal.aborted) throw error;
      if (isUnreachable(error)) return { kind: "unreachable", error };
      if (error instanceof McpTransportError && error.reason === "UNAVAILABLE") continue; // 5xx: try again
      return { kind: "refused", error };
    }
  }
}
