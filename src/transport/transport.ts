/**
 * The seam: everything above it is written against the protocol, everything below it is a wire.
 *
 * A transport only opens connections. A connection carries whole JSON-RPC messages in both
 * directions (the server sends requests and notifications too, not only replies), keeps the byte
 * ceiling and the read-stall ceiling at the wire, and reports how it ended exactly once.
 *
 * The contract, which the contract suite (`transportContract` in `mcpwire/testing`) checks on
 * every transport of this package, and on yours:
 * - `open` resolves with a connection ready to send, or rejects with an `McpTransportError`
 *   (UNAVAILABLE when the peer cannot be reached or started); an aborted `signal` rejects with
 *   `signal.reason` and leaves nothing running. It may be called again for a new connection
 *   (the client reconnects that way), each connection independent of the others.
 * - `events.message` is called once per message received, in order, never after `events.closed`.
 *   Text off the wire becomes a message as `parseMessage` reads it, failing with PROTOCOL; where
 *   `setProtocolVersion`'s rules say `acceptsBatches`, a JSON-RPC batch is the messages it holds,
 *   each delivered in order. Every wire here reads its texts through one `IncomingBatches`
 *   (`common/incoming-batches.ts`), which keeps that rule.
 * - `events.requestFailed` reports a failure that touches one request only (an HTTP status on its
 *   POST, a stalled read while it waited, a script with no answer); the connection stays usable.
 * - `events.closed` is called exactly once, when the connection ends for any reason: without an
 *   error after `close()`, with an `McpTransportError` otherwise (DISCONNECTED when the peer went
 *   away). A failure is never swallowed. (`common/ending.ts` `closedOnce` keeps the "once" for
 *   every connection of this package, and the session keeps it for any transport.)
 * - `maxMessageBytes` (in `open`'s `limits`): a message to send that is larger fails its `send`
 *   with LIMIT before anything is written (`checkOutgoingSize`); a message received that is
 *   larger fails with LIMIT (`messageTooLarge`) as soon as the count passes the ceiling, without
 *   holding the rest: the connection ends with it on a wire that is one stream of messages, only
 *   that request's exchange fails on a wire with a stream per request.
 * - `readTimeoutMs` (in `limits`): while a request waits for its answer, a silence of the peer
 *   longer than that fails the request with TIMEOUT and `timeoutMs` through
 *   `events.requestFailed` (`ReadStallWatch` does it: tell it what is sent, received and
 *   abandoned). The other two ceilings, `maxInFlight` and `timeoutMs`, are the session's.
 * - `send` resolves once the message is handed to the wire (respecting backpressure) and rejects
 *   with an `McpTransportError` when it cannot be: LIMIT past `maxMessageBytes`, DISCONNECTED on a
 *   closed connection. It never waits forever.
 * - `abandon(id)` tells the connection that the session stopped waiting for request `id`
 *   (timeout, abort): HTTP aborts that request's stream, others stop counting it as outstanding.
 * - `send`'s optional `context` carries what the layers above say of one message: its headers,
 *   whether it is long-lived, whether closing its stream cancels it, whether a broken reply stream
 *   may be resumed. A transport reads what applies to its wire; none knows the protocol's eras.
 * - `close()` is idempotent, may be called at any time (even during `send`), and resolves only
 *   when everything the connection started is released (child exited, sockets closed).
 *
 * Stability: these interfaces are public, and a transport written outside mcpwire keeps working
 * across minor versions. Within a major version they only gain optional members: new fields of
 * what mcpwire hands a transport (`OpenOptions`, `SendContext`, `WireRules`, optional
 * `ConnectionEvents` methods such as `waitingForUser`), which a transport may ignore, and new
 * optional members a transport may implement. Nothing a transport must do is added, and nothing
 * here is removed or changes meaning, before a major version.
 */
import type { McpTransportError } from "../errors.js";
import type { JsonRpcMessage, RequestId } from "../protocol/jsonrpc.js";
import type { Limits } from "./limits.js";

/** How a connection ended. */
export interface ConnectionEnding {
  /** Absent when the connection was closed by us with `close()`. */
  error?: McpTransportError;
  /** For a child process: its exit code, once it exited. */
  exitCode?: number | null;
  /** For a child process: the signal that ended it. */
  signal?: string | null;
}

/** What a connection tells the session; the session gives these to `open`. */
export interface ConnectionEvents {
  /** One message received, whole and parsed, in order; never after `closed`. */
  message(message: JsonRpcMessage): void;
  /** A failure of request `id` alone (its read stalled, its exchange failed); the connection stays open. */
  requestFailed(id: RequestId, error: McpTransportError): void;
  /** The connection ended: exactly once, without an error after `close()`, with one otherwise. */
  closed(ending: ConnectionEnding): void;
  /**
   * The connection waits for the user (a login in the browser) before it can send: the session's
   * deadlines stand still from `true` until the matching `false`, so a person's pace does not
   * count against `timeoutMs`. Optional for the session wrapping the events.
   */
  waitingForUser?(waiting: boolean): void;
}

export interface OpenOptions {
  /** The ceilings this connection keeps at the wire (`maxMessageBytes`, `readTimeoutMs`). */
  limits: Limits;
  /** Aborts the opening; a connection already open is closed by `close()`, not by this. */
  signal?: AbortSignal;
}

/** What the layers above tell a transport about one outgoing message, beyond the message itself. */
export interface SendContext {
  /**
   * Headers for this message only (HTTP and the WebSocket upgrade have headers; other wires
   * ignore them). The modern era mirrors body fields into `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`.
   */
  headers?: Record<string, string>;
  /**
   * A request that stays open by design (`subscriptions/listen`): it is not counted by the
   * read-stall ceiling, which is for requests that wait for an answer.
   */
  longLived?: boolean;
  /**
   * Closing this request's stream is its cancellation (revision 2026-07-28 over Streamable HTTP):
   * on a wire with a stream per request (`closesRequestStreams`), abandoning the request tells the
   * server, so no `notifications/cancelled` follows. Said by the era. @default false
   */
  closeCancels?: boolean;
  /**
   * A reply stream of this request that breaks may be resumed (GET with `Last-Event-ID`); when
   * false it fails with DISCONNECTED and `streamBroken`, for the layer above to re-issue the
   * request. Said by the era. @default true
   */
  resumable?: boolean;
  /**
   * Best-effort traffic (the `notifications/cancelled` sent when a caller gives up): it must hold
   * nothing up, so a wire with an auth provider sends it with the credentials at hand and drops
   * it when they are refused, rather than start or wait on an authorization for it. @default false
   */
  bestEffort?: boolean;
}

/** What the protocol layer settled that the wire must follow, beyond the revision it names. */
export interface WireRules {
  /** The server may answer with a JSON-RPC batch (revision 2025-03-26 only). @default false */
  acceptsBatches?: boolean;
}

/** One open connection, as `McpTransport.open` resolves it. */
export interface McpConnection {
  /**
   * Hands one message to the wire: resolves once it is written (backpressure respected); rejects
   * with LIMIT past `maxMessageBytes` before writing anything, DISCONNECTED once closed. Never hangs.
   */
  send(message: JsonRpcMessage, context?: SendContext): Promise<void>;
  /** The session stopped waiting for request `id`: its exchange is stopped, and it is no longer outstanding. */
  abandon(id: RequestId): void;
  /**
   * Each request has a stream of its own, closed by `abandon` (Streamable HTTP), so that a
   * request sent with `closeCancels` is cancelled by abandoning it.
   */
  readonly closesRequestStreams?: boolean;
  /**
   * Ends the connection (then `events.closed` without an error): idempotent, callable at any time,
   * resolved once everything the connection started is released.
   */
  close(): Promise<void>;
  /**
   * Headers and metadata the protocol layer told the transport to send (HTTP only: the
   * negotiated protocol revision). Transports without headers ignore it.
   */
  setProtocolVersion?(revision: string, rules?: WireRules): void;
  /** The server-assigned session, where the transport has one (Streamable HTTP). */
  readonly sessionId?: string | undefined;
  /**
   * The wire in use, when it differs from the transport's `kind` after a fallback ("sse" for a
   * Streamable HTTP transport that fell back to the legacy HTTP+SSE transport).
   */
  readonly kind?: string;
}

/**
 * A wire to one server: it opens connections (see this module's comment for the whole contract,
 * and `transportContract` in `mcpwire/testing` for the suite that checks it). Public and stable:
 * a transport written outside mcpwire keeps working across minor versions.
 */
export interface McpTransport {
  /** A short stable name of the kind of wire: "stdio", "streamable-http", "memory", ... */
  readonly kind: string;
  /** Says which server this reaches, for error messages: "stdio: uvx handbook-mcp". */
  readonly description: string;
  /** Opens a new connection: ready to send, or an `McpTransportError` (UNAVAILABLE when the peer cannot be reached). */
  open(events: ConnectionEvents, options: OpenOptions): Promise<McpConnection>;
  /**
   * The protocol era of the server behind this transport, when the transport knows it (a scripted
   * transport plays a server of one era). The client then skips its era probe.
   */
  readonly era?: "legacy" | "modern";
}

/** True for an object that implements the seam (as opposed to, say, an SDK server object). */
export function isMcpTransport(value: unknown): value is McpTransport {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as McpTransport).open === "function" &&
    typeof (value as McpTransport).kind === "string"
  );
}
