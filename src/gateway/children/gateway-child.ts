/**
 * One stdio server as the gateway drives it: a child opened with the stdio transport (argv, own
 * process group, environment allowlist, the close ladder), shared by requests of many callers.
 *
 * What this adds over the transport is the relay's bookkeeping toward one child:
 * - ids: each forwarded request gets an id the gateway allocates in this child; the answer goes
 *   back to the caller's id and `RequestSink`. A caller's `notifications/cancelled` is mapped to
 *   the child's id, found among that caller's own requests only.
 * - progress: `params._meta.progressToken` becomes a token unique in the child (the child's id of
 *   the request), and `notifications/progress` goes back with the caller's token to its sink.
 * - listen streams (2026-07-28 `subscriptions/listen`): the subscription id is the listen
 *   request's JSON-RPC id (basic/patterns/subscriptions), so the child's notifications carrying it
 *   go to that request's sink with the caller's id put back.
 * - the two ceilings the session keeps elsewhere: `maxInFlight` (a request past it is refused
 *   with LIMIT: the pool never sends one, a session says so) and the request timeout (past it the
 *   child gets `notifications/cancelled`, the sink TIMEOUT, and a late answer is dropped).
 * - death: every pending request fails at once with DISCONNECTED (never the child's stderr or
 *   text), and the exit (code, signal, cause) goes to the owner and to telemetry.
 * - stderr: with `stderrLog`, each line the child writes there goes to telemetry as a
 *   `child_stderr` report, within a budget (child-stderr.ts); without it, the transport only
 *   drains it and keeps its tail.
 * What belongs to no request (the child's requests to the client, list-changed, resource updates,
 * session-scoped log messages) goes to the owner as it came, in the child's own ids.
 */
import { Deadlines, monotonicNow } from "../../collections/deadlines.js";
import { McpTransportError } from "../../errors.js";
import {
  isNotification,
  isRequest,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from "../../protocol/jsonrpc.js";
import { Notification } from "../../protocol/methods.js";
import { ModernMethod } from "../../protocol/modern.js";
import { DEFAULT_LIMITS } from "../../transport/limits.js";
import type { ConnectionEnding, McpConnection } from "../../transport/transport.js";
import { abortReason } from "../../util/abort.js";
import type { ChildExitCause, GatewayTelemetry } from "../ops/telemetry.js";
import { cancelledByCaller, type RequestSink } from "../relay.js";
import { transportFor, type ChildCommand, type ChildStopTimings } from "./child-command.js";
import { childStarted, childStopped } from "./running-children.js";
import { ChildStderrLog, type ChildStderrSource } from "./child-stderr.js";
import { checkChildLimits, checkCommand, checkNames, checkStderrSource } from "./check-options.js";
import { asCleanFailure, ceilingPassed, childGone, cleanFailure, requestTimedOut } from "./failures.js";
import { ForwardedRequests, type ForwardedRequest } from "./forwarded-requests.js";
import {
  answerForCaller,
  asksForLogs,
  progressTokenOf,
  requestForChild,
  subscriptionIdOf,
  subscriptionNotificationForCaller,
  withParam,
} from "./rewrite.js";

/** The ceilings toward one child (transport/limits.ts), and the gateway's request timeout. */
export interface GatewayChildLimits {
  /** The largest message read from or written to the child, in bytes; kept at the wire. @default 16 MiB */
  maxMessageBytes: number;
  /** How long the child may stay silent while a request waits; kept at the wire. @default 300_000 ms */
  readTimeoutMs: number;
  /** Requests in flight in this child at once; past it, LIMIT. @default 64 */
  maxInFlight: number;
  /** A request's time in the child, in ms; past it, `notifications/cancelled` and TIMEOUT. @default 60_000 */
  requestTimeoutMs: number;
}

export const DEFAULT_CHILD_LIMITS: Readonly<GatewayChildLimits> = Object.freeze({
  maxMessageBytes: DEFAULT_LIMITS.maxMessageBytes,
  readTimeoutMs: DEFAULT_LIMITS.readTimeoutMs,
  maxInFlight: DEFAULT_LIMITS.maxInFlight,
  requestTimeoutMs: 60_000,
});

/** How a child ended, as its owner and telemetry are told. */
export interface ChildExit {
  pid: number;
  /** Why: the gateway's own reason when it stopped the child, `crash` (or `killed`, by a signal) when it went by itself. */
  cause: ChildExitCause;
  exitCode: number | null;
  signal: string | null;
}

/** What a child tells whoever runs it (a pool, a session). */
export interface GatewayChildOwner {
  /**
   * A message of the child that belongs to no request the gateway forwarded: a request to the
   * client (in the child's own id), a notification that is not progress or a listen stream's.
   */
  unrelated(message: JsonRpcRequest | JsonRpcNotification, child: GatewayChild): void;
  /** The child is gone; its pending requests have already failed. Called once. */
  exited(exit: ChildExit, child: GatewayChild): void;
}

export interface GatewayChildOptions {
  command: ChildCommand;
  owner: GatewayChildOwner;
  limits?: Partial<GatewayChildLimits>;
  /** The close ladder's waits. @default the stdio transport's */
  stopTimings?: ChildStopTimings;
  /** Told of the spawn and the exit. */
  telemetry?: GatewayTelemetry;
  /**
   * Whose the child's stderr lines are, to report each to `telemetry` (`childStderr`); absent,
   * they are drained and not reported. @default not reported
   */
  stderrLog?: ChildStderrSource;
  /** Aborts the spawn. */
  signal?: AbortSignal;
}

/** Every option `GatewayChild.spawn` takes. */
export const GATEWAY_CHILD_OPTION_NAMES = ["command", "owner", "limits", "stopTimings", "telemetry", "stderrLog", "signal"] as const satisfies readonly (keyof GatewayChildOptions)[];

/** What `request` may be told beside the message. */
export interface ForwardOptions {
  /**
   * Who sent it: a caller's `notifications/cancelled` reaches the request only through `cancel`
   * with the same scope. Requests without one cannot be cancelled by a caller.
   */
  scope?: object;
  /** The time it has left, when some was spent before (in a pool's queue). @default limits.requestTimeoutMs */
  timeoutMs?: number;
}

/** The reason the gateway gives the child with `notifications/cancelled` on a timeout. */
const TIMEOUT_CANCEL_REASON = "the gateway's request timeout passed";
/** ... and when the caller went away. */
const ABORT_CANCEL_REASON = "the caller went away";
/** ... and when the gateway stopped it for another cause (the drain past its grace). */
const STOPPED_CANCEL_REASON = "the gateway stopped the request";

/**
 * What the child is told when the front aborts a request: the abort's own cause, so that a
 * timeout kept by the front, or a request a legacy session kept after its caller left, never
 * reads as a caller that went away.
 */
function cancelReasonOf(reason: unknown): string {
  if (!(reason instanceof McpTransportError)) return ABORT_CANCEL_REASON;
  if (reason.reason === "TIMEOUT") return TIMEOUT_CANCEL_REASON;
  return reason.reason === "UNAVAILABLE" ? STOPPED_CANCEL_REASON : ABORT_CANCEL_REASON;
}

export class GatewayChild {
  /**
   * Spawns the child. Resolves once it runs (not once it answered anything: probing is the
   * owner's); rejects with UNAVAILABLE when it cannot be started, or the signal's reason.
   */
  static async spawn(options: GatewayChildOptions): Promise<GatewayChild> {
    const child = new GatewayChild(options);
    await child.open(options.signal);
    return child;
  }

  private readonly limits: GatewayChildLimits;
  private readonly forwarded = new ForwardedRequests();
  /** The request timeouts of this child, under one timer (the house's clock, collections/deadlines.ts). */
  private readonly deadlines = new Deadlines<ForwardedRequest>((entry) =>
    this.abandon(entry, TIMEOUT_CANCEL_REASON, requestTimedOut(entry.method, this.limits.requestTimeoutMs)),
  );
  private connection: McpConnection | undefined;
  /** The child's stderr lines toward telemetry, with `stderrLog`; ended with the child. */
  private stderrLog: ChildStderrLog | undefined;
  private childPid = 0;
  private servedCount = 0;
  /** Set when the gateway stops the child: the cause its exit is reported with. */
  private stopCause: ChildExitCause | undefined;
  private gone = false;
  /** How the child ended, once it did. */
  private exit: { exitCode: number | null; signal: string | null } | undefined;
  private closing: Promise<void> | undefined;

  private constructor(private readonly options: GatewayChildOptions) {
    checkNames(options, GATEWAY_CHILD_OPTION_NAMES, "GatewayChild");
    checkCommand(options.command, "GatewayChild");
    checkChildLimits(options.limits, "GatewayChild");
    checkStderrSource(options.stderrLog, "GatewayChild");
    this.limits = { ...DEFAULT_CHILD_LIMITS, ...definedOnly(options.limits) };
  }

  /** The child's process id (its process group's too, on POSIX). */
  get pid(): number {
    return this.childPid;
  }

  /** Requests the child is working on (long-lived ones included). */
  get inFlight(): number {
    return this.forwarded.size;
  }

  /** At `maxInFlight`: a further request would be refused. */
  get atCeiling(): boolean {
    return this.forwarded.size >= this.limits.maxInFlight;
  }

  /** Requests forwarded over the child's life (the gateway's probes excluded): what `recycleAfter` counts. */
  get served(): number {
    return this.servedCount;
  }

  /** Running and not being stopped. */
  get alive(): boolean {
    return !this.gone && this.stopCause === undefined;
  }

  /**
   * Forwards a caller's request, rewritten (id, progress token), and sends what the child says
   * about it to `sink` in the caller's ids. Never throws: every failure reaches the sink, once.
   */
  request(message: JsonRpcRequest, sink: RequestSink, signal?: AbortSignal, options: ForwardOptions = {}): void {
    this.forward(message, sink, signal, options, true);
  }

  /**
   * The gateway's own request (a probe, the legacy handshake of a stateless child): resolves with
   * the child's answer, success or JSON-RPC error alike; rejects with a clean failure.
   */
  call(method: string, params: Record<string, unknown> | undefined, timeoutMs?: number): Promise<JsonRpcResponse> {
    return new Promise<JsonRpcResponse>((resolve, reject) => {
      const message: JsonRpcRequest = params === undefined ? { jsonrpc: "2.0", id: 0, method } : { jsonrpc: "2.0", id: 0, method, params };
      this.forward(message, { message: () => {}, answer: resolve, failed: reject }, undefined, { timeoutMs }, false);
    });
  }

  /**
   * A caller's `notifications/cancelled`: the request it names, among those sent with `scope`,
   * is cancelled in the child (its id rewritten, the caller's reason passed on) and its sink
   * fails with DISCONNECTED. False when no such request is in flight (answered already: the spec
   * says to ignore it then).
   */
  cancel(scope: object, message: JsonRpcNotification): boolean {
    const callerId = message.params?.requestId;
    if (typeof callerId !== "string" && typeof callerId !== "number") return false;
    const entry = this.forwarded.ofCaller(scope, callerId);
    if (!entry) return false;
    this.forwarded.take(entry.childId);
    this.connection?.abandon(entry.childId);
    this.sendBestEffort(withParam(message, "requestId", entry.childId));
    entry.sink.failed(cancelledByCaller(entry.method));
    return true;
  }

  /**
   * Where a request of the child to the client most likely belongs: the sink of the one caller
   * request in flight, when there is exactly one (over stdio a server's request names no request
   * of ours). Undefined otherwise.
   */
  soleCallerSink(): RequestSink | undefined {
    return this.forwarded.soleCallerRequest()?.sink;
  }

  /** Passes a notification to the child as it is (`notifications/initialized`, a client's progress...). */
  notify(message: JsonRpcNotification): void {
    this.sendBestEffort(message);
  }

  /** Answers a request the child sent (in the child's own id): the caller's answer, or the gateway's refusal. */
  respond(message: JsonRpcResponse): void {
    this.sendBestEffort(message);
  }

  /**
   * Stops the child through the stdio transport's close ladder (stdin EOF, SIGTERM, SIGKILL to
   * the group); pending requests fail with DISCONNECTED. Resolves once the whole group is gone.
   * Idempotent; the first cause given is the one reported.
   */
  close(cause: ChildExitCause = "shutdown"): Promise<void> {
    this.stopCause ??= cause;
    this.closing ??= (this.connection?.close() ?? Promise.resolve()).then(() => {
      // A connection that never opened reports nothing; the child is gone all the same.
      if (!this.gone) this.onClosed({});
    });
    return this.closing;
  }

  // ---- spawning -----------------------------------------------------------------------------

  private async open(signal: AbortSignal | undefined): Promise<void> {
    const { stderrLog: source, telemetry } = this.options;
    // The pid is read per line: the transport knows it from the spawn, before the first line can arrive.
    const stderrLog = source && telemetry ? new ChildStderrLog({ source, telemetry, pid: () => transport.pid ?? 0 }) : undefined;
    this.stderrLog = stderrLog;
    const transport = transportFor(this.options.command, this.options.stopTimings, stderrLog?.write);
    const { maxMessageBytes, readTimeoutMs, maxInFlight, requestTimeoutMs } = this.limits;
    try {
      this.connection = await transport.open(
        {
          message: (message) => this.onMessage(message),
          requestFailed: (id, error) => this.onStalled(id, error),
          closed: (ending) => this.onClosed(ending),
        },
        { limits: { maxMessageBytes, readTimeoutMs, maxInFlight, timeoutMs: requestTimeoutMs }, signal },
      );
    } catch (error) {
      // A child that could not start may still have said why on its stderr.
      stderrLog?.end();
      throw error;
    }
    this.childPid = transport.pid ?? 0;
    this.options.telemetry?.childSpawned(this.childPid);
    childStarted(this.options.telemetry);
  }

  // ---- forwarding ---------------------------------------------------------------------------

  private forward(message: JsonRpcRequest, sink: RequestSink, signal: AbortSignal | undefined, options: ForwardOptions, counted: boolean): void {
    const method = message.method;
    if (signal?.aborted) return sink.failed(asCleanFailure(abortReason(signal), "DISCONNECTED", `${method} was abandoned by its caller`, method));
    if (!this.alive || !this.connection) return sink.failed(this.goneFailure());
    if (this.atCeiling) return sink.failed(ceilingPassed(`the server process has maxInFlight (${this.limits.maxInFlight}) requests in flight`, method));
    const childId = this.forwarded.nextId();
    const callerToken = progressTokenOf(message);
    // A listen stream is open by design: it ends when its caller goes (the signal), not on a clock.
    const longLived = method === ModernMethod.subscriptionsListen;
    let onAbort: (() => void) | undefined;
    const entry: ForwardedRequest = {
      childId,
      callerId: message.id,
      callerToken,
      method,
      sink,
      scope: options.scope,
      longLived,
      wantsLogs: asksForLogs(message),
      timeoutMs: Math.max(0, options.timeoutMs ?? this.limits.requestTimeoutMs),
      dueAt: 0,
      clockIndex: -1,
      release: () => {
        this.deadlines.delete(entry);
        if (onAbort) signal!.removeEventListener("abort", onAbort);
      },
    };
    if (!longLived) this.deadlines.set(entry, monotonicNow() + entry.timeoutMs);
    if (signal) {
      onAbort = () => {
        const reason = abortReason(signal);
        this.abandon(entry, cancelReasonOf(reason), asCleanFailure(reason, "DISCONNECTED", `${method} was abandoned by its caller`, method));
      };
      signal.addEventListener("abort", onAbort, { once: true });
    }
    this.forwarded.add(entry);
    if (counted) this.servedCount++;
    const outgoing = requestForChild(message, childId, callerToken === undefined ? undefined : childId);
    this.connection.send(outgoing, longLived ? { longLived: true } : undefined).catch((error: unknown) => {
      // LIMIT (too large) is this request's alone; any other failure means the child is going,
      // and this request fails now rather than wait for the end to be reported.
      if (this.forwarded.take(childId)) {
        sink.failed(error instanceof McpTransportError && error.reason === "LIMIT" ? cleanFailure(error, method) : this.goneFailure(error));
      }
    });
  }

  /** DISCONNECTED for a request that finds the child gone or going: how it ended, once known. */
  private goneFailure(error?: unknown): McpTransportError {
    if (this.exit) return childGone(this.exit.exitCode, this.exit.signal, this.stopCause);
    const transportError = error instanceof McpTransportError ? error : undefined;
    return childGone(transportError?.exitCode ?? null, transportError?.signal ?? null, this.stopCause);
  }

  /** The gateway stops waiting for a request: the child is told (stdio has no stream to close), the sink fails. */
  private abandon(entry: ForwardedRequest, reason: string, error: McpTransportError): void {
    if (!this.forwarded.take(entry.childId)) return;
    this.connection?.abandon(entry.childId);
    this.sendBestEffort({ jsonrpc: "2.0", method: Notification.cancelled, params: { requestId: entry.childId, reason } });
    entry.sink.failed(error);
  }

  /** A notification or answer toward the child; a failure to write is the connection's to report. */
  private sendBestEffort(message: JsonRpcMessage): void {
    if (!this.alive || !this.connection) return;
    this.connection.send(message).catch(() => {});
  }

  // ---- what the child says ------------------------------------------------------------------

  private onMessage(message: JsonRpcMessage): void {
    if (isRequest(message)) return this.options.owner.unrelated(message, this);
    if (isNotification(message)) return this.onNotification(message);
    const entry = this.forwarded.take(message.id);
    // No entry: a late answer (timed out, cancelled) or an id we never sent. Dropped either way.
    if (!entry) return;
    entry.sink.answer(answerForCaller(message, entry.callerId, entry.longLived));
  }

  private onNotification(message: JsonRpcNotification): void {
    const params = message.params;
    if (message.method === Notification.progress) {
      const entry = this.forwarded.get(params?.progressToken);
      // Progress for a token no request holds (finished, or never given) is dropped: the spec
      // lets it reference active requests only, and it must not reach anyone else.
      if (entry?.callerToken !== undefined) entry.sink.message(withParam(message, "progressToken", entry.callerToken));
      return;
    }
    const subscription = this.forwarded.get(subscriptionIdOf(params));
    if (subscription?.longLived) return subscription.sink.message(subscriptionNotificationForCaller(message, subscription.callerId));
    if (message.method === Notification.cancelled) {
      // A server cancels only a listen request, to end that stream (basic/patterns/cancellation).
      const listen = this.forwarded.get(params?.requestId);
      if (listen?.longLived) {
        this.forwarded.take(listen.childId);
        listen.sink.message(withParam(message, "requestId", listen.callerId));
        listen.sink.failed(new McpTransportError("DISCONNECTED", "the server ended the subscription", { method: listen.method }));
        return;
      }
    }
    if (message.method === Notification.message) {
      const owner = this.forwarded.soleLogRequest();
      if (owner) return owner.sink.message(message);
    }
    this.options.owner.unrelated(message, this);
  }

  /** The child stayed silent past `readTimeoutMs` while a request waited: that request times out. */
  private onStalled(id: RequestId, error: McpTransportError): void {
    const entry = this.forwarded.get(id);
    if (entry) this.abandon(entry, TIMEOUT_CANCEL_REASON, cleanFailure(error, entry.method));
  }

  private onClosed(ending: ConnectionEnding): void {
    if (this.gone) return;
    this.gone = true;
    const exitCode = ending.exitCode ?? null;
    const signal = ending.signal ?? null;
    const cause: ChildExitCause = this.stopCause ?? (signal ? "killed" : "crash");
    this.exit = { exitCode, signal };
    this.deadlines.stop();
    // The transport reports the end once the child's stderr ended (or stopped waiting for it).
    this.stderrLog?.end();
    const failure = childGone(exitCode, signal, this.stopCause);
    for (const entry of this.forwarded.takeAll()) entry.sink.failed(failure);
    if (this.childPid) {
      this.options.telemetry?.childExited(this.childPid, cause, exitCode, signal);
      childStopped(this.options.telemetry);
    }
    this.options.owner.exited({ pid: this.childPid, cause, exitCode, signal }, this);
  }
}

function definedOnly<T extends object>(given: Partial<T> | undefined): Partial<T> {
  if (!given) return {};
  return Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) as Partial<T>;
}
