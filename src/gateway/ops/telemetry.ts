/**
 * What the gateway tells its operators, in one interface: the counters behind `/metrics`
 * (Prometheus text) and the JSON log lines on stderr. The front and the children report events
 * here; ops/ decides how they are counted and written. A log line never holds a body, a header
 * value or an environment value; a session id is hashed before it is written.
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

export interface GatewayTelemetry {
  requestDone(report: RequestReport): void;
  rejected(cause: RejectionCause, status: number, requestId: string): void;
  /** In-flight requests through the replica, and those queued. */
  inFlight(running: number, queued: number): void;
  sessions(count: number): void;
  children(running: number): void;
  childSpawned(pid: number): void;
  childExited(pid: number, cause: ChildExitCause, exitCode: number | null, signal: string | null): void;
  /** A notable event without a request: a crash loop, the drain starting, a failed probe. */
  note(event: string, fields?: Readonly<Record<string, string | number | boolean>>): void;
}
