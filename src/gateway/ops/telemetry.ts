/**
 * What the gateway tells its operators, in one interface: the counters behind `/metrics`
 * (Prometheus text) and the JSON log lines on stderr. The front and the children report events
 * here; ops/ decides how they are counted and written. A log line never holds a body, a header
 * value or an environment value; a session id is hashed before it is written. The exception is a
 * line of a child's stderr: the server's own words, as it wrote them, which only the server
 * controls (`childStderr: "drop"` keeps them out).
 */

/** The era of a request, as the front told it. */
export type RequestEra = "modern" | "legacy";

/** How a request through the gateway ended. */
export type RequestOutcome = "ok" | "error" | "timeout" | "cancelled" | "rejected";

/** Why a request was turned away before reaching a child; each has its own HTTP status and counter. */
export type RejectionCause =
  | "host" // 403: Host not allowed (a DNS-rebinding request among them)
  | "origin" // 403
  | "unauthorized" // 401
  | "body_too_large" // 413
  | "queue_full" // 503 + Retry-After
  | "listen_streams_full" // 503 + Retry-After: `maxListenStreams` are open
  | "sessions_full" // 503
  | "principal_sessions_full" // 429
  | "unknown_session" // 404
  | "draining" // 503
  | "not_ready" // 503: no child could be started
  | "bad_request"; // 400 (not JSON-RPC, header mismatch...)

/** Why a child exited. */
export type ChildExitCause = "crash" | "recycled" | "session_ended" | "idle" | "shutdown" | "killed";

export interface RequestReport {
  requestId: string;
  era: RequestEra;
  method: string;
  outcome: RequestOutcome;
  status: number;
  durationMs: number;
  /** The session id as the caller sent it; hashed before it is written anywhere. */
  sessionId?: string;
  principal?: string;
  childPid?: number;
  /**
   * Set when the caller's connection closed before the answer and the request ran on (a legacy
   * session): `resumed`, the answer went out on a stream the caller resumed; `gone`, no
   * connection was there for it (it stays kept for a resumption, if its stream had ids).
   */
  caller?: "resumed" | "gone";
}

/** A line a child wrote on its stderr: the server's own words, as it wrote them. */
export interface ChildStderrReport {
  pid: number;
  /** The era of the callers the child serves. */
  era: RequestEra;
  /** A legacy session's child: the session id as the caller sent it; hashed before it is written. */
  sessionId?: string;
  /** The line without its line ending, at most MAX_CHILD_STDERR_LINE characters (log-lines.ts). */
  text: string;
  /** The line was longer, and `text` is its beginning. */
  truncated: boolean;
}

/** Lines of a child's stderr past its budget, counted since the previous such report. */
export interface ChildStderrDroppedReport {
  pid: number;
  era: RequestEra;
  sessionId?: string;
  dropped: number;
}

export interface GatewayTelemetry {
  requestDone(report: RequestReport): void;
  rejected(cause: RejectionCause, status: number, requestId: string): void;
  /** In-flight requests through the replica, and those queued. */
  inFlight(running: number, queued: number): void;
  sessions(count: number): void;
  /** `subscriptions/listen` streams open now. */
  listenStreams(count: number): void;
  children(running: number): void;
  childSpawned(pid: number): void;
  childExited(pid: number, cause: ChildExitCause, exitCode: number | null, signal: string | null): void;
  /**
   * A line of a child's stderr (`childStderr: "log"`). Optional, as the next one: a telemetry
   * that writes no log need not take them.
   */
  childStderr?(report: ChildStderrReport): void;
  /** Lines of a child's stderr that were not logged, past its budget. */
  childStderrDropped?(report: ChildStderrDroppedReport): void;
  /** A notable event without a request: a crash loop, the drain starting, a failed probe. */
  note(event: string, fields?: Readonly<Record<string, string | number | boolean>>): void;
}
