/**
 * Streamable HTTP (MCP revisions 2025-03-26 to 2025-11-25, basic/transports): how a server is
 * reached in a cluster.
 *
 * Every message is a POST to the one endpoint. A request's reply is one JSON body or an SSE
 * stream, read to its end: server requests and notifications that come before the response are
 * delivered too. After initialization a GET stream carries server-initiated messages, if the
 * server offers one (405 says it does not). A stream that drops, or that the server closes before
 * it answered (SEP-1699 polling), is resumed with GET and `Last-Event-ID`, after the server's
 * `retry` or a jittered backoff, within a budget that a reconnect does not refill.
 *
 * The session id from the initialize response goes on every later request, with the negotiated
 * `MCP-Protocol-Version`. A 404 on a request that carried the session id means the server forgot
 * the session: the request fails with `sessionExpired` (the client initializes again and retries
 * it once), and so does every request sent until a new `initialize` starts a new session.
 * `close()` ends the session with DELETE, bounded in time; the cancel notice of a request given up
 * is bounded too (http/cancel-notice.ts).
 *
 * Redirects, content types, statuses, attempts and byte ceilings follow the endpoint policy
 * (http/endpoint-policy.ts), shared with the legacy HTTP+SSE transport.
 *
 * This file holds the POST exchange of each message and the reading of its reply, which stay
 * together because a reply stream (and its resumption) belongs to the request that POSTed it, and
 * the liveness check that a lost reply triggers. The other jobs have files of their own: the
 * session and its DELETE (http/http-session.ts), the GET stream of server-initiated messages
 * (http/event-stream.ts), and the reconnect loop both streams use (http/stream-reopen.ts).
 */
import { IdTable } from "../../collections/id-table.js";
import { McpTransportError } from "../../errors.js";
import {
  isResponse,
  serializeMessage,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type RequestId,
} from "../../protocol/jsonrpc.js";
import { Method, Notification } from "../../protocol/methods.js";
import { abortReason } from "../../util/abort.js";
import { disconnected } from "./disconnected.js";
import {
  JSON_MEDIA_TYPE,
  SSE_MEDIA_TYPE,
  checkContentType,
  isSuccessStatus,
  exchange,
  isUnreachable,
  readBoundedBody,
  statusFailure,
  type Exchange,
  type ExchangeOptions,
  type McpMediaType,
  type RedirectMode,
} from "./endpoint-policy.js";
import type { HttpClient, HttpRequest, HttpResponse } from "./http-client.js";
import type { AuthProvider, HttpAccess } from "./auth-provider.js";
import { asksForCredentials, authorizedExchange, withAuthHeaders } from "./authorized-exchange.js";
import {
  checkEndpointUrl,
  httpClientFor,
  requestHeaders,
  HTTP_ENDPOINT_OPTION_NAMES,
  resolveHttpOptions,
  whatOf,
  type HttpEndpointOptions,
  type ResolvedHeaders,
  type RequestHeaders,
  type ResolvedHttpOptions,
} from "./http-options.js";
import { RequestAbort, type AbortSignalLike } from "./request-abort.js";
import { StreamStallWatch, type WatchedStream } from "../common/stream-stall-watch.js";
import { isMessageEvent, readSse, type SseEvent, type SseProgress } from "./sse-reader.js";
import { closedOnce, type EventsClosedOnce } from "../common/ending.js";
import { IncomingBatches } from "../common/incoming-batches.js";
import { ServerEventStream } from "./event-stream.js";
import { DELETE_TIMEOUT_MS, HttpSession, deleteSession } from "./http-session.js";
import { CANCEL_NOTICE_TIMEOUT_MS, cancelNoticeDeadline } from "./cancel-notice.js";
import { MAX_STREAM_RECONNECTS, STREAM_RECONNECT_BACKOFF, reopenEventStream } from "./stream-reopen.js";
import { checkOutgoingSize, describeValue, type Limits } from "../limits.js";
import type { ConnectionEvents, McpConnection, McpTransport, OpenOptions, SendContext, WireRules } from "../transport.js";
import { shownUrl } from "../../util/shown-url.js";

export type { HeadersOption } from "./http-options.js";

/**
 * `headers` go on every HTTP request (POST, GET, DELETE); the headers the transport owns
 * (`Accept`, `Content-Type`, `Mcp-Session-Id`, `MCP-Protocol-Version`, `Last-Event-ID`) override
 * them. `fetch` and `redirect`: see `HttpEndpointOptions`.
 */
export interface StreamableHttpOptions extends HttpEndpointOptions {
  /**
   * Whether to open the GET stream for server-initiated messages after initialization.
   * @default true
   */
  listen?: boolean;
}

/** Every option `StreamableHttpTransport` (and `HttpTransport`) takes. */
export const STREAMABLE_HTTP_OPTION_NAMES = [...HTTP_ENDPOINT_OPTION_NAMES, "listen"] as const satisfies readonly (keyof StreamableHttpOptions)[];

/**
 * How long a reply stream may stay open after it delivered its response, in ms. The server
 * should end it then; one that does not is cut, so a connection is not held per finished request.
 * @default 2_000
 */
export const RESPONSE_STREAM_LINGER_MS = 2_000;

export { CANCEL_NOTICE_TIMEOUT_MS, DELETE_TIMEOUT_MS, MAX_STREAM_RECONNECTS, STREAM_RECONNECT_BACKOFF };

const KIND = "streamable-http";
const ACCEPT_ANY = `${JSON_MEDIA_TYPE}, ${SSE_MEDIA_TYPE}`;

export class StreamableHttpTransport implements McpTransport {
  readonly kind = KIND;
  readonly description: string;
  readonly url: URL;
  private readonly options: ResolvedHttpOptions & { listen: boolean };

  constructor(url: string | URL, options: StreamableHttpOptions = {}) {
    this.url = checkEndpointUrl(url, "StreamableHttpTransport", "https://example.com/mcp");
    this.options = { ...resolveHttpOptions(options, "StreamableHttpTransport", STREAMABLE_HTTP_OPTION_NAMES), listen: checkListen(options.listen) };
    // Only scheme, host and path: a query string may carry a token.
    this.description = `${KIND}: ${shownUrl(this.url)}`;
  }

  async open(events: ConnectionEvents, options: OpenOptions): Promise<McpConnection> {
    if (options.signal?.aborted) throw abortReason(options.signal);
    const client = await httpClientFor(this.options, options.limits.maxInFlight);
    // Nothing is sent yet: the first POST (initialize) finds out whether the endpoint is there.
    return new StreamableHttpConnection(this.url, this.options, events, options.limits, client);
  }
}

/** One request's HTTP exchange: its POST, its reply stream, and the resumptions of that stream. */
interface RequestExchange {
  id: RequestId;
  what: string;
  controller: RequestAbort;
  /** The read-stall watch of the reply; none for a long-lived request, nor once answered. */
  stall: WatchedStream | undefined;
  response: HttpResponse | undefined;
  /** The current response's body was read to its end: nothing is left to abort or cut. */
  finished: boolean;
  progress: SseProgress;
  reconnects: number;
  answered: boolean;
  stopped: boolean;
  linger: NodeJS.Timeout | undefined;
  /** From the request's SendContext: a broken reply stream may be resumed. */
  resumable: boolean;
}

type State = "open" | "closing" | "ended";

/**
 * Who waits for a GET: a caller (`request`, the resumption of its reply stream) or nobody (the
 * GET stream, `listen`; the liveness check, `probe`). Only a caller's GET goes through the auth
 * provider's flows.
 */
type GetTraffic = "request" | "listen" | "probe";

/** A POST's response, and the session id it was sent under (a 404 on that session expires it). */
interface Posted {
  response: HttpResponse;
  sentSession: string | undefined;
}

class StreamableHttpConnection implements McpConnection {
  private state: State = "open";
  private endpoint: URL;
  private readonly session = new HttpSession();
  private readonly events: EventsClosedOnce;
  /** Whether the server may answer with JSON-RPC batches, as the protocol layer said. */
  private readonly batches = new IncomingBatches();
  private readonly requests = new IdTable<RequestExchange>();
  private readonly controllers = new IdTable<RequestAbort>();
  /** The GET stream of server-initiated messages. */
  private readonly serverStream: ServerEventStream;
  private probing = false;
  private closing: Promise<void> | undefined;
  private readonly stalls: StreamStallWatch;
  /** What the auth provider, if any, is lent for its own requests. */
  private readonly access: HttpAccess;
  /**
   * The GET stream is background traffic: it goes with the credentials at hand and never starts,
   * waits on or keeps going a login (nobody waits for it). Refused for want of credentials, it
   * stops, remembering `credentialsChanged` as it was when the GET went; a request accepted since
   * with other credentials opens it again (once per change, so a refusal cannot loop).
   */
  private listenRefusedAt: number | undefined;
  /** The `Authorization` the auth provider gave the last request the endpoint accepted. */
  private acceptedWith: string | undefined;
  /** How many times `acceptedWith` changed. */
  private credentialsChanged = 0;

  constructor(
    url: URL,
    private readonly options: { redirect: RedirectMode; listen: boolean; headers: ResolvedHeaders; auth: AuthProvider | undefined },
    events: ConnectionEvents,
    private readonly limits: Limits,
    private readonly client: HttpClient,
  ) {
    this.events = closedOnce(events);
    this.endpoint = url;
    this.access = { server: url, client, maxBytes: limits.maxMessageBytes, readTimeoutMs: limits.readTimeoutMs, redirect: options.redirect,
      waitingForUser: (waiting) => this.events.waitingForUser?.(waiting),
    };
    this.stalls = new StreamStallWatch(limits.readTimeoutMs, "the endpoint");
    this.serverStream = new ServerEventStream({
      maxEventBytes: limits.maxMessageBytes,
      transportName: KIND,
      newController: () => this.newController(),
      forgetController: (controller) => this.controllers.delete(controller.serial),
      openGet: (signal, lastEventId, what) => this.openGet(signal, lastEventId, what, "listen"),
      deliver: (data) => {
        for (const message of this.parse(data)) this.receive(message);
      },
      endWith: (error) => this.endWith(error),
    });
  }

  get sessionId(): string | undefined {
    return this.session.id;
  }

  setProtocolVersion(revision: string, rules?: WireRules): void {
    this.session.revision = revision;
    this.batches.follow(rules);
  }

  send(message: JsonRpcMessage, context?: SendContext): Promise<void> {
    // Not an async function: a request's promise is sendRequest's own, where an async `send`
    // would wrap it in one more and take two more steps of the microtask queue on every call.
    // What fails before anything is sent still rejects, never throws.
    let text: string;
    let isInitialize: boolean;
    try {
      if (this.state !== "open") throw new McpTransportError("DISCONNECTED", `the connection is closed`);
      text = serializeMessage(message);
      checkOutgoingSize(text, this.limits.maxMessageBytes, KIND);
      isInitialize = "method" in message && message.method === Method.initialize;
      if (isInitialize) this.startNewSession();
      else if (this.session.expired) throw this.session.expiredError(whatOf(message));
    } catch (error) {
      return Promise.reject(error);
    }
    if ("method" in message && "id" in message) return this.sendRequest(message, text, isInitialize, context);
    return this.sendOther(message, text, context);
  }

  /** Each request has a stream of its own: closing it is its cancellation where the era says so. */
  readonly closesRequestStreams = true;

  /** Aborts the request's exchange (its POST, its reply stream). */
  abandon(id: RequestId): void {
    const request = this.requests.get(id);
    if (request) this.stop(request);
  }

  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  // --- Sending

  /**
   * The POST of a request, answered with a reply to read (a 2xx with a body of a type MCP
   * allows), which is then read on its own while this resolves.
   */
  private async sendRequest(message: JsonRpcRequest, text: string, isInitialize: boolean, context?: SendContext): Promise<void> {
    const request = this.track(message, context);
    let response: HttpResponse;
    let type: McpMediaType;
    try {
      const posted = await this.post(text, request.controller.signal, request.what, context?.headers);
      response = posted.response;
      request.stall?.activity();
      if (!isSuccessStatus(response.status)) await this.refused(response, posted.sentSession, request.what);
      type = this.replyType(response, request.what, isInitialize);
    } catch (error) {
      const stopped = request.stopped;
      this.stop(request);
      if (!stopped && error instanceof McpTransportError && error.reason === "DISCONNECTED") this.checkAlive();
      throw error;
    }
    if (request.stopped) {
      response.discard();
      return;
    }
    request.response = response;
    void this.consume(request, response, type);
  }

  /** A notification or a response: the server accepts it (202) or refuses it; no reply is read. */
  private async sendOther(message: JsonRpcMessage, text: string, context?: SendContext): Promise<void> {
    const what = whatOf(message);
    const controller = this.newController();
    const bestEffort = context?.bestEffort === true;
    // Nobody waits for the cancel notice: its own deadline ends it, not only close().
    const deadline = bestEffort ? cancelNoticeDeadline(() => controller.abort()) : undefined;
    try {
      const { response, sentSession } = await this.post(text, controller.signal, what, context?.headers, bestEffort);
      await this.checkSessionStatus(response, sentSession, what);
      response.discard();
    } finally {
      deadline?.clear();
      this.controllers.delete(controller.serial);
    }
    if ("method" in message && message.method === Notification.initialized) this.listen();
  }

  /** A request refused (not 2xx): fails as `checkSessionStatus` says, the response discarded. */
  private async refused(response: HttpResponse, sentSession: string | undefined, what: string): Promise<void> {
    try {
      await this.checkSessionStatus(response, sentSession, what);
    } catch (error) {
      response.discard();
      throw error;
    }
  }

  /** A 2xx reply to a request must have a body, JSON or an event stream; anything else is discarded and fails. */
  private replyType(response: HttpResponse, what: string, isInitialize: boolean): McpMediaType {
    try {
      if (response.status === 202 || response.status === 204) {
        throw new McpTransportError("PROTOCOL", `the endpoint answered ${what} with HTTP ${response.status} and no reply`, {
          httpStatus: response.status,
        });
      }
      const type = checkContentType(response, [JSON_MEDIA_TYPE, SSE_MEDIA_TYPE], this.context(what));
      if (isInitialize) this.session.adopt(response);
      return type;
    } catch (error) {
      response.discard();
      throw error;
    }
  }

  /** POSTs a message; the response comes with the session id it was sent under. */
  private post(
    text: string,
    signal: AbortSignalLike,
    what: string,
    messageHeaders: Record<string, string> | undefined,
    bestEffort = false,
  ): Promise<Posted> {
    const built = this.headersFor({ accept: ACCEPT_ANY, "content-type": JSON_MEDIA_TYPE }, messageHeaders);
    // Fixed headers are built at once; only a headers function makes this wait (http-options.ts).
    if (built instanceof Promise) return built.then((headers) => this.postWith(text, signal, what, headers, bestEffort));
    return this.postWith(text, signal, what, built, bestEffort);
  }

  private async postWith(text: string, signal: AbortSignalLike, what: string, { headers, userHeaders }: RequestHeaders, bestEffort: boolean): Promise<Posted> {
    const sentSession = this.session.id;
    const request = { method: "POST" as const, url: this.endpoint, headers, body: text, signal };
    const result = await authorizedExchange(this.options.auth, this.access, request, { ...this.policy(what, userHeaders), bestEffort });
    if (result.movedTo) this.endpoint = result.movedTo;
    if (result.authorization !== undefined && result.authorization !== this.acceptedWith && isSuccessStatus(result.response.status)) {
      this.acceptedWith = result.authorization;
      this.credentialsChanged++;
      this.listenAgain();
    }
    return { response: result.response, sentSession };
  }

  /** Fails on a status that is not 2xx; a 404 on the session means the server forgot it. */
  private async checkSessionStatus(response: HttpResponse, sentSession: string | undefined, what: string): Promise<void> {
    if (response.status === 404 && sentSession !== undefined) {
      response.discard();
      this.expire(sentSession);
      throw this.session.expiredError(what, 404);
    }
    const failure = await statusFailure(response, this.context(what));
    if (failure) throw failure;
  }

  // --- Receiving a reply

  private async consume(request: RequestExchange, response: HttpResponse, type: McpMediaType): Promise<void> {
    try {
      if (type === JSON_MEDIA_TYPE) {
        const text = await readBoundedBody(response, this.limits.maxMessageBytes, KIND, () => request.stall?.activity());
        request.finished = true;
        if (request.stopped) return;
        for (const message of this.parse(text)) this.receive(message, request);
        if (!request.answered) {
          throw new McpTransportError("PROTOCOL", `the endpoint's JSON reply did not answer ${request.what}`);
        }
        this.stop(request);
        return;
      }
      await this.readReplyStream(request, response);
    } catch (error) {
      this.failRequest(request, error);
    }
  }

  private async readReplyStream(request: RequestExchange, first: HttpResponse): Promise<void> {
    let response = first;
    for (;;) {
      request.response = response;
      request.finished = false;
      try {
        await readSse(
          response,
          {
            maxEventBytes: this.limits.maxMessageBytes,
            transportName: KIND,
            onActivity: () => request.stall?.activity(),
            onEvent: (event) => this.onReplyEvent(event, request),
          },
          request.progress,
        );
        // Ended after its answer: nothing is left to abort. Otherwise a resumption follows.
        request.finished = request.answered;
      } catch (error) {
        if (request.stopped || request.answered) return this.stop(request);
        if (error instanceof McpTransportError) throw error;
        // The connection was lost mid-stream: resumable like a stream the server closed.
      } finally {
        response.discard();
      }
      if (request.stopped || request.answered) return this.stop(request);
      if (!request.resumable) {
        // A stream the era says is not resumable (2026-07-28): the request is lost, and the layer
        // above re-issues it with a new id (basic/transports/streamable-http, changelog item 9)
        // unless the server itself is gone, which ends the connection as a child's exit ends a stdio one.
        if (!(await this.stillReachable())) {
          const gone = disconnected(`the endpoint stopped answering while ${request.what} waited`);
          this.endWith(gone);
          throw gone;
        }
        throw new McpTransportError("DISCONNECTED", `the reply stream of ${request.what} broke before its answer`, { kind: "stream_broken", streamBroken: true });
      }
      if (request.progress.lastEventId === undefined) {
        throw disconnected(
          `the reply stream of ${request.what} ended before its answer, and the server gave no event id to resume it from`,
        );
      }
      response = await this.resume(request);
    }
  }

  private onReplyEvent(event: SseEvent, request: RequestExchange): void {
    if (request.stopped || !isMessageEvent(event)) return;
    for (const message of this.parse(event.data)) {
      this.receive(message, request);
      request.reconnects = 0;
    }
  }

  /** Resumes a reply stream with GET and `Last-Event-ID`, within the stream's budget. */
  private async resume(request: RequestExchange): Promise<HttpResponse> {
    const what = `the resumption of ${request.what}`;
    const signal = request.controller.signal;
    const opened = await reopenEventStream((lastEventId) => this.openGet(signal, lastEventId, what), request, request.progress, signal);
    if (opened.kind === "stream") {
      request.stall?.activity();
      return opened.response;
    }
    if (opened.kind === "none") {
      throw disconnected(`the reply stream of ${request.what} ended before its answer, and the endpoint does not offer to resume it (HTTP 405)`);
    }
    if (opened.kind === "exhausted") {
      throw disconnected(`the reply stream of ${request.what} was resumed ${MAX_STREAM_RECONNECTS} times without an answer`);
    }
    // The server went away with the request in flight: this connection is over.
    if (opened.kind === "unreachable") this.endWith(disconnected(`the endpoint stopped answering while ${request.what} waited`, opened.error));
    throw opened.error;
  }

  /**
   * A GET for an event stream: the response to read, or undefined when the server offers none
   * (405). A 404 on the session expires it; other failures follow the endpoint policy. The GET
   * stream's own (`listen`) and the liveness check's (`probe`) are background traffic: they go
   * with the credentials at hand (see `listenRefusedAt` and `unreachable`).
   */
  private async openGet(signal: AbortSignalLike, lastEventId: string | undefined, what: string, traffic: GetTraffic = "request"): Promise<HttpResponse | undefined> {
    const extra: Record<string, string> = { accept: SSE_MEDIA_TYPE };
    if (lastEventId !== undefined) extra["last-event-id"] = lastEventId;
    const { headers, userHeaders } = await this.headersFor(extra);
    const sentSession = this.session.id;
    const request = { method: "GET" as const, url: this.endpoint, headers, signal };
    const { response, movedTo } =
      traffic === "request" || this.options.auth === undefined
        ? await authorizedExchange(this.options.auth, this.access, request, this.policy(what, userHeaders))
        : traffic === "listen"
          ? await this.listenGet(request, what, userHeaders)
          : await exchange(this.client, await withAuthHeaders(this.options.auth, this.access, request), this.policy(what, userHeaders));
    if (movedTo) this.endpoint = movedTo;
    if (response.status === 405) {
      response.discard();
      return undefined;
    }
    await this.checkSessionStatus(response, sentSession, what);
    try {
      checkContentType(response, [SSE_MEDIA_TYPE], this.context(what));
    } catch (error) {
      response.discard();
      throw error;
    }
    return response;
  }

  /**
   * The GET stream's GET with an auth provider: the credentials at hand (as for the DELETE), its
   * refusal not handed to the provider, so that a login runs only for requests that wait for it.
   */
  private async listenGet(request: HttpRequest, what: string, userHeaders: readonly string[]): Promise<Exchange> {
    const sentAt = this.credentialsChanged;
    const signed = await withAuthHeaders(this.options.auth, this.access, request);
    const result = await exchange(this.client, signed, this.policy(what, userHeaders));
    if (asksForCredentials(result.response)) this.listenRefusedAt = sentAt;
    return result;
  }

  // --- The GET stream (http/event-stream.ts)

  /** Listens for server-initiated messages on a GET stream, if the user wants one and the connection is open. */
  private listen(): void {
    if (this.options.listen && this.state === "open") void this.serverStream.listen().then(() => this.listenAgain());
  }

  /** Opens the GET stream again, refused for credentials, once a request was accepted with other ones since. */
  private listenAgain(): void {
    // A stream still running is not opened twice: its end calls this again.
    if (this.listenRefusedAt === undefined || this.listenRefusedAt === this.credentialsChanged || this.serverStream.active) return;
    this.listenRefusedAt = undefined;
    this.listen();
  }

  private stopListening(): void {
    this.serverStream.stop();
  }

  /** Whether the endpoint still answers at all (any HTTP status will do), asked with one GET. */
  private async stillReachable(): Promise<boolean> {
    return (await this.unreachable()) === undefined;
  }

  /**
   * One GET to see whether the endpoint answers at all: undefined when it does (any status), the
   * failure when it cannot be reached. Closing the connection aborts it, which is no verdict.
   *
   * It is background traffic: whatever the status, the answer is the same, so a refusal (401) is
   * an answer like any other and is not handed to the auth provider, which would start or join a
   * login for a GET whose answer is already known (and, after a lost reply, keep going one that
   * every caller gave up on). It goes with the credentials at hand. Where a caller waits on the
   * verdict (`stillReachable`), a login would not change it either: the request it re-issues goes
   * through the provider itself.
   */
  private async unreachable(): Promise<unknown> {
    const controller = this.newController();
    try {
      (await this.openGet(controller.signal, undefined, "a check that the endpoint is still there", "probe"))?.discard();
      return undefined;
    } catch (error) {
      return !controller.signal.aborted && isUnreachable(error) ? error : undefined;
    } finally {
      this.controllers.delete(controller.serial);
    }
  }

  /**
   * After a reply was lost mid-exchange: is the server still there? The GET stream, when there
   * is one, finds out by itself; otherwise one GET does. An endpoint that cannot be reached any
   * more ends the connection, the way a child's exit ends a stdio one.
   */
  private checkAlive(): void {
    if (this.state !== "open" || this.serverStream.active || this.probing) return;
    this.probing = true;
    void this.unreachable()
      .then((error) => {
        if (error !== undefined) this.endWith(disconnected(`the endpoint stopped answering with requests in flight`, error));
      })
      .finally(() => (this.probing = false));
  }

  // --- Sessions (http/http-session.ts)

  private startNewSession(): void {
    this.stopListening();
    // The new session's stream opens after its `notifications/initialized`, not on a refusal of the old one's.
    this.listenRefusedAt = undefined;
    this.session.startNew();
  }

  /** The server no longer knows `sentSession`: forget it, and stop listening on it. */
  private expire(sentSession: string): void {
    if (this.session.expire(sentSession)) this.stopListening();
  }

  // --- Bookkeeping

  private track(message: JsonRpcRequest, context: SendContext | undefined): RequestExchange {
    const request: RequestExchange = {
      id: message.id,
      what: `request "${message.method}"`,
      controller: this.newController(),
      stall: undefined,
      response: undefined,
      finished: false,
      progress: {},
      reconnects: 0,
      answered: false,
      stopped: false,
      linger: undefined,
      resumable: context?.resumable ?? true,
    };
    this.requests.get(message.id)?.controller.abort();
    this.requests.set(message.id, request);
    // A long-lived request (subscriptions/listen) stays open by design: no read-stall ceiling.
    if (!context?.longLived) request.stall = this.stalls.watch((error) => this.failRequest(request, error));
    return request;
  }

  /** Ends one request's exchange: its streams are aborted and it is forgotten. Idempotent. */
  private stop(request: RequestExchange): void {
    if (request.stopped) return;
    request.stopped = true;
    request.stall?.stop();
    clearTimeout(request.linger);
    // A body read to its end needs no abort (which would cost an exception object per request).
    if (!request.finished) {
      request.controller.abort();
      request.response?.discard();
    }
    this.controllers.delete(request.controller.serial);
    if (this.requests.get(request.id) === request) this.requests.delete(request.id);
  }

  private failRequest(request: RequestExchange, error: unknown): void {
    if (request.stopped) return;
    this.stop(request);
    if (this.state !== "open") return;
    const failure =
      error instanceof McpTransportError
        ? error
        : disconnected(`the reply of ${request.what} was cut off`, error);
    this.events.requestFailed(request.id, failure);
    if (failure.reason === "DISCONNECTED") this.checkAlive();
  }

  private receive(message: JsonRpcMessage, request?: RequestExchange): void {
    if (this.state !== "open") return;
    if (request && isResponse(message) && message.id === request.id) {
      request.answered = true;
      request.stall?.stop();
      request.stall = undefined;
      if (!request.finished) {
        // The server should end the stream now; one that keeps it open is cut after a while.
        const response = request.response;
        request.linger = setTimeout(() => response?.discard(), RESPONSE_STREAM_LINGER_MS);
        request.linger.unref();
      }
    }
    this.events.message(message);
  }

  /** The messages of one reply or event, as a list to walk (a lone message is a list of one). */
  private parse(text: string): JsonRpcMessage[] {
    const read = this.batches.read(text);
    return Array.isArray(read) ? read : [read];
  }

  private newController(): RequestAbort {
    const controller = new RequestAbort();
    this.controllers.set(controller.serial, controller);
    return controller;
  }

  /**
   * The user's headers, then the message's own (`Mcp-Method`...), then the transport's, which
   * win: `own`, a fresh object of the caller's, with the session's added.
   */
  private headersFor(own: Record<string, string>, messageHeaders?: Record<string, string>): RequestHeaders | Promise<RequestHeaders> {
    this.session.stamp(own);
    return requestHeaders(this.options.headers, own, messageHeaders);
  }

  private policy(what: string, userHeaders: readonly string[]): ExchangeOptions {
    return { redirect: this.options.redirect, userHeaders, what };
  }

  private context(what: string): { what: string } {
    return { what };
  }

  // --- Ending

  /** The connection ends on its own (the server went away, or sent what cannot be read). */
  private endWith(error: McpTransportError): void {
    if (this.state !== "open") return;
    this.state = "ended";
    this.releaseAll();
    void this.client.close();
    this.events.closed({ error });
  }

  private releaseAll(): void {
    for (const request of this.requests.valueList()) this.stop(request);
    this.stalls.close();
    this.stopListening();
    for (const controller of this.controllers.valueList()) controller.abort();
    this.controllers.clear();
  }

  private async closeOnce(): Promise<void> {
    const wasOpen = this.state === "open";
    if (wasOpen) this.state = "closing";
    this.releaseAll();
    if (wasOpen && this.session.id !== undefined) {
      const headers = async () => {
        const { headers, userHeaders } = await this.headersFor({});
        const signed = await withAuthHeaders(this.options.auth, this.access, { method: "DELETE", url: this.endpoint, headers, signal: new RequestAbort() });
        return { headers: signed.headers, userHeaders };
      };
      await deleteSession(this.client, this.endpoint, headers, (what, userHeaders) => this.policy(what, userHeaders));
    }
    await this.client.close();
    if (wasOpen) {
      this.state = "ended";
      this.events.closed({});
    }
  }
}

function checkListen(value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== "boolean") throw new TypeError(`StreamableHttpTransport: "listen" must be true or false, got ${describeValue(value)}`);
  return value;
}
