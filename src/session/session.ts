/**
 * One connection's bookkeeping, the same for every transport.
 *
 * Request ids (never reused; string and number ids never confused), responses matched to
 * requests, the in-flight ceiling and the end-to-end deadline (kept here, once, so that every
 * transport keeps them), cancellation (`AbortSignal` in, `notifications/cancelled` out),
 * progress, and the routing of server-to-client requests and notifications to handlers.
 */
import { IdTable } from "../collections/id-table.js";
import { McpTransportError } from "../errors.js";
import {
  JSONRPC_INTERNAL_ERROR,
  JSONRPC_METHOD_NOT_FOUND,
  UnserializableMessageError,
  isFailure,
  type JsonRpcErrorObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from "../protocol/jsonrpc.js";
import { Method, Notification } from "../protocol/methods.js";
import { ModernMethod } from "../protocol/modern.js";
import { abortReason } from "../util/abort.js";
import { checkLimit, resolveLimits, type Limits } from "../transport/limits.js";
import { MAX_TIMER_MS, checkWholeNumber } from "../util/whole-number.js";
import { copyWith } from "../util/hot-path.js";
import type { ConnectionEnding, ConnectionEvents, McpConnection, McpTransport, SendContext, WireRules } from "../transport/transport.js";
import { Deadlines, monotonicNow, type Deadline } from "../collections/deadlines.js";
import { UserWaits } from "../util/user-waits.js";
import { SignalWatch } from "./signal-watch.js";
import { InFlightSlots, type SlotWaiter } from "./slots.js";

export type SessionOptions = Partial<Limits>;

/** What an era says of the wire once it is settled: the connection's rules and every request's. */
export type EraWireRules = WireRules & Pick<SendContext, "closeCancels" | "resumable">;

/** A progress notification for one request. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface RequestOptions {
  /** This request end to end, in ms, including the wait for an in-flight slot. @default the session's `timeoutMs` */
  timeoutMs?: number;
  /** Aborts the request: it rejects with `signal.reason` and the server is sent `notifications/cancelled`. */
  signal?: AbortSignal;
  /** Called for each progress notification the server sends about this request. */
  onProgress?: (progress: Progress) => void;
  /**
   * Whether a progress notification restarts the `timeoutMs` count. While it does, the request
   * carries a `progressToken` whether or not `onProgress` is given, so the server can report
   * progress and keep a long call alive. @default true
   */
  resetTimeoutOnProgress?: boolean;
  /**
   * The bound on the whole request however often progress restarts its count, in ms.
   * @default ten times `timeoutMs`, at most about 24.8 days
   */
  maxTotalTimeoutMs?: number;
  /** How the request is named in error messages, e.g. `callTool "search"`. @default the method */
  label?: string;
  /** Headers for this request only, on transports that have headers. */
  headers?: Record<string, string>;
  /**
   * A request that stays open by design (`subscriptions/listen`): no end-to-end deadline and no
   * read-stall ceiling; it ends when its signal aborts, the server ends it, or the connection ends.
   */
  longLived?: boolean;
  /** Called with the request's id when it goes on the wire (after any wait for a slot). */
  onDispatch?: (id: number) => void;
  /**
   * Makes the request a task-augmented one (revision 2025-11-25), whose answer may create a task:
   * "For task-augmented requests, the `tasks/cancel` request MUST be used instead of the
   * `notifications/cancelled` notification" (basic/utilities/cancellation). When the caller stops
   * waiting (an abort, the deadline), it is rejected at once as for any request, but the server
   * is sent no `notifications/cancelled`: the request stays on the wire, for at most the session's
   * `timeoutMs` more, and a result that comes meanwhile is handed to this function, to cancel the
   * task it creates. An error, no answer in that time, or the end of the connection: nothing more.
   * Never called for a request whose caller got its answer.
   */
  onLateResult?: (result: Record<string, unknown>) => void;
}

/** What a handler of a server-to-client request receives. One object, so fields can be added. */
export interface ServerRequestContext {
  id: RequestId;
  method: string;
  params: Record<string, unknown>;
  /** Aborted when the server cancels this request or the connection ends. */
  signal: AbortSignal;
}

export type ServerRequestHandler = (
  context: ServerRequestContext,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

export type NotificationListener = (params: Record<string, unknown>) => void;

interface PendingRequest extends SlotWaiter, Deadline {
  id: number;
  method: string;
  label: string;
  message: JsonRpcRequest;
  resolve(result: Record<string, unknown>): void;
  timeoutMs: number;
  maxTotalMs: number;
  /** The bound on the whole request, on the monotonic clock of `deadlines.ts`. */
  deadlineAt: number;
  signal: AbortSignal | undefined;
  context: SendContext | undefined;
  onProgress: ((progress: Progress) => void) | undefined;
  resetOnProgress: boolean;
  onDispatch: ((id: number) => void) | undefined;
  onLateResult: ((result: Record<string, unknown>) => void) | undefined;
  dispatched: boolean;
  settled: boolean;
}

/** A task-augmented request whose caller stopped waiting, still on the wire for its answer (see `RequestOptions.onLateResult`). */
interface LingeringRequest {
  onLateResult: (result: Record<string, unknown>) => void;
  timer: NodeJS.Timeout;
}

type State = "new" | "opening" | "open" | "closed";

/**
 * A JSON-RPC error a server-request handler may throw to choose the code the server receives.
 * Anything else thrown by a handler is answered with -32603 and a generic message, so the
 * client's internals never travel to the server.
 */
export interface HandlerError {
  code: number;
  message: string;
  data?: unknown;
}

function isHandlerError(value: unknown): value is HandlerError {
  return (
    typeof value === "object" &&
    value !== null &&
    Number.isInteger((value as HandlerError).code) &&
    typeof (value as HandlerError).message === "string"
  );
}

/**
 * The JSON-RPC error the server receives for what a handler of `method` threw: a `HandlerError`
 * as it is, anything else as -32603 with a generic message.
 */
export function handlerErrorObject(error: unknown, method: string): JsonRpcErrorObject {
  return isHandlerError(error)
    ? { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) }
    : { code: JSONRPC_INTERNAL_ERROR, message: `The client could not handle ${method}` };
}

export class TransportSession {
  readonly limits: Limits;
  private state: State = "new";
  private connection: McpConnection | undefined;
  private nextId = 1;
  private readonly pending = new IdTable<PendingRequest>();
  private readonly slots: InFlightSlots<PendingRequest>;
  private readonly handlers = new Map<string, ServerRequestHandler>();
  private readonly listeners = new Map<string, Set<NotificationListener>>();
  private readonly serverRequests = new Map<RequestId, AbortController>();
  /** Task-augmented requests given up by their callers, by id, until their answer or their time is up. */
  private readonly lingering = new Map<number, LingeringRequest>();
  private readonly endListeners = new Set<(ending: ConnectionEnding) => void>();
  /** One abort listener per caller signal, whatever the number of requests sharing it. */
  /** What every request's SendContext carries for the era (set with the revision). */
  private rules: Pick<SendContext, "closeCancels" | "resumable"> | undefined;
  private revision: string | undefined;
  private readonly signals = new SignalWatch<PendingRequest>((request, signal) => this.abandon(request, abortReason(signal)));
  /** Logins and elicitations waiting for a person on this connection. */
  private readonly userWaits = new UserWaits();
  /** Every request's end-to-end deadline, on one timer. */
  private readonly deadlines = new Deadlines<PendingRequest>((request) => this.onDeadline(request));
  private ending: ConnectionEnding | undefined;
  private closing: Promise<void> | undefined;
  private markEnded!: (ending: ConnectionEnding) => void;
  /** Settles with how the connection ended; never rejects. */
  readonly ended: Promise<ConnectionEnding> = new Promise((resolve) => (this.markEnded = resolve));

  constructor(
    readonly transport: McpTransport,
    options: SessionOptions = {},
  ) {
    this.limits = resolveLimits(options);
    this.slots = new InFlightSlots<PendingRequest>(this.limits.maxInFlight, (request) => this.dispatch(request));
  }

  get description(): string {
    return this.transport.description;
  }

  get isOpen(): boolean {
    return this.state === "open";
  }

  /** The wire in use: the connection's, after a fallback, or else the transport's kind. */
  get wireKind(): string {
    return this.connection?.kind ?? this.transport.kind;
  }

  /** The server-assigned session id, where the transport has one. */
  get sessionId(): string | undefined {
    return this.connection?.sessionId;
  }

  /** Opens the connection. Aborting `signal` while it opens leaves nothing running. */
  async open(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.state !== "new") throw new Error("a TransportSession opens once; make a new one to reconnect");
    this.state = "opening";
    const events: ConnectionEvents = {
      message: (message) => this.onMessage(message),
      requestFailed: (id, error) => this.onRequestFailed(id, error),
      closed: (ending) => this.onClosed(ending),
      waitingForUser: (waiting) => this.onWaitingForUser(waiting),
    };
    try {
      this.connection = await this.transport.open(events, { limits: this.limits, signal: options.signal });
    } catch (error) {
      this.onClosed({ error: error instanceof McpTransportError ? error : undefined });
      throw error;
    }
    if (this.state === "opening") this.state = "open";
    else {
      // The connection ended (or close() was called) while it opened.
      await this.connection.close();
      throw this.disconnected("open");
    }
  }

  /** Sends a request and resolves with its result; rejects with an `McpTransportError` or the abort reason. */
  request(method: string, params?: Record<string, unknown>, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const label = options.label ?? `request "${method}"`;
    if (this.state !== "open") return Promise.reject(this.disconnected(label));
    let timeoutMs: number;
    let maxTotal: number;
    try {
      timeoutMs = options.timeoutMs === undefined ? this.limits.timeoutMs : checkLimit("timeoutMs", options.timeoutMs, label);
      maxTotal =
        options.maxTotalTimeoutMs === undefined
          ? Math.min(timeoutMs * 10, MAX_TIMER_MS)
          : checkMaxTotal(options.maxTotalTimeoutMs, label);
    } catch (error) {
      return Promise.reject(error);
    }

    const id = this.nextId++;
    const message: JsonRpcRequest = { jsonrpc: "2.0", id, method };
    const resetOnProgress = options.resetTimeoutOnProgress ?? true;
    // A server can report progress only on a request that carries a token: one is sent whenever
    // progress would matter, to a listener or to the deadline, so a long call is not cut short.
    if (options.onProgress || (resetOnProgress && !options.longLived && !NO_PROGRESS_METHODS.has(method))) {
      message.params = withProgressToken(params, id);
    }
    else if (params !== undefined) message.params = params;

    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const now = monotonicNow();
      const request: PendingRequest = {
        id,
        method,
        label,
        message,
        resolve,
        reject,
        dueAt: 0,
        clockIndex: -1,
        timeoutMs,
        maxTotalMs: maxTotal,
        deadlineAt: now + maxTotal,
        signal,
        context: options.headers || options.longLived || this.rules ? this.contextFor(options) : undefined,
        onProgress: options.onProgress,
        resetOnProgress,
        onDispatch: options.onDispatch,
        onLateResult: options.onLateResult,
        dispatched: false,
        settled: false,
      };
      if (!options.longLived) this.deadlines.set(request, now + Math.min(timeoutMs, maxTotal));
      if (signal) this.signals.add(signal, request);
      if (this.slots.acquire(request)) this.dispatch(request);
    });
  }

  /** What a request says to its transport: its headers, whether it is long-lived, and the era's rules. */
  private contextFor(options: RequestOptions): SendContext {
    return { headers: options.headers, longLived: options.longLived, ...this.rules };
  }

  /** Sends a notification. Resolves when it is handed to the wire. */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.state !== "open" || !this.connection) throw this.disconnected(`notification "${method}"`);
    const message: JsonRpcNotification = { jsonrpc: "2.0", method };
    if (params !== undefined) message.params = params;
    try {
      await this.connection.send(message);
    } catch (error) {
      if (error instanceof UnserializableMessageError) throw notJson(`notification "${method}"`, error);
      throw error;
    }
  }

  /** Routes server-to-client requests of `method` to `handler` (one handler per method). */
  setRequestHandler(method: string, handler: ServerRequestHandler | undefined): void {
    if (handler) this.handlers.set(method, handler);
    else this.handlers.delete(method);
  }

  /** Calls `listener` for each notification of `method`; returns the function that stops it. */
  onNotification(method: string, listener: NotificationListener): () => void {
    let set = this.listeners.get(method);
    if (!set) this.listeners.set(method, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Calls `listener` once when the connection ends, however it ends. */
  onEnd(listener: (ending: ConnectionEnding) => void): () => void {
    if (this.ending) {
      const ending = this.ending;
      queueMicrotask(() => listener(ending));
      return () => {};
    }
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  /**
   * Tells the transport the negotiated protocol revision (HTTP sends it as a header) and what the
   * era says of the wire: the rules of the connection, and those every later request carries in
   * its `SendContext` (see there).
   */
  setProtocolVersion(revision: string, rules: EraWireRules = {}): void {
    this.revision = revision;
    const { closeCancels, resumable, ...wire } = rules;
    this.rules = closeCancels !== undefined || resumable !== undefined ? { closeCancels, resumable } : undefined;
    this.connection?.setProtocolVersion?.(revision, wire);
  }

  /** The protocol revision the era settled on this connection (see `setProtocolVersion`); undefined until then. */
  get protocolVersion(): string | undefined {
    return this.revision;
  }

  /** Requests outstanding on the wire, and requests waiting for a slot. */
  get load(): { inFlight: number; waiting: number } {
    return { inFlight: this.slots.inFlight, waiting: this.slots.waiting };
  }

  /**
   * Closes the connection: pending requests reject with DISCONNECTED, and the promise resolves
   * once the transport released everything (child exited, sockets closed). Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async closeOnce(): Promise<void> {
    const connection = this.connection;
    if (this.state === "new") {
      this.onClosed({});
      return;
    }
    if (this.state !== "closed") this.failAll(() => this.closedByUs());
    if (connection) await connection.close();
    // A transport that never reported its end (it should) still must not leave callers waiting.
    this.onClosed({});
  }

  private dispatch(request: PendingRequest): void {
    if (request.settled) {
      this.slots.release();
      return;
    }
    const connection = this.connection;
    if (this.state !== "open" || !connection) {
      this.slots.release();
      this.settle(request, this.disconnected(request.label));
      return;
    }
    request.dispatched = true;
    this.pending.set(request.id, request);
    request.onDispatch?.(request.id);
    try {
      connection.send(request.message, request.context).catch((error: unknown) => {
        this.settle(request, this.failureOf(request, error));
      });
    } catch (error) {
      // A transport's send must reject, not throw; one that throws (a user's own) still fails only this request.
      this.settle(request, this.failureOf(request, error));
    }
  }

  private onMessage(message: JsonRpcMessage): void {
    if ("method" in message) {
      if ("id" in message) this.onServerRequest(message as JsonRpcRequest);
      else this.onServerNotification(message);
    } else {
      this.onResponse(message);
    }
  }

  private onResponse(response: JsonRpcResponse): void {
    // Only number ids are ours: a string id, even "1", is not an answer to request 1.
    if (typeof response.id !== "number") return;
    const request = this.pending.get(response.id);
    if (!request) {
      // Late (after a timeout) or unknown: ignored by design, but for a task-augmented request's.
      if (this.lingering.size > 0) this.endLingering(response.id, isFailure(response) ? undefined : response.result);
      return;
    }
    if (isFailure(response)) {
      this.settle(request, this.jsonRpcFailure(request, response.error));
    } else {
      this.settle(request, undefined, response.result);
    }
  }

  /** Whether a login or an elicitation waits for a person on this connection (see `duringUserInput`, `ConnectionEvents.waitingForUser`). */
  get waitingForUser(): boolean {
    return this.userWaits.waiting;
  }

  /** For a deadline of `ms` of the opening that is due now: how much longer a login makes it wait. */
  loginPostponement(ms: number): number {
    return this.userWaits.postponement(ms);
  }

  /**
   * Runs `work`, a person answering the server (an elicitation), with this session's deadlines
   * standing still meanwhile, as they do for a login: the request that led to the question, and
   * any other, are not failed for the person's pace. The caller's signals still end them.
   */
  async duringUserInput<T>(work: () => Promise<T>): Promise<T> {
    this.onWaitingForUser(true);
    try {
      return await work();
    } finally {
      this.onWaitingForUser(false);
    }
  }

  /** A login in the browser: no deadline runs while a person is at it (see `ConnectionEvents.waitingForUser`). */
  private onWaitingForUser(waiting: boolean): void {
    this.userWaits.change(waiting);
    if (waiting) {
      this.deadlines.pause();
      return;
    }
    const elapsed = this.deadlines.resume();
    // The bound on the whole request moves with it.
    if (elapsed > 0) for (const request of this.pending.valueList()) request.deadlineAt += elapsed;
  }

  private onRequestFailed(id: RequestId, error: McpTransportError): void {
    if (typeof id !== "number") return;
    const request = this.pending.get(id);
    if (request) this.settle(request, this.failureOf(request, error));
    else this.endLingering(id, undefined);
  }

  private onServerNotification(message: JsonRpcNotification): void {
    const params = message.params ?? {};
    if (message.method === Notification.progress) this.onProgress(params);
    else if (message.method === Notification.cancelled) this.serverRequests.get(params.requestId as RequestId)?.abort();
    const set = this.listeners.get(message.method);
    if (!set) return;
    for (const listener of set) {
      try {
        listener(params);
      } catch {
        // A listener's failure is its own; it must not break the routing of the next message.
      }
    }
  }

  private onProgress(params: Record<string, unknown>): void {
    const token = params.progressToken;
    if (typeof token !== "number" || typeof params.progress !== "number") return;
    const request = this.pending.get(token);
    if (!request || request.settled) return;
    // A request with no deadline (long-lived) is not in the deadlines; it is not given one here.
    if (request.resetOnProgress && request.clockIndex >= 0) {
      this.deadlines.set(request, Math.min(monotonicNow() + request.timeoutMs, request.deadlineAt));
    }
    if (request.onProgress) {
      const progress: Progress = { progress: params.progress };
      if (typeof params.total === "number") progress.total = params.total;
      if (typeof params.message === "string") progress.message = params.message;
      try {
        request.onProgress(progress);
      } catch {
        // The caller's callback failing is not a failure of the request.
      }
    }
  }

  private onServerRequest(message: JsonRpcRequest): void {
    const handler = this.handlers.get(message.method);
    if (!handler) {
      if (message.method === Method.ping) this.reply({ jsonrpc: "2.0", id: message.id, result: {} });
      else this.replyError(message.id, { code: JSONRPC_METHOD_NOT_FOUND, message: `Method not found: ${message.method}` });
      return;
    }
    const controller = new AbortController();
    this.serverRequests.set(message.id, controller);
    const context: ServerRequestContext = {
      id: message.id,
      method: message.method,
      params: message.params ?? {},
      signal: controller.signal,
    };
    Promise.resolve()
      .then(() => handler(context))
      .then(
        (result) => {
          if (!controller.signal.aborted) this.reply({ jsonrpc: "2.0", id: message.id, result });
        },
        (error: unknown) => {
          if (controller.signal.aborted) return; // cancelled requests get no response
          this.replyError(message.id, handlerErrorObject(error, message.method));
        },
      )
      .finally(() => this.serverRequests.delete(message.id));
  }

  private replyError(id: RequestId, error: JsonRpcErrorObject): void {
    this.reply({ jsonrpc: "2.0", id, error });
  }

  private reply(response: JsonRpcResponse): void {
    if (this.state !== "open" || !this.connection) return;
    // A reply that cannot be sent means the connection is going; its end is reported elsewhere.
    this.connection.send(response).catch(() => {});
  }

  private onDeadline(request: PendingRequest): void {
    if (request.settled) return;
    // Progress may have restarted the count; then it is the bound on the whole request that fired.
    const wholeBound = request.maxTotalMs < request.timeoutMs || monotonicNow() >= request.deadlineAt;
    const timeoutMs = wholeBound ? request.maxTotalMs : request.timeoutMs;
    this.abandon(
      request,
      new McpTransportError(
        "TIMEOUT",
        `${request.label} timed out after ${timeoutMs} ms${wholeBound ? " (maxTotalTimeoutMs)" : ""} (${this.description})`,
        { timeoutMs, method: request.method },
      ),
    );
  }

  /**
   * The caller stops waiting: reject, and tell the server and the transport, best-effort; a
   * task-augmented request stays on the wire for its late answer instead (see `onLateResult`).
   */
  private abandon(request: PendingRequest, error: unknown): void {
    if (request.settled) return;
    const wasDispatched = request.dispatched;
    this.settle(request, error);
    if (!wasDispatched) return;
    if (request.onLateResult && this.state === "open") {
      this.linger(request.id, request.onLateResult);
      return;
    }
    this.connection?.abandon(request.id);
    // The spec forbids cancelling initialize; any other request is cancelled once, unless
    // abandoning it already told the server (a closed HTTP stream, in the modern era).
    const told = request.context?.closeCancels === true && this.connection?.closesRequestStreams === true;
    if (!told && request.method !== Method.initialize && this.state === "open" && this.connection) {
      const reason = error instanceof McpTransportError ? "timeout" : "aborted by the client";
      this.connection
        // Best-effort: a login in progress neither holds it up nor is kept going for it.
        .send({ jsonrpc: "2.0", method: Notification.cancelled, params: { requestId: request.id, reason } }, { bestEffort: true })
        .catch(() => {});
    }
  }

  /**
   * Keeps waiting for the answer of a task-augmented request its caller gave up, for at most the
   * session's `timeoutMs` (the usual deadline of a request). Its in-flight slot is free already:
   * the caller's next request does not wait for it.
   */
  private linger(id: number, onLateResult: (result: Record<string, unknown>) => void): void {
    const timer = setTimeout(() => {
      if (!this.lingering.delete(id)) return;
      this.connection?.abandon(id);
    }, this.limits.timeoutMs);
    // Best-effort traffic never keeps the process alive.
    timer.unref();
    this.lingering.set(id, { onLateResult, timer });
  }

  /** A lingering request's answer came (its result, or undefined for an error or a failure): it is over. */
  private endLingering(id: number, result: Record<string, unknown> | undefined): void {
    const lingering = this.lingering.get(id);
    if (!lingering) return;
    this.lingering.delete(id);
    clearTimeout(lingering.timer);
    if (result === undefined) return;
    try {
      lingering.onLateResult(result);
    } catch {
      // The callback's failure is its own; the message that brought the answer is handled.
    }
  }

  private settle(request: PendingRequest, error: unknown, result?: Record<string, unknown>): void {
    if (request.settled) return;
    request.settled = true;
    this.deadlines.delete(request);
    if (request.signal) this.signals.delete(request.signal, request);
    if (request.dispatched) {
      this.pending.delete(request.id);
      this.slots.release();
    } else {
      this.slots.leave(request);
    }
    if (error === undefined) request.resolve(result!);
    else request.reject(error);
  }

  private onClosed(ending: ConnectionEnding): void {
    if (this.ending) return;
    this.ending = ending;
    this.state = "closed";
    this.failAll((request) => this.endedUnder(request, ending));
    this.deadlines.stop();
    for (const lingering of this.lingering.values()) clearTimeout(lingering.timer);
    this.lingering.clear();
    for (const controller of this.serverRequests.values()) controller.abort();
    this.serverRequests.clear();
    for (const listener of this.endListeners) {
      try {
        listener(ending);
      } catch {
        // One listener's failure must not keep the others from learning of the end.
      }
    }
    this.endListeners.clear();
    this.markEnded(ending);
  }

  private failAll(errorFor: (request: PendingRequest) => unknown): void {
    for (const request of this.pending.valueList()) this.settle(request, errorFor(request));
    this.slots.rejectAll((request) => {
      request.settled = true;
      this.deadlines.delete(request);
      if (request.signal) this.signals.delete(request.signal, request);
      return errorFor(request);
    });
  }

  /** A request caught by the end of the connection fails with the reason the connection ended. */
  private endedUnder(request: PendingRequest, ending: ConnectionEnding): McpTransportError {
    const cause = ending.error;
    const exit = exitDetails(ending);
    if (!cause) return this.closedByUs(request).with(exit);
    const reason = cause.reason === "TIMEOUT" ? "DISCONNECTED" : cause.reason;
    return new McpTransportError(reason, `${request.label} failed: ${cause.message} (${this.description})`, {
      ...cause.details(),
      ...exit,
      method: request.method,
      cause,
    });
  }

  private closedByUs(request?: PendingRequest): McpTransportError {
    return new McpTransportError(
      "DISCONNECTED",
      `${request?.label ?? "the request"} was pending when the connection was closed (${this.description})`,
      request ? { method: request.method } : {},
    );
  }

  private disconnected(label: string): McpTransportError {
    const cause = this.ending?.error;
    return new McpTransportError(
      "DISCONNECTED",
      `${label} cannot be sent: the connection is ${this.state === "closed" ? "closed" : "not open"} (${this.description})`,
      cause ? { ...cause.details(), ...exitDetails(this.ending!), cause } : {},
    );
  }

  private failureOf(request: PendingRequest, error: unknown): McpTransportError | TypeError {
    if (error instanceof UnserializableMessageError) return notJson(request.label, error);
    if (!(error instanceof McpTransportError)) {
      return new McpTransportError("DISCONNECTED", `${request.label} could not be sent (${this.description})`, {
        method: request.method,
        cause: error,
      });
    }
    return error.with({ method: request.method }, `${request.label} failed: ${error.message} (${this.description})`);
  }

  private jsonRpcFailure(request: PendingRequest, error: JsonRpcErrorObject): McpTransportError {
    return new McpTransportError(
      "PROTOCOL",
      `${request.label} failed: the server answered with JSON-RPC error ${error.code} (${this.description})`,
      { kind: "server_error", code: error.code, method: request.method, serverMessage: error.message, serverData: error.data },
    );
  }
}

/** The caller's values are not JSON: a TypeError naming the call, as for any other bad argument. */
function notJson(label: string, error: UnserializableMessageError): TypeError {
  return new TypeError(`${label} cannot be sent: ${error.message}`, { cause: error.cause });
}

function exitDetails(ending: ConnectionEnding): { exitCode?: number | null; signal?: string | null } {
  const details: { exitCode?: number | null; signal?: string | null } = {};
  if (ending.exitCode !== undefined) details.exitCode = ending.exitCode;
  if (ending.signal !== undefined) details.signal = ending.signal;
  return details;
}

function checkMaxTotal(value: unknown, label: string): number {
  return checkWholeNumber(value, "maxTotalTimeoutMs", label, { min: 1, max: MAX_TIMER_MS });
}

/**
 * Requests that answer at once by their nature, so a progress token would only be noise:
 * the handshake, the liveness check and the modern era's discovery.
 */
const NO_PROGRESS_METHODS: ReadonlySet<string> = new Set([Method.initialize, Method.ping, ModernMethod.discover]);

/** The params with `_meta.progressToken` set, as a new object (the caller's stays as it was). */
function withProgressToken(params: Record<string, unknown> | undefined, token: number): Record<string, unknown> {
  return copyWith(params, "_meta", copyWith(params?._meta as Record<string, unknown> | undefined, "progressToken", token));
}
