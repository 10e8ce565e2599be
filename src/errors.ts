/**
 * The one error type of mcpwire.
 *
 * Every failure that reaches a caller is an `McpTransportError` with a `reason` from a closed,
 * documented set, so that callers branch on the case and never parse a message. The message is
 * always ours: whatever text a server put in a JSON-RPC error or an HTTP body is kept on
 * `serverMessage` / `serverData`, never in `message`, so a log line cannot be steered by a server.
 */

/** Why an operation failed. A closed set: new cases are added only in a major version. */
export type McpFailureReason =
  /** The child exited, the stream or socket closed, or the connection was closed mid-call. */
  | "DISCONNECTED"
  /** A deadline fired: the whole call (`timeoutMs`) or a read that stalled (`readTimeoutMs`). */
  | "TIMEOUT"
  /** The answer was not protocol (bad JSON, bad shape, wrong content type) or was a JSON-RPC error. */
  | "PROTOCOL"
  /** A message ran past `maxMessageBytes`. */
  | "LIMIT"
  /** The endpoint could not be reached, answered 5xx, or the process would not start. */
  | "UNAVAILABLE";

export const FAILURE_REASONS: readonly McpFailureReason[] = [
  "DISCONNECTED",
  "TIMEOUT",
  "PROTOCOL",
  "LIMIT",
  "UNAVAILABLE",
];

/**
 * Which case of its reason a failure is, for callers to branch on (never on `message`). Stable:
 * a value is never renamed; new values may be added. Absent where a reason has one plain case.
 */
export type McpFailureKind =
  /** PROTOCOL: the server answered with a JSON-RPC error (its code in `code`), in a body or an HTTP error answer. */
  | "server_error"
  /** PROTOCOL: HTTP 404 on a request that carried a session the server no longer knows. */
  | "session_expired"
  /** PROTOCOL: the method does not exist in the protocol revision in use; nothing was sent. */
  | "method_unavailable"
  /** PROTOCOL: a list did not end within `maxPages` pages, or repeated a cursor. */
  | "page_limit"
  /** PROTOCOL: an HTTP answer of a content type that is not MCP's (an intercepting proxy's page, say). */
  | "content_type"
  /** DISCONNECTED: a reply stream broke before its answer, and the revision in use does not resume streams. */
  | "stream_broken"
  /**
   * PROTOCOL: a tool that declares an `outputSchema` returned no `structuredContent`, or content
   * that does not conform (the message names the tool and the first failing path), or its schema
   * cannot be checked (an unknown dialect, a `$ref` outside the schema: those are never fetched).
   */
  | "output_schema"
  /**
   * PROTOCOL: the server answered -32042, URL elicitation required, and the request could not be
   * sent again: no handler answers URL elicitations, the user declined or cancelled one, one could
   * not be shown (not https, say), or the server asked again after the retry (it is retried once).
   * The elicitations the server listed are in `serverData`.
   */
  | "url_elicitation_required"
  /**
   * PROTOCOL: a tool call asked to run as a task where none is offered (the server declares no
   * `tasks.requests.tools.call`, or no tasks extension in revision 2026-07-28; the tool's
   * `execution.taskSupport` is `forbidden` or absent, or the tool is not listed), or a task
   * operation the server does not offer (`tasks/list` or `tasks/cancel` without its capability;
   * `tasks/list` in the extension). Nothing was sent.
   */
  | "task_unsupported"
  /** PROTOCOL: the task a call waited for ended `cancelled` (by the server, or by a `cancel()`). */
  | "task_cancelled"
  /**
   * UNAVAILABLE: the proxy could not be reached, or refused the connection (a CONNECT answered
   * 403, 407 or 5xx; a 407 to a plain http request). The message names the proxy by its origin,
   * never its credentials; its status, if it answered, is in `httpStatus`.
   */
  | "proxy_unavailable"
  /**
   * UNAVAILABLE: the TLS handshake with the server failed: its certificate is not trusted (give
   * its CA with `ca`), has expired or names another host, or the server wants a client
   * certificate (`cert` and `key`) or refused the one given. The message says which.
   */
  | "tls_handshake";

export const FAILURE_KINDS: readonly McpFailureKind[] = [
  "server_error",
  "session_expired",
  "method_unavailable",
  "page_limit",
  "content_type",
  "stream_broken",
  "output_schema",
  "url_elicitation_required",
  "task_unsupported",
  "task_cancelled",
  "proxy_unavailable",
  "tls_handshake",
];

/** The step of an OAuth flow that failed (see the README's OAuth section). */
export type McpAuthStep = "discovery" | "registration" | "authorization" | "token" | "refresh";

export const AUTH_STEPS: readonly McpAuthStep[] = ["discovery", "registration", "authorization", "token", "refresh"];

/** Only a failure that may go away by itself is worth trying again. */
const RETRYABLE: ReadonlySet<McpFailureReason> = new Set(["UNAVAILABLE", "TIMEOUT"]);

export interface McpTransportErrorDetails {
  /** Which case of its reason this failure is (see `McpFailureKind`). */
  kind?: McpFailureKind;
  /** The JSON-RPC error code, when the server answered with a JSON-RPC error. */
  code?: number;
  /** The HTTP status, when an HTTP answer caused the failure. */
  httpStatus?: number;
  /** Response headers worth keeping (e.g. `www-authenticate` on 401/403). */
  httpHeaders?: Record<string, string>;
  /** The child's exit code, for a stdio server that exited. */
  exitCode?: number | null;
  /** The signal that ended the child, for a stdio server that was killed. */
  signal?: string | null;
  /** The last lines the child wrote on stderr, bounded in count and bytes. */
  stderrTail?: string;
  /** The deadline that fired, in milliseconds, for TIMEOUT. */
  timeoutMs?: number;
  /** The limit that was crossed, in bytes, for LIMIT. */
  limitBytes?: number;
  /** The JSON-RPC method of the request that failed, when the failure belongs to one request. */
  method?: string;
  /**
   * HTTP: the server no longer knows the session this request carried (404 on a request with
   * `Mcp-Session-Id`). The client re-initializes once and retries the request once.
   */
  sessionExpired?: boolean;
  /**
   * HTTP, revision 2026-07-28: the request's response stream broke before its answer. Streams are
   * not resumable in that revision, so the client re-issues the request once with a new id.
   */
  streamBroken?: boolean;
  /** OAuth: the step of the flow that failed. */
  authStep?: McpAuthStep;
  /**
   * OAuth: the `error` code an authorization server answered with (`invalid_grant`,
   * `access_denied`...), as it sent it. Its `error_description` is never kept.
   */
  oauthError?: string;
  /** The server's own error text, verbatim. Never copied into `message`. */
  serverMessage?: string;
  /** The `data` member of the server's JSON-RPC error, verbatim. */
  serverData?: unknown;
  /** The lower-level error that caused this one. */
  cause?: unknown;
}

export class McpTransportError extends Error {
  override readonly name = "McpTransportError";
  readonly reason: McpFailureReason;
  /** True for UNAVAILABLE and TIMEOUT only: the same call may succeed later. */
  readonly retryable: boolean;
  // Optional details are declared, not initialised, so an error carries only the ones it has.
  declare readonly kind?: McpFailureKind;
  declare readonly code?: number;
  declare readonly httpStatus?: number;
  declare readonly httpHeaders?: Record<string, string>;
  declare readonly exitCode?: number | null;
  declare readonly signal?: string | null;
  declare readonly stderrTail?: string;
  declare readonly timeoutMs?: number;
  declare readonly limitBytes?: number;
  declare readonly method?: string;
  declare readonly sessionExpired?: boolean;
  declare readonly streamBroken?: boolean;
  declare readonly authStep?: McpAuthStep;
  declare readonly oauthError?: string;
  declare readonly serverMessage?: string;
  declare readonly serverData?: unknown;

  constructor(reason: McpFailureReason, message: string, details: McpTransportErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.reason = reason;
    this.retryable = RETRYABLE.has(reason);
    // Only the fields that exist are set, so a logged error shows what is known and nothing else.
    const { cause: _cause, ...fields } = details;
    for (const [key, value] of Object.entries(fields)) {
      if (value !== undefined) (this as Record<string, unknown>)[key] = value;
    }
  }

  /**
   * The same failure seen from a wider context: a transport's failure becoming the failure of
   * one request, or a connection's ending gaining the child's exit code. The reason never changes.
   */
  with(details: McpTransportErrorDetails, message: string = this.message): McpTransportError {
    return widened(this, details, message);
  }

  /** The data fields of this error, for copying into another. */
  details(): McpTransportErrorDetails {
    return {
      kind: this.kind,
      code: this.code,
      httpStatus: this.httpStatus,
      httpHeaders: this.httpHeaders,
      exitCode: this.exitCode,
      signal: this.signal,
      stderrTail: this.stderrTail,
      timeoutMs: this.timeoutMs,
      limitBytes: this.limitBytes,
      method: this.method,
      sessionExpired: this.sessionExpired,
      streamBroken: this.streamBroken,
      authStep: this.authStep,
      oauthError: this.oauthError,
      serverMessage: this.serverMessage,
      serverData: this.serverData,
    };
  }
}

/**
 * `McpTransportError.with`, outside the class: a class that names itself inside its body is
 * renamed in the build (scripts/build.mjs), and test/build/dist.test.ts checks every exported name.
 */
function widened(error: McpTransportError, details: McpTransportErrorDetails, message: string): McpTransportError {
  return new McpTransportError(error.reason, message, {
    ...error.details(),
    ...details,
    cause: details.cause ?? error.cause,
  });
}

export function isMcpTransportError(value: unknown): value is McpTransportError {
  return value instanceof McpTransportError;
}

/**
 * Any thrown value as an `McpTransportError` of the given reason; an `McpTransportError` passes
 * through unchanged, anything else becomes the `cause` of a new one with our message.
 */
export function asMcpTransportError(
  value: unknown,
  reason: McpFailureReason,
  message: string,
): McpTransportError {
  if (value instanceof McpTransportError) return value;
  return new McpTransportError(reason, message, { cause: value });
}
