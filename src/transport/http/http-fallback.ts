/**
 * Streamable HTTP, falling back to the legacy HTTP+SSE transport for servers that only speak it:
 * the detection algorithm of basic/transports, "Backwards Compatibility" (revision 2025-11-25).
 *
 * Each connection (each `open()`) starts on Streamable HTTP. When its `initialize` POST is
 * refused with 400, 404 or 405 and the body is not a recognized modern JSON-RPC error (a modern
 * server saying why it refused: a code it reserves, or 404 with -32601 for a method it does not
 * implement, such as `initialize` on a server that speaks only 2026-07-28; see
 * `isModernRefusal`), the server is taken for a legacy one: the Streamable HTTP
 * connection is closed, a GET at the same URL opens the legacy SSE stream, and `initialize` is
 * sent there; everything after goes over SSE. Should that URL offer no stream (404, 405, or a
 * page that is not an event stream), the conventional legacy path `<url>/sse` is tried once, so
 * that a server whose SSE endpoint sits under its base URL is reached from that base URL too.
 *
 * Never taken: on 401/403 (credentials are missing, not the transport), on a 5xx (the server is
 * failing), when the endpoint cannot be reached, or after anything was accepted over Streamable
 * HTTP. The failure then stands as it is.
 *
 * `kind` is "streamable-http" (the wire tried first, whose status semantics the client's era probe
 * relies on); the connection's `kind` says "sse" once it fell back.
 */
import { McpTransportError } from "../../errors.js";
import type { JsonRpcMessage, RequestId } from "../../protocol/jsonrpc.js";
import { Method } from "../../protocol/methods.js";
import { isModernRefusal } from "../../protocol/modern.js";
import { isSuccessStatus } from "./endpoint-policy.js";
import type { Limits } from "../limits.js";
import { SSE_KIND } from "./sse-connection.js";
import { SseTransport } from "./sse.js";
import { forServer } from "./auth-provider.js";
import { StreamableHttpTransport, type StreamableHttpOptions } from "./streamable-http.js";
import type { ConnectionEnding, ConnectionEvents, McpConnection, McpTransport, OpenOptions, SendContext, WireRules } from "../transport.js";

/** The statuses on `initialize` that mean "not a Streamable HTTP endpoint" (basic/transports). */
export const FALLBACK_STATUSES: readonly number[] = [400, 404, 405];

const MODERN_KIND = "streamable-http";

export class HttpTransport implements McpTransport {
  readonly kind = MODERN_KIND;
  readonly description: string;
  readonly url: URL;
  private readonly modern: StreamableHttpTransport;
  private readonly legacy: readonly SseTransport[];

  constructor(url: string | URL, options: StreamableHttpOptions = {}) {
    this.modern = new StreamableHttpTransport(url, options);
    this.url = this.modern.url;
    this.description = this.modern.description;
    const auth = options.auth === undefined ? undefined : forServer(options.auth, this.url);
    const { headers, fetch, redirect, proxy, ca, cert, key, passphrase } = options;
    const sseOptions = { headers, fetch, redirect, auth, proxy, ca, cert, key, passphrase };
    this.legacy = legacyUrls(this.url).map((candidate) => new SseTransport(candidate, sseOptions));
  }

  async open(events: ConnectionEvents, options: OpenOptions): Promise<McpConnection> {
    const connection = new FallbackConnection(this.legacy, events, options.limits);
    await connection.start(this.modern, options.signal);
    return connection;
  }
}

/** Where a legacy server's SSE stream may be: the URL itself, then `<url>/sse` unless it already ends so. */
function legacyUrls(url: URL): URL[] {
  if (/\/sse\/?$/.test(url.pathname)) return [url];
  const conventional = new URL(url);
  conventional.pathname = `${url.pathname.replace(/\/$/, "")}/sse`;
  return [url, conventional];
}

/** A refused `initialize` that says "legacy server": 400/404/405 without a modern error. */
export function fallbackWanted(error: unknown): error is McpTransportError {
  return (
    error instanceof McpTransportError &&
    error.httpStatus !== undefined &&
    FALLBACK_STATUSES.includes(error.httpStatus) &&
    !isModernRefusal(error.code, error.httpStatus)
  );
}

/** A failed GET that says "no SSE stream at this URL" (as opposed to a server that has one and failed). */
function noStreamThere(error: unknown): boolean {
  if (!(error instanceof McpTransportError) || error.httpStatus === undefined) return false;
  const status = error.httpStatus;
  return FALLBACK_STATUSES.includes(status) || isSuccessStatus(status);
}

type State = "open" | "closing" | "ended";

class FallbackConnection implements McpConnection {
  private state: State = "open";
  private current!: McpConnection;
  private wire: string = MODERN_KIND;
  /** Set once anything was accepted, or the fallback was made: the wire is settled for good. */
  private decided = false;
  /** The switch to SSE while it happens; sends wait for it. */
  private switching: Promise<void> | undefined;
  private switchingId: RequestId | undefined;
  private readonly stopSwitch = new AbortController();
  /** Set when the Streamable HTTP connection is given up: its events are no longer ours. */
  private modernRetired = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly legacy: readonly SseTransport[],
    private readonly events: ConnectionEvents,
    private readonly limits: Limits,
  ) {}

  async start(modern: StreamableHttpTransport, signal: AbortSignal | undefined): Promise<void> {
    this.current = await modern.open(this.eventsOf(() => !this.modernRetired), { limits: this.limits, signal });
  }

  /** The wire in use: "streamable-http", or "sse" after the fallback. */
  get kind(): string {
    return this.wire;
  }

  get sessionId(): string | undefined {
    return this.current.sessionId;
  }

  setProtocolVersion(revision: string, rules?: WireRules): void {
    this.current.setProtocolVersion?.(revision, rules);
  }

  get closesRequestStreams(): boolean {
    return this.current.closesRequestStreams === true;
  }

  send(message: JsonRpcMessage, context?: SendContext): Promise<void> {
    // Once the wire is settled, a send goes straight through: no async layer on every call.
    if (this.decided && !this.switching) {
      if (this.state !== "open") return Promise.reject(new McpTransportError("DISCONNECTED", `the connection is closed`));
      return this.current.send(message, context);
    }
    return this.sendWhileUndecided(message, context);
  }

  /** A send before the wire is settled: `initialize` refused in a way that asks for the fallback switches to SSE. */
  private async sendWhileUndecided(message: JsonRpcMessage, context?: SendContext): Promise<void> {
    if (this.switching) await this.switching.catch(() => {});
    if (this.state !== "open") throw new McpTransportError("DISCONNECTED", `the connection is closed`);
    const isInitialize = "method" in message && "id" in message && message.method === Method.initialize;
    try {
      await this.current.send(message, context);
      this.decided = true;
    } catch (error) {
      if (this.decided || !isInitialize || !fallbackWanted(error) || this.state !== "open") throw error;
      this.decided = true;
      this.switchingId = message.id;
      this.switching = this.fallBack(message, context, error);
      try {
        await this.switching;
      } finally {
        this.switching = undefined;
        this.switchingId = undefined;
      }
    }
  }

  abandon(id: RequestId): void {
    // The session gave up on `initialize` while the legacy stream was being opened: stop that.
    if (this.switching && id === this.switchingId) this.stopSwitch.abort();
    this.current.abandon(id);
  }

  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  // --- The fallback

  private async fallBack(message: JsonRpcMessage, context: SendContext | undefined, refused: McpTransportError): Promise<void> {
    // Its `closed` event is not ours to report: the connection goes on over SSE.
    this.modernRetired = true;
    await this.current.close();
    let connection: McpConnection;
    try {
      connection = await this.openLegacy(refused);
    } catch (error) {
      const failure = this.stopSwitch.signal.aborted || this.state !== "open"
        ? new McpTransportError("DISCONNECTED", `the connection was closed while it switched to the legacy HTTP+SSE transport`, { cause: error })
        : (error as McpTransportError);
      this.finish({ error: failure });
      throw failure;
    }
    this.current = connection;
    this.wire = SSE_KIND;
    await connection.send(message, context);
  }

  /** Opens the legacy stream at the first URL that has one. */
  private async openLegacy(refused: McpTransportError): Promise<McpConnection> {
    const events = this.eventsOf(() => this.modernRetired);
    let last: unknown;
    for (const transport of this.legacy) {
      try {
        return await transport.open(events, { limits: this.limits, signal: this.stopSwitch.signal });
      } catch (error) {
        if (!noStreamThere(error) || this.stopSwitch.signal.aborted) throw error;
        last = error;
      }
    }
    // The refusal of initialize keeps its status and whatever JSON-RPC error came with it.
    throw refused.with(
      { cause: last },
      `the endpoint refused initialize with HTTP ${refused.httpStatus} (not Streamable HTTP), and no legacy HTTP+SSE ` +
        `stream answered at ${this.legacy.map((transport) => transport.url.pathname).join(" or ")} either: check the URL`,
    );
  }

  /** Events of an inner connection, passed on only while it is the one in use. */
  private eventsOf(inUse: () => boolean): ConnectionEvents {
    return {
      message: (message) => {
        if (inUse() && this.state !== "ended") this.events.message(message);
      },
      requestFailed: (id, error) => {
        if (inUse() && this.state !== "ended") this.events.requestFailed(id, error);
      },
      closed: (ending) => {
        if (inUse()) this.finish(ending);
      },
      // A login may run before the connection is known to be in use: always passed on.
      waitingForUser: (waiting) => this.events.waitingForUser?.(waiting),
    };
  }

  // --- Ending

  private finish(ending: ConnectionEnding): void {
    if (this.state === "ended") return;
    const closedByUs = this.state === "closing";
    this.state = "ended";
    this.events.closed(closedByUs ? {} : ending);
  }

  private async closeOnce(): Promise<void> {
    if (this.state === "open") this.state = "closing";
    this.stopSwitch.abort();
    await this.switching?.catch(() => {});
    await this.current.close();
    this.finish({});
  }
}
