/**
 * One connection of the legacy HTTP+SSE transport (MCP revision 2024-11-05, basic/transports).
 *
 * The GET stream is the connection. The server names, in an `endpoint` event, where the client
 * posts its messages; everything the server sends (replies, requests, notifications) comes back
 * as `message` events on the stream. When the stream ends or drops, the connection is over: the
 * server's state went with it, so nothing continues on a new endpoint. A new `open()` makes a new
 * stream, a new endpoint and a new session, which the client initializes again.
 *
 * Deadlines:
 * - the `endpoint` event, and the GET before it: the connection's `timeoutMs`; past it, TIMEOUT;
 * - each POST must be accepted within the connection's `timeoutMs` too (a legacy server answers
 *   202 at once and replies on the stream), so that a server that never answers a POST cannot
 *   hold a notification forever; the cancel notice of a request given up, within
 *   CANCEL_NOTICE_TIMEOUT_MS (http/cancel-notice.ts) when that is shorter, postponed by no login;
 * - replies: `readTimeoutMs` of silence on the stream while a request waits fails it (TIMEOUT).
 */
import { IdTable } from "../../collections/id-table.js";
import { McpTransportError } from "../../errors.js";
import { serializeMessage, type JsonRpcMessage, type RequestId } from "../../protocol/jsonrpc.js";
import { abortReason } from "../../util/abort.js";
import { UserWaits, deadlineAfterLogins } from "../../util/user-waits.js";
import { disconnected } from "./disconnected.js";
import { JSON_MEDIA_TYPE, SSE_MEDIA_TYPE, checkContentType, statusFailure } from "./endpoint-policy.js";
import type { HttpAccess } from "./auth-provider.js";
import { authorizedExchange } from "./authorized-exchange.js";
import type { HttpClient, HttpResponse } from "./http-client.js";
import { requestHeaders, whatOf, type ResolvedHttpOptions } from "./http-options.js";
import { RequestAbort } from "./request-abort.js";
import { cancelNoticeDeadline, cancelNoticeTimeoutMs } from "./cancel-notice.js";
import { ReadStallWatch } from "../common/read-stall.js";
import { isMessageEvent, readSse, type SseEvent } from "./sse-reader.js";
import { checkOutgoingSize, type Limits } from "../limits.js";
import type { ConnectionEvents, McpConnection, SendContext, WireRules } from "../transport.js";
import { closedOnce, type EventsClosedOnce } from "../common/ending.js";
import { IncomingBatches } from "../common/incoming-batches.js";

export const SSE_KIND = "sse";

const STREAM = "the SSE stream";

/**
 * The answers a Streamable HTTP endpoint gives a GET without a session (basic/transports,
 * 2025-03-26): 405, "the server does not offer an SSE stream at this endpoint", and 400, as
 * "Servers that require a session ID SHOULD respond to requests without an Mcp-Session-Id header
 * (other than initialization) with HTTP 400 Bad Request". A legacy SSE endpoint answers neither
 * (a 404 is a wrong path, a 401 wants credentials: said as they are).
 */
const STREAMABLE_GET_REFUSALS: readonly number[] = [400, 405];

/**
 * A refusal of the legacy GET that reads as "this is a Streamable HTTP endpoint" says so, with
 * what to declare instead. Ours only: the server's own text stays in `serverMessage`. The fields
 * (status, JSON-RPC error) are kept, so the fallback of HttpTransport still reads them.
 */
function withStreamableHint(failure: McpTransportError): McpTransportError {
  const status = failure.httpStatus;
  if (status === undefined || !STREAMABLE_GET_REFUSALS.includes(status)) return failure;
  return failure.with(
    {},
    `the endpoint answered HTTP ${status} to the legacy SSE GET (the request for ${STREAM}); if it is a Streamable HTTP endpoint, ` +
      `use type "http" (or leave the type out to let mcpwire choose; in code, HttpTransport)`,
  );
}
const ENDPOINT_EVENT = "endpoint";

type State = "opening" | "open" | "closing" | "ended";

export class SseConnection implements McpConnection {
  private readonly events: EventsClosedOnce;
  private state: State = "opening";
  /** Where messages are posted, from the server's `endpoint` event. */
  private endpoint: URL | undefined;
  /** Aborts the GET stream (and the opening). */
  private readonly stream = new AbortController();
  /** The POST of each request still being sent, so that abandoning it aborts it. */
  private readonly posts = new IdTable<RequestAbort>();
  private readonly controllers = new IdTable<RequestAbort>();
  private readonly stall: ReadStallWatch;
  /**
   * Whether a `message` event may hold a JSON-RPC batch: this wire is the fallback for 2024-11-05
   * servers, but the handshake over it settles any revision the server answers, 2025-03-26 too.
   */
  private readonly batches = new IncomingBatches();
  private reading: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  /** Settles the opening: the endpoint arrived, or the stream ended first. */
  private opened: { resolve(): void; reject(error: unknown): void } | undefined;
  /** What the auth provider, if any, is lent for its own requests. */
  private readonly access: HttpAccess;
  /** Logins waiting for a person (see `HttpAccess.waitingForUser`): the deadlines here wait too. */
  private readonly userWaits = new UserWaits();

  constructor(
    private readonly url: URL,
    private readonly options: ResolvedHttpOptions,
    events: ConnectionEvents,
    private readonly limits: Limits,
    private readonly client: HttpClient,
  ) {
    this.events = closedOnce(events);
    this.access = { server: url, client, maxBytes: limits.maxMessageBytes, readTimeoutMs: limits.readTimeoutMs, redirect: options.redirect,
      waitingForUser: (waiting) => {
        this.userWaits.change(waiting);
        this.events.waitingForUser?.(waiting);
      },
    };
    this.stall = new ReadStallWatch(limits.readTimeoutMs, STREAM, (id, error) => {
      if (this.state === "open") this.events.requestFailed(id, error);
    });
  }

  /** The URL messages are posted to (known once open). */
  get messageEndpoint(): URL | undefined {
    return this.endpoint;
  }

  /**
   * Opens the GET stream and waits for the `endpoint` event, within `timeoutMs` and `signal`.
   * On failure everything is released before it rejects; no `closed` event is sent.
   */
  async start(signal: AbortSignal | undefined): Promise<void> {
    let timedOut = false;
    const timer = this.deadline(() => {
      timedOut = true;
      this.stream.abort();
    });
    const onAbort = () => this.stream.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const ready = new Promise<void>((resolve, reject) => (this.opened = { resolve, reject }));
      // Observed below; the stream may end before the GET settles.
      ready.catch(() => {});
      const { response, base } = await this.openStream();
      this.reading = this.read(response, base);
      await ready;
    } catch (error) {
      await this.release();
      if (signal?.aborted) throw abortReason(signal);
      if (timedOut) {
        throw new McpTransportError(
          "TIMEOUT",
          `${STREAM} sent no endpoint event within ${this.limits.timeoutMs} ms (timeoutMs): it is not a legacy HTTP+SSE endpoint, or the server is stuck`,
          { timeoutMs: this.limits.timeoutMs, cause: error },
        );
      }
      throw error;
    } finally {
      timer.clear();
      signal?.removeEventListener("abort", onAbort);
      this.opened = undefined;
    }
  }

  async send(message: JsonRpcMessage, context?: SendContext): Promise<void> {
    const endpoint = this.endpoint;
    if (this.state !== "open" || !endpoint) throw new McpTransportError("DISCONNECTED", `the connection is closed`);
    const text = serializeMessage(message);
    checkOutgoingSize(text, this.limits.maxMessageBytes, SSE_KIND);
    const id = "method" in message && "id" in message ? message.id : undefined;
    const what = whatOf(message);
    const controller = new RequestAbort();
    this.controllers.set(controller.serial, controller);
    if (id !== undefined) {
      this.posts.get(id)?.abort();
      this.posts.set(id, controller);
      // Before the POST: the reply may come on the stream before the POST is answered.
      this.stall.sent(message, context?.longLived ?? false);
    }
    let timedOut = false;
    const onExpire = () => {
      timedOut = true;
      controller.abort();
    };
    // The cancel notice waits on no login, so no login postpones its own, shorter deadline.
    const bestEffort = context?.bestEffort === true;
    const limitMs = bestEffort ? Math.min(cancelNoticeTimeoutMs(), this.limits.timeoutMs) : this.limits.timeoutMs;
    const timer = bestEffort ? cancelNoticeDeadline(onExpire, limitMs) : this.deadline(onExpire);
    try {
      const { headers, userHeaders } = await requestHeaders(this.options.headers, { "content-type": JSON_MEDIA_TYPE }, context?.headers);
      const { response } = await authorizedExchange(
        this.options.auth,
        this.access,
        { method: "POST", url: endpoint, headers, body: text, signal: controller.signal },
        // The endpoint is on the origin that answered the stream, which a redirect (http to
        // https) may have changed: the user's headers and credentials go to the configured one only.
        { redirect: this.options.redirect, userHeaders, what, configuredOrigin: this.url.origin, bestEffort },
      );
      const failure = await statusFailure(response, { what });
      if (failure) throw failure;
      // Accepted (202, or any 2xx): the reply comes on the stream, whatever this body says.
      response.discard();
    } catch (error) {
      if (id !== undefined) this.stall.forget(id);
      if (timedOut) {
        throw new McpTransportError(
          "TIMEOUT",
          `the endpoint did not accept ${what} within ${limitMs} ms (${bestEffort ? "CANCEL_NOTICE_TIMEOUT_MS" : "timeoutMs"})`,
          { timeoutMs: limitMs, cause: error },
        );
      }
      if (controller.signal.aborted && this.state !== "open") throw new McpTransportError("DISCONNECTED", `the connection closed while ${what} was sent`);
      throw error;
    } finally {
      timer.clear();
      this.controllers.delete(controller.serial);
      if (id !== undefined && this.posts.get(id) === controller) this.posts.delete(id);
    }
  }

  /**
   * `timeoutMs` from now, `onExpire`; a login waiting for a person stops the count, and the work
   * after it gets the whole of `timeoutMs` again (the session's deadlines stand still).
   */
  private deadline(onExpire: () => void): { clear(): void } {
    return deadlineAfterLogins(this.limits.timeoutMs, (ms) => this.userWaits.postponement(ms), onExpire);
  }

  /** Stops sending the request if its POST is still on its way; the server has not been told. */
  abandon(id: RequestId): void {
    this.posts.get(id)?.abort();
    this.stall.forget(id);
  }

  setProtocolVersion(_revision: string, rules?: WireRules): void {
    this.batches.follow(rules);
  }

  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  // --- The stream

  private async openStream(): Promise<{ response: HttpResponse; base: URL }> {
    const { headers, userHeaders } = await requestHeaders(this.options.headers, { accept: SSE_MEDIA_TYPE });
    const { response, url } = await authorizedExchange(
      this.options.auth,
      this.access,
      { method: "GET", url: this.url, headers, signal: this.stream.signal },
      { redirect: this.options.redirect, userHeaders, what: STREAM },
    );
    const failure = await statusFailure(response, { what: `the request for ${STREAM}` });
    if (failure) throw withStreamableHint(failure);
    try {
      checkContentType(response, [SSE_MEDIA_TYPE], { what: `the request for ${STREAM}` });
    } catch (error) {
      response.discard();
      throw error;
    }
    // A relative endpoint is resolved against the URL that answered (after redirects).
    return { response, base: url };
  }

  private async read(response: HttpResponse, base: URL): Promise<void> {
    let ending: McpTransportError;
    try {
      await readSse(response, {
        maxEventBytes: this.limits.maxMessageBytes,
        transportName: SSE_KIND,
        onActivity: () => this.stall.activity(),
        onEvent: (event) => this.onEvent(event, base),
      });
      ending = disconnected(`the server ended ${STREAM}`);
    } catch (error) {
      ending = error instanceof McpTransportError ? error : disconnected(`${STREAM} was lost`, error);
    } finally {
      response.discard();
    }
    this.streamEnded(ending);
  }

  private onEvent(event: SseEvent, base: URL): void {
    if (event.event === ENDPOINT_EVENT) return this.onEndpoint(event.data, base);
    if (!isMessageEvent(event)) return; // other event types are not MCP's
    if (!this.endpoint) {
      throw new McpTransportError("PROTOCOL", `the server sent a message on ${STREAM} before its endpoint event`);
    }
    // Not JSON-RPC: the message is lost to everyone, so the connection fails closed.
    const read = this.batches.read(event.data);
    for (const message of Array.isArray(read) ? read : [read]) {
      this.stall.received(message);
      if (this.state === "open") this.events.message(message);
    }
  }

  private onEndpoint(data: string, base: URL): void {
    const target = resolveEndpoint(data, base);
    if (this.endpoint) {
      if (target.href === this.endpoint.href) return;
      // The server's state is tied to the endpoint it gave: a new one means a new session.
      throw new McpTransportError(
        "PROTOCOL",
        `the server named a second, different message endpoint on ${STREAM}; reconnect to start a new session`,
      );
    }
    this.endpoint = target;
    if (this.state === "opening") this.state = "open";
    this.opened?.resolve();
  }

  private streamEnded(error: McpTransportError): void {
    if (this.opened) {
      this.opened.reject(
        error.reason === "DISCONNECTED" && !this.endpoint
          ? disconnected(`${STREAM} ended before the server sent its endpoint event`, error)
          : error,
      );
    }
    this.endWith(error);
  }

  // --- Ending

  /** The connection ends on its own (the stream ended, or sent what cannot be read). */
  private endWith(error: McpTransportError): void {
    if (this.state !== "open") return;
    this.state = "ended";
    void this.release();
    this.events.closed({ error });
  }

  /** Aborts the stream and every POST, and releases the sockets. */
  private async release(): Promise<void> {
    if (this.state === "opening") this.state = "ended";
    this.stream.abort();
    for (const controller of this.controllers.valueList()) controller.abort();
    this.controllers.clear();
    this.posts.clear();
    this.stall.stop();
    await this.client.close();
    await this.reading;
  }

  private async closeOnce(): Promise<void> {
    const wasOpen = this.state === "open";
    if (wasOpen) this.state = "closing";
    await this.release();
    if (wasOpen) {
      this.state = "ended";
      this.events.closed({});
    }
  }
}

/**
 * The message endpoint of an `endpoint` event, resolved against the stream's URL. It must be on
 * the stream's origin: a server (or whoever wrote into its stream) cannot send the client's
 * messages, and the headers that go with them, anywhere else.
 */
export function resolveEndpoint(data: string, base: URL): URL {
  const text = data.trim();
  let target: URL | undefined;
  try {
    target = text === "" ? undefined : new URL(text, base);
  } catch {
    target = undefined;
  }
  if (!target) throw new McpTransportError("PROTOCOL", `the server's endpoint event does not hold a URL`);
  if (target.origin !== base.origin) {
    throw new McpTransportError(
      "PROTOCOL",
      `the server named a message endpoint on another origin (${target.origin}), which is refused: ` +
        `messages are only posted to the origin of ${STREAM} (${base.origin})`,
    );
  }
  if (target.username !== "" || target.password !== "") {
    throw new McpTransportError("PROTOCOL", `the server named a message endpoint with credentials in its URL, which is refused`);
  }
  target.hash = "";
  return target;
}
