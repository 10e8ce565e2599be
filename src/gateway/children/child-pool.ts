/**
 * The pool: children shared by callers whose requests are self-contained, so that any child can
 * answer any of them.
 *
 * That holds for 2026-07-28 callers by the protocol's design: every request carries its version,
 * capabilities and client identity in `_meta` (basic/index), there is no handshake
 * (basic/lifecycle), and server-to-client questions come back as `input_required` results with a
 * `requestState` the client returns as it is, so a later round may reach another child. It holds
 * for legacy callers only when the gateway is told so (`--legacy stateless`): each child is
 * initialized once by the gateway, and what a session would hold (subscriptions, log level,
 * server-to-client requests) is not kept across requests.
 *
 * One pool serves one era (`PoolEra`). It warms `poolMin` children at start and probes each
 * (pool-probe.ts); a request goes to the least-loaded child; when every child is at its in-flight
 * ceiling the pool grows up to `poolMax`, and past that requests wait in the pool, up to
 * `maxQueued`, their wait counted against their timeout. Once the burst is over the pool shrinks
 * back: a child above `poolMin` that has had no request in flight for `poolIdleMs` is closed (exit
 * cause `idle`), the same close ladder as a recycle; a child with a request in flight (a listen
 * stream included) is never idle. A child is recycled after `recycleAfter` requests: it takes
 * no new ones and is closed once its in-flight ones are done. A child that dies is replaced after
 * a jittered exponential backoff (restart-backoff.ts); several exits before a probe answer within
 * a window are a crash loop (crash-loop.ts), and the pool is not ready until a child answers its
 * probe again.
 *
 * A legacy caller's own `initialize` (stateless mode) is answered by the pool, not forwarded:
 * the children were initialized by the gateway, and a second `initialize` on a running session
 * is outside the lifecycle (basic/lifecycle: initialization MUST be the first interaction). The
 * answer is the `InitializeResult` the first child gave the gateway. Its protocol version is the
 * one the caller asked for when the server is known to support it: a server that supports the
 * requested version MUST answer with it, and only otherwise with another it supports (2025-11-25
 * basic/lifecycle, "Version Negotiation"). Known, not guessed: the server answered `initialize`
 * for that revision with that revision, once, on a child of its own (revision-check.ts); until
 * then, or if it did not, the recorded version is the answer, which the caller may refuse. The
 * children stay initialized at the recorded version (usually the latest legacy one): what the
 * later revisions add reaches such a caller as fields it does not know. `Mcp-Session-Id` is the
 * front's to give or not. The caller's `notifications/initialized` is dropped for the same reason.
 *
 * A server that speaks the legacy era only (most stdio servers on npm today) answers the modern
 * probe with an error that is not a modern one (pool-probe.ts). The era is a property of the
 * server, which a client caches for the process's lifetime (basic/versioning, "Backward
 * Compatibility"), so the modern pool learns it once and then keeps no warm children:
 * - a modern caller's `server/discover` is answered with the error the server gave the probe,
 *   word for word, in the caller's id. It is the server's own answer, not one the gateway made up
 *   (the gateway never rebuilds a server object), and it is what the caller needs to fall back
 *   to a legacy session. No child is spawned for it.
 * - any other modern request (a client that skipped discovery) still reaches a child, spawned on
 *   demand, whose answer passes as it is: the specification leaves that outcome to the server.
 *   Such a child is closed once idle for `idleCloseMs`; a probed child nobody asked for at once.
 * The pool stays ready: its probe was answered, which is all readiness asks of it.
 *
 * A request a child sends to the client is refused toward the child with a JSON-RPC error that
 * says the gateway serves it statelessly: no caller is listening for it. A `ping` is answered,
 * since the gateway is there. Both eras: a 2026-07-28 server MUST NOT send requests at all.
 */
import { McpTransportError } from "../../errors.js";
import {
  JSONRPC_METHOD_NOT_FOUND,
  type JsonRpcErrorObject,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../../protocol/jsonrpc.js";
import { Method, Notification } from "../../protocol/methods.js";
import { ModernMethod } from "../../protocol/modern.js";
import { isLegacyRevision } from "../../protocol/revisions.js";
import { abortReason } from "../../util/abort.js";
import type { GatewayTelemetry } from "../ops/telemetry.js";
import { cancelledByCaller, type Relay, type RequestSink } from "../relay.js";
import type { ChildCommand, ChildStopTimings } from "./child-command.js";
import { describeValue } from "../../util/whole-number.js";
import { checkChildLimits, checkChildStderr, checkCommand, checkCount, checkNames } from "./check-options.js";
import type { ChildStderrMode } from "./child-stderr.js";
import { CrashLoopWatch, type CrashLoopOptions } from "./crash-loop.js";
import { asCleanFailure, ceilingPassed, noChild, requestTimedOut } from "./failures.js";
import { DEFAULT_CHILD_LIMITS, GatewayChild, type ChildExit, type GatewayChildLimits } from "./gateway-child.js";
import { probeChild, type PoolEra } from "./pool-probe.js";
import { serverAcceptsRevision } from "./revision-check.js";
import { RestartBackoff, type BackoffOptions } from "./restart-backoff.js";

export type { PoolEra } from "./pool-probe.js";

export interface ChildPoolOptions {
  /** The stdio server every child of the pool runs. */
  command: ChildCommand;
  /** Which callers the pool serves. */
  era: PoolEra;
  /** Children kept warm. @default 1 */
  poolMin?: number;
  /** The most children at once. @default 4 */
  poolMax?: number;
  /** A child is replaced after this many requests. @default Infinity */
  recycleAfter?: number;
  /**
   * A child above `poolMin` with no request in flight for this long is closed, in ms; 0 (or
   * `Infinity`) never shrinks the pool. Unlike `idleCloseMs`, 0 is "never": it is the gateway's
   * `poolIdleMs`, passed as it is. @default 60_000
   */
  poolIdleMs?: number;
  /** Requests waiting for a child when every child is at its ceiling and the pool is at `poolMax`; past it, LIMIT. @default 256 */
  maxQueued?: number;
  /** The ceilings toward each child, and the request timeout. */
  limits?: Partial<GatewayChildLimits>;
  /** The wait before a dead child is replaced. */
  backoff?: BackoffOptions;
  /** What counts as a crash loop. */
  crashLoop?: CrashLoopOptions;
  /** How long a new child has to answer its probe, in ms. @default limits.requestTimeoutMs */
  probeTimeoutMs?: number;
  /**
   * Modern pool of a legacy-only server (see the module's comment): a child spawned for a request
   * is closed once idle this long, in ms; `Infinity` keeps it. @default 5_000
   */
  idleCloseMs?: number;
  stopTimings?: ChildStopTimings;
  telemetry?: GatewayTelemetry;
  /** Each line of a child's stderr a `child_stderr` report to `telemetry` (child-stderr.ts), or not. @default "log" */
  childStderr?: ChildStderrMode;
  /**
   * A child's notification that belongs to no request (list-changed outside a listen stream, a
   * legacy log message): no caller of a pool can be told, so it goes here, if anywhere.
   */
  onUnrelated?: (message: JsonRpcNotification, pid: number) => void;
}

/** Every option `ChildPool` takes. */
export const CHILD_POOL_OPTION_NAMES = [
  "command",
  "era",
  "poolMin",
  "poolMax",
  "recycleAfter",
  "poolIdleMs",
  "maxQueued",
  "limits",
  "backoff",
  "crashLoop",
  "probeTimeoutMs",
  "idleCloseMs",
  "stopTimings",
  "telemetry",
  "childStderr",
  "onUnrelated",
] as const satisfies readonly (keyof ChildPoolOptions)[];

export const DEFAULT_POOL = Object.freeze({ poolMin: 1, poolMax: 4, recycleAfter: Number.POSITIVE_INFINITY, poolIdleMs: 60_000, maxQueued: 256, idleCloseMs: 5_000 });

/** What the pool holds, for metrics and tests. */
export interface PoolStats {
  /** Children running (starting ones included, retiring ones too). */
  children: number;
  /** Requests in flight in the children. */
  inFlight: number;
  /** Requests waiting in the pool for a child. */
  queued: number;
}

/** The longest delay a Node timer holds; a longer one would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** Why a legacy stateless pool takes no request once its server refused the gateway's initialize. */
const ERA_REFUSED = "the server refused the gateway's initialize: it does not serve legacy callers (it may speak 2026-07-28 only)";

/** Methods a legacy stateless caller is refused by the gateway itself (see `refuseSessionMethod`). */
const STATELESS_REFUSED_METHODS: ReadonlySet<string> = new Set([Method.resourcesSubscribe, Method.resourcesUnsubscribe]);

/** The refusal a child gets for a request to the client (any but ping). */
export const STATELESS_REFUSAL = "the MCP gateway serves this server statelessly: requests from the server to the client are refused";

interface Member {
  child: GatewayChild | undefined;
  /** Answered its probe: takes requests. */
  probed: boolean;
  /**
   * Takes no new request: `recycled` (closed once its in-flight ones are done), or `idle` (closed
   * at once, having none; it still runs until its close ladder ends).
   */
  retiring: false | "recycled" | "idle";
  /** Closes the child once it has had no request for the pool's idle time (`closeWhenIdle`). */
  idleTimer?: NodeJS.Timeout;
}

interface Queued {
  message: JsonRpcRequest;
  sink: RequestSink;
  signal: AbortSignal | undefined;
  scope: object | undefined;
  /** Monotonic ms it arrived: the time it waits counts against its timeout. */
  arrived: number;
  release: () => void;
}

export class ChildPool implements Relay {
  private readonly era: PoolEra;
  private readonly poolMin: number;
  private readonly poolMax: number;
  private readonly recycleAfter: number;
  /** `poolIdleMs`, with "never" as `Infinity`. */
  private readonly poolIdleMs: number;
  private readonly maxQueued: number;
  private readonly requestTimeoutMs: number;
  private readonly members = new Set<Member>();
  private readonly queue: Queued[] = [];
  private readonly backoff: RestartBackoff;
  private readonly crashLoop: CrashLoopWatch;
  private readonly restartTimers = new Set<NodeJS.Timeout>();
  private readonly spawning = new Set<Promise<void>>();
  /** Children that exited, while the rest of their process group is stopped: `close()` waits for them too. */
  private readonly stopping = new Set<Promise<void>>();
  private readonly readyListeners = new Set<(ready: boolean) => void>();
  private recordedInitialize: Record<string, unknown> | undefined;
  /** Legacy stateless: whether the server accepts each revision callers asked for (revision-check.ts), asked once each. */
  private readonly revisionsAccepted = new Map<string, Promise<boolean | undefined>>();
  /** Children of those checks while they run: stopped with the pool. */
  private readonly checking = new Set<GatewayChild>();
  /** A child answered the probe with a refusal of the era: see `refuseEra`. */
  private eraRefused = false;
  /** Modern pool: the server's answer to the probe when it speaks the legacy era only. */
  private discoverRefusal: JsonRpcErrorObject | undefined;
  private readonly idleCloseMs: number;
  private warmed = false;
  private isReady = false;
  /** Whether the listeners last heard of the pool while it crash-looped (their reason for "not ready" changes with it). */
  private reportedLooping = false;
  private closed = false;
  private closing: Promise<void> | undefined;
  private startWaiters: (() => void)[] = [];

  constructor(private readonly options: ChildPoolOptions) {
    const where = "ChildPool";
    checkNames(options, CHILD_POOL_OPTION_NAMES, where);
    checkCommand(options.command, where);
    if (options.era !== "modern" && options.era !== "legacy-stateless") {
      throw new TypeError(`${where}: "era" must be "modern" or "legacy-stateless", got ${describeValue(options.era)}`);
    }
    checkChildLimits(options.limits, where);
    checkChildStderr(options.childStderr, where);
    checkCount(options.poolMin, "poolMin", where, 0, DEFAULT_POOL.poolMin);
    checkCount(options.poolMax, "poolMax", where, 1, DEFAULT_POOL.poolMax);
    checkCount(options.recycleAfter, "recycleAfter", where, 1, DEFAULT_POOL.recycleAfter);
    checkCount(options.poolIdleMs, "poolIdleMs", where, 0, DEFAULT_POOL.poolIdleMs);
    checkCount(options.maxQueued, "maxQueued", where, 0, DEFAULT_POOL.maxQueued);
    checkCount(options.probeTimeoutMs, "probeTimeoutMs", where, 1, DEFAULT_CHILD_LIMITS.requestTimeoutMs);
    checkCount(options.idleCloseMs, "idleCloseMs", where, 0, DEFAULT_POOL.idleCloseMs);
    if (options.poolMin !== undefined && options.poolMax !== undefined && options.poolMin > options.poolMax) {
      throw new TypeError(`${where}: "poolMin" (${options.poolMin}) is larger than "poolMax" (${options.poolMax}); give poolMax at least poolMin`);
    }
    this.era = options.era;
    this.poolMin = options.poolMin ?? DEFAULT_POOL.poolMin;
    this.poolMax = Math.max(this.poolMin, options.poolMax ?? DEFAULT_POOL.poolMax);
    this.recycleAfter = options.recycleAfter ?? DEFAULT_POOL.recycleAfter;
    this.poolIdleMs = options.poolIdleMs === 0 ? Number.POSITIVE_INFINITY : (options.poolIdleMs ?? DEFAULT_POOL.poolIdleMs);
    this.maxQueued = options.maxQueued ?? DEFAULT_POOL.maxQueued;
    this.idleCloseMs = options.idleCloseMs ?? DEFAULT_POOL.idleCloseMs;
    this.requestTimeoutMs = options.limits?.requestTimeoutMs ?? DEFAULT_CHILD_LIMITS.requestTimeoutMs;
    this.backoff = new RestartBackoff(options.backoff);
    this.crashLoop = new CrashLoopWatch(options.crashLoop);
  }

  /**
   * Warms `poolMin` children and probes each. Resolves once they all answered (the pool is then
   * ready), or once a crash loop is seen (not ready; the pool keeps trying at the backoff's pace
   * and becomes ready when a child answers), or once a legacy child refused the gateway's
   * `initialize` (not ready, for good: `refusedEra`), or at `close()`. Never rejects.
   */
  start(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const settled = new Promise<void>((resolve) => this.startWaiters.push(resolve));
    while (this.capacity() < this.poolMin) this.spawnOne();
    this.markWarmed();
    this.updateReady();
    return settled;
  }

  /** Warmed and probed, not crash-looping, not closed: what `/readyz` says. */
  get ready(): boolean {
    return this.isReady;
  }

  /** Calls `listener` each time `ready` changes, or the reason it is not (`crashLooping`); returns what removes it. */
  onReadyChange(listener: (ready: boolean) => void): () => void {
    this.readyListeners.add(listener);
    return () => this.readyListeners.delete(listener);
  }

  /** Legacy stateless: the server refused the gateway's `initialize`; the pool spawns no more and is not ready. */
  get refusedEra(): boolean {
    return this.eraRefused;
  }

  /** Modern pool: the server answered the probe as one that speaks the legacy era only; no child is kept warm. */
  get legacyOnly(): boolean {
    return this.discoverRefusal !== undefined;
  }

  /** Children exit before they answer their probe, again and again: the pool is not ready until one answers. */
  get crashLooping(): boolean {
    return this.crashLoop.looping;
  }

  get stats(): PoolStats {
    let inFlight = 0;
    for (const member of this.members) inFlight += member.child?.inFlight ?? 0;
    return { children: this.members.size, inFlight, queued: this.queue.length };
  }

  /** The process ids of the children running now. */
  get pids(): number[] {
    return [...this.members].flatMap((member) => (member.child ? [member.child.pid] : []));
  }

  /** Legacy stateless pool: the `InitializeResult` the children gave the gateway, which answers callers' `initialize`. */
  get initializeResult(): Readonly<Record<string, unknown>> | undefined {
    return this.recordedInitialize;
  }

  /**
   * A relay for one caller of the pool: the same children, and a `notifications/cancelled` given
   * to it reaches only requests sent through it. It tells callers apart only if each caller has
   * its own: callers sharing one relay share the scope of their ids (caller-relays.ts).
   */
  caller(): Relay {
    const scope = {};
    return {
      request: (message, sink, signal) => this.dispatch(message, sink, signal, scope),
      notification: (message) => {
        if (message.method !== Notification.cancelled) return this.notification(message);
        if (this.cancelQueued(scope, message)) return;
        for (const member of this.members) if (member.child?.cancel(scope, message)) return;
      },
      response: (message) => this.response(message),
    };
  }

  /** Forwards a request to the least-loaded child (see the module's comment). Never throws: every outcome reaches `sink`. */
  request(message: JsonRpcRequest, sink: RequestSink, signal: AbortSignal): void {
    this.dispatch(message, sink, signal, undefined);
  }

  /**
   * A caller's notification. Through the pool itself none is forwarded: a `notifications/cancelled`
   * cannot be told apart between callers here (use `caller()`, or abort the request's signal), and
   * `notifications/initialized` belongs to the gateway's own handshake with each child.
   */
  notification(_message: JsonRpcNotification): void {}

  /** Nothing of a pool waits for a caller's answer: children's requests are refused. Dropped. */
  response(_message: JsonRpcResponse): void {}

  /** Stops every child through the close ladder, fails what waits, and resolves once every child is gone. */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  // ---- requests -----------------------------------------------------------------------------

  private dispatch(message: JsonRpcRequest, sink: RequestSink, signal: AbortSignal | undefined, scope: object | undefined): void {
    if (this.closed) return sink.failed(noChild("the gateway is shutting down", message.method));
    if (signal?.aborted) return sink.failed(asCleanFailure(abortReason(signal), "DISCONNECTED", `${message.method} was abandoned by its caller`, message.method));
    if (this.answerInitialize(message, sink)) return;
    if (this.answerDiscover(message, sink)) return;
    if (this.refuseSessionMethod(message, sink)) return;
    if (this.eraRefused) return sink.failed(noChild(ERA_REFUSED, message.method));
    const member = this.pick();
    if (member) return this.forward(member, message, sink, signal, scope, this.requestTimeoutMs);
    if (this.crashLoop.looping) return sink.failed(noChild("the server process keeps exiting before it answers (crash loop)", message.method));
    if (this.queue.length >= this.maxQueued) {
      return sink.failed(ceilingPassed(`every server process is busy and ${this.maxQueued} requests already wait (maxQueued)`, message.method));
    }
    this.enqueue(message, sink, signal, scope);
    this.growIfNeeded();
  }

  /** Legacy stateless: a caller's `initialize` is answered from the recorded result, in its revision when the server takes it (see the module's comment). */
  private answerInitialize(message: JsonRpcRequest, sink: RequestSink): boolean {
    const recorded = this.recordedInitialize;
    if (this.era !== "legacy-stateless" || message.method !== Method.initialize || !recorded) return false;
    const asked = message.params?.protocolVersion;
    if (asked === recorded.protocolVersion || !isLegacyRevision(asked)) {
      sink.answer({ jsonrpc: "2.0", id: message.id, result: recorded });
      return true;
    }
    void this.acceptsRevision(asked).then((accepted) => {
      if (this.closed) return sink.failed(noChild("the gateway is shutting down", message.method));
      sink.answer({ jsonrpc: "2.0", id: message.id, result: accepted === true ? { ...recorded, protocolVersion: asked } : recorded });
    });
    return true;
  }

  /** Whether the server accepts `revision`, asked once per revision on a child of its own (revision-check.ts). */
  private acceptsRevision(revision: string): Promise<boolean | undefined> {
    let verdict = this.revisionsAccepted.get(revision);
    if (verdict === undefined) {
      const { command, limits, stopTimings, telemetry } = this.options;
      let checked: GatewayChild | undefined;
      verdict = serverAcceptsRevision(revision, {
        command,
        limits,
        stopTimings,
        telemetry,
        timeoutMs: this.options.probeTimeoutMs ?? this.requestTimeoutMs,
        running: (child) => {
          checked = child;
          this.checking.add(child);
          if (this.closed) void child.close("shutdown");
        },
      }).then((accepted) => {
        if (checked) this.checking.delete(checked);
        // Not known (the check's child died or stayed silent): the next caller asks again.
        if (accepted === undefined) this.revisionsAccepted.delete(revision);
        return accepted;
      });
      this.revisionsAccepted.set(revision, verdict);
    }
    return verdict;
  }

  /** Modern pool of a legacy-only server: `server/discover` is answered with the server's own refusal (see the module's comment). */
  private answerDiscover(message: JsonRpcRequest, sink: RequestSink): boolean {
    if (this.era !== "modern" || message.method !== ModernMethod.discover || this.discoverRefusal === undefined) return false;
    sink.answer({ jsonrpc: "2.0", id: message.id, error: { ...this.discoverRefusal } });
    return true;
  }

  /**
   * Legacy stateless: `resources/subscribe` and `resources/unsubscribe` are answered with an
   * error by the gateway. A subscription lives in one child, and its updates would reach no
   * caller (there is no session to carry them), so a success would be a promise never kept.
   */
  private refuseSessionMethod(message: JsonRpcRequest, sink: RequestSink): boolean {
    if (this.era !== "legacy-stateless" || !STATELESS_REFUSED_METHODS.has(message.method)) return false;
    sink.answer({
      jsonrpc: "2.0",
      id: message.id,
      error: { code: JSONRPC_METHOD_NOT_FOUND, message: `${message.method} needs a session, and the MCP gateway serves this server statelessly (--legacy session keeps one)` },
    });
    return true;
  }

  /** The least-loaded child that takes requests, if any is below its ceiling. */
  private pick(): Member | undefined {
    let best: Member | undefined;
    for (const member of this.members) {
      const child = member.child;
      if (!member.probed || member.retiring || !child?.alive || child.atCeiling) continue;
      if (!best || child.inFlight < best.child!.inFlight) best = member;
    }
    return best;
  }

  private forward(member: Member, message: JsonRpcRequest, sink: RequestSink, signal: AbortSignal | undefined, scope: object | undefined, timeoutMs: number): void {
    const child = member.child!;
    // Each settled request frees a slot: the queue moves, a retiring child may now close, and an
    // idle one starts its idle time.
    const settled = () => {
      this.closeIfRetired(member);
      this.drainQueue();
      this.closeWhenIdle(member, this.idleDelay(false));
    };
    clearTimeout(member.idleTimer);
    child.request(
      message,
      {
        message: (m) => sink.message(m),
        answer: (response) => {
          sink.answer(response);
          settled();
        },
        failed: (error) => {
          sink.failed(error);
          settled();
        },
      },
      signal,
      { scope, timeoutMs },
    );
    if (child.served >= this.recycleAfter && !member.retiring) this.retire(member);
  }

  private enqueue(message: JsonRpcRequest, sink: RequestSink, signal: AbortSignal | undefined, scope: object | undefined): void {
    let onAbort: (() => void) | undefined;
    const entry: Queued = {
      message,
      sink,
      signal,
      scope,
      arrived: performance.now(),
      release: () => {
        clearTimeout(timer);
        if (onAbort) signal!.removeEventListener("abort", onAbort);
      },
    };
    const timer = setTimeout(() => {
      if (this.unqueue(entry)) sink.failed(requestTimedOut(message.method, this.requestTimeoutMs));
    }, this.requestTimeoutMs);
    if (signal) {
      onAbort = () => {
        if (this.unqueue(entry)) sink.failed(asCleanFailure(abortReason(signal), "DISCONNECTED", `${message.method} was abandoned by its caller`, message.method));
      };
      signal.addEventListener("abort", onAbort, { once: true });
    }
    this.queue.push(entry);
  }

  private unqueue(entry: Queued): boolean {
    const index = this.queue.indexOf(entry);
    if (index < 0) return false;
    this.queue.splice(index, 1);
    entry.release();
    return true;
  }

  /** A caller's cancel of a request still waiting in the pool: it leaves the queue, its sink fails. */
  private cancelQueued(scope: object, message: JsonRpcNotification): boolean {
    const requestId = message.params?.requestId;
    const entry = this.queue.find((queued) => queued.scope === scope && queued.message.id === requestId);
    if (!entry || !this.unqueue(entry)) return false;
    entry.sink.failed(cancelledByCaller(entry.message.method));
    return true;
  }

  private drainQueue(): void {
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      if (this.answerInitialize(head.message, head.sink) || this.answerDiscover(head.message, head.sink)) {
        this.unqueue(head);
        continue;
      }
      const member = this.pick();
      if (!member) return this.growIfNeeded();
      this.unqueue(head);
      const left = this.requestTimeoutMs - (performance.now() - head.arrived);
      this.forward(member, head.message, head.sink, head.signal, head.scope, left);
    }
  }

  /** Fails every waiting request (the pool closes, or no child can be started). */
  private failQueue(error: (method: string) => McpTransportError): void {
    for (const entry of this.queue.splice(0)) {
      entry.release();
      entry.sink.failed(error(entry.message.method));
    }
  }

  // ---- children -----------------------------------------------------------------------------

  /** Children running or starting that take requests, and restarts scheduled. */
  private capacity(): number {
    let count = this.restartTimers.size;
    for (const member of this.members) if (!member.retiring) count++;
    return count;
  }

  /**
   * Requests wait and no child is on its way: one more, up to `poolMax`. One at a time, so a
   * burst that one new child can absorb does not start `poolMax` of them; each that answers its
   * probe takes from the queue, and the next is started if requests still wait. A child closing
   * for being idle still runs (and holds its memory) until its close ladder ends, so it counts
   * against `poolMax` until it exited: the memory limit of deploy/ is sized for `poolMax`.
   */
  private growIfNeeded(): void {
    if (this.queue.length === 0 || this.closed || this.crashLoop.looping || this.eraRefused) return;
    let starting = this.restartTimers.size;
    let closingIdle = 0;
    for (const member of this.members) {
      if (!member.probed && !member.retiring) starting++;
      if (member.retiring === "idle") closingIdle++;
    }
    if (starting === 0 && this.capacity() + closingIdle < this.poolMax) this.spawnOne();
  }

  private spawnOne(): void {
    const member: Member = { child: undefined, probed: false, retiring: false };
    this.members.add(member);
    const spawning = this.startMember(member).finally(() => this.spawning.delete(spawning));
    this.spawning.add(spawning);
  }

  private async startMember(member: Member): Promise<void> {
    const { command, limits, stopTimings, telemetry, childStderr } = this.options;
    let child: GatewayChild;
    try {
      child = await GatewayChild.spawn({
        command,
        limits,
        stopTimings,
        telemetry,
        stderrLog: childStderr === "drop" ? undefined : { era: this.era === "modern" ? "modern" : "legacy" },
        owner: {
          unrelated: (message, from) => this.fromChild(message, from),
          exited: (exit) => this.onExit(member, exit),
        },
      });
    } catch (error) {
      // Not started at all (no such command, say): like an exit before the probe. No process
      // means no child_spawned or child_exited line, so this note is the only place an operator
      // learns why the pool crash-loops. The message is the stdio transport's own: it names the
      // command, never its arguments or environment.
      const code = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
      this.options.telemetry?.note("child_spawn_failed", { era: this.era, ...(code === undefined ? {} : { code }), message: (error as Error).message });
      this.members.delete(member);
      this.childLost(member);
      return;
    }
    member.child = child;
    if (this.closed) {
      await child.close("shutdown");
      return;
    }
    try {
      const { initializeResult, discoverRefusal } = await probeChild(child, this.era, this.options.probeTimeoutMs ?? this.requestTimeoutMs);
      if (!child.alive) return;
      this.recordedInitialize ??= initializeResult;
      if (discoverRefusal !== undefined && this.discoverRefusal === undefined) {
        this.discoverRefusal = discoverRefusal;
        this.options.telemetry?.note("era_legacy_only", { era: this.era, code: discoverRefusal.code });
      }
      member.probed = true;
      this.backoff.reset();
      this.crashLoop.probed();
      this.markWarmed();
      this.updateReady();
      this.drainQueue();
      // Warmed for nobody: a legacy-only server's child that no request took goes at once; a
      // child started for a burst that ended before it answered starts its idle time.
      this.closeWhenIdle(member, this.idleDelay(true));
    } catch (error) {
      if (error instanceof McpTransportError && error.kind === "server_error") {
        // It answered, and refused the era: starting it again would change nothing.
        this.refuseEra();
        await child.close("shutdown");
        return;
      }
      // Silent: it cannot serve. Its exit is then counted as one before the probe.
      await child.close("crash");
    }
  }

  /**
   * A legacy child refused the gateway's `initialize` (a server that speaks 2026-07-28 only):
   * the pool stops spawning, is not ready, and fails requests with UNAVAILABLE, rather than
   * restart a child that will refuse again, forever.
   */
  private refuseEra(): void {
    if (this.eraRefused) return;
    this.eraRefused = true;
    this.options.telemetry?.note("era_refused", { era: this.era });
    for (const timer of this.restartTimers) clearTimeout(timer);
    this.restartTimers.clear();
    this.failQueue((method) => noChild(ERA_REFUSED, method));
    this.updateReady();
  }

  /**
   * How long a child with nothing in flight is kept above the children kept warm: `poolIdleMs`;
   * for a legacy-only server, whose modern pool keeps none (see the module's comment),
   * `idleCloseMs`, or nothing at all for a child just probed, which no caller asked for.
   */
  private idleDelay(justProbed: boolean): number {
    if (this.discoverRefusal === undefined) return this.poolIdleMs;
    return justProbed ? 0 : this.idleCloseMs;
  }

  /**
   * Closes the member's child (cause `idle`, through the close ladder) once it has had no request
   * in flight for `delayMs`, unless the pool would then keep fewer than `warmTarget()` children.
   * A request forwarded to it in the meantime clears the timer; its settling starts it again.
   */
  private closeWhenIdle(member: Member, delayMs: number): void {
    const child = member.child;
    if (this.closed || member.retiring || !child || child.inFlight > 0) return;
    clearTimeout(member.idleTimer);
    const close = (): void => {
      // At the floor it stays, and needs no timer again: the pool grows past the floor only when
      // no child can take a request, so this one gets one first, whose settling starts it anew.
      if (this.closed || member.retiring || child.inFlight > 0 || this.capacity() <= this.warmTarget()) return;
      member.retiring = "idle";
      void child.close("idle");
    };
    if (delayMs === 0) return close();
    // Infinity (or past what a timer holds) means: never closed for being idle.
    if (delayMs > MAX_TIMER_MS) return;
    member.idleTimer = setTimeout(close, delayMs);
    member.idleTimer.unref();
  }

  private onExit(member: Member, exit: ChildExit): void {
    if (this.eraRefused) {
      this.members.delete(member);
      const stopped = member.child?.close(exit.cause).finally(() => this.stopping.delete(stopped!));
      if (stopped) this.stopping.add(stopped);
      return;
    }
    this.members.delete(member);
    clearTimeout(member.idleTimer);
    // The direct child is gone; a grandchild in its group may not be yet. close() waits for both.
    const stopped = member.child?.close(exit.cause).finally(() => this.stopping.delete(stopped!));
    if (stopped) this.stopping.add(stopped);
    if (this.closed) return;
    if (exit.cause === "recycled" || exit.cause === "idle") {
      this.ensureMinimum();
      // It counted against poolMax while it closed: requests that waited for that room get it now.
      this.growIfNeeded();
      return;
    }
    this.childLost(member);
  }

  /** A child died or never started: count it, maybe call it a loop, and replace it after the backoff. */
  private childLost(member: Member): void {
    if (this.closed) return;
    const wasLooping = this.crashLoop.looping;
    // Told once, when the loop begins; each later exit only pushes the next try back.
    if (!member.probed && this.crashLoop.unprobedExit() && !wasLooping) {
      this.options.telemetry?.note("crash_loop", { era: this.era });
      this.updateReady();
      this.failQueue((method) => noChild("the server process keeps exiting before it answers (crash loop)", method));
      this.settleStart();
    }
    if (this.capacity() < Math.max(this.warmTarget(), this.queue.length > 0 ? 1 : 0)) {
      const timer = setTimeout(() => {
        this.restartTimers.delete(timer);
        if (!this.closed) this.spawnOne();
      }, this.backoff.next());
      this.restartTimers.add(timer);
    }
  }

  /** After a recycle: the pool keeps `poolMin` children taking requests. */
  private ensureMinimum(): void {
    while (!this.closed && !this.eraRefused && this.capacity() < this.warmTarget()) this.spawnOne();
  }

  /** Children kept warm: `poolMin`, or none for a server that speaks the legacy era only. */
  private warmTarget(): number {
    return this.discoverRefusal === undefined ? this.poolMin : 0;
  }

  private retire(member: Member): void {
    member.retiring = "recycled";
    this.ensureMinimum();
    this.growIfNeeded();
    this.closeIfRetired(member);
  }

  private closeIfRetired(member: Member): void {
    if (member.retiring === "recycled" && member.child && member.child.inFlight === 0) void member.child.close("recycled");
  }

  /** What a child says outside any request: requests are refused (ping answered), notifications go to `onUnrelated`. */
  private fromChild(message: JsonRpcRequest | JsonRpcNotification, child: GatewayChild): void {
    if (!("id" in message)) {
      this.options.onUnrelated?.(message, child.pid);
      return;
    }
    if (message.method === Method.ping) {
      child.respond({ jsonrpc: "2.0", id: message.id, result: {} });
      return;
    }
    child.respond({ jsonrpc: "2.0", id: message.id, error: { code: JSONRPC_METHOD_NOT_FOUND, message: STATELESS_REFUSAL } });
  }

  // ---- readiness ----------------------------------------------------------------------------

  private markWarmed(): void {
    if (this.warmed) return;
    let probed = 0;
    for (const member of this.members) if (member.probed) probed++;
    // A legacy-only server is known once one probe was answered; it keeps no warm children.
    if (probed < (this.discoverRefusal === undefined ? this.poolMin : 1)) return;
    this.warmed = true;
  }

  private updateReady(): void {
    const ready = this.warmed && !this.closed && !this.crashLoop.looping && !this.eraRefused;
    const looping = this.crashLoop.looping;
    if (ready !== this.isReady) {
      this.isReady = ready;
      this.reportedLooping = looping;
      this.options.telemetry?.note(ready ? "pool_ready" : "pool_not_ready", { era: this.era });
      for (const listener of this.readyListeners) listener(ready);
    } else if (looping !== this.reportedLooping) {
      // Still not ready, for another reason: a pool that never warmed begins or ends a crash loop.
      this.reportedLooping = looping;
      for (const listener of this.readyListeners) listener(ready);
    }
    this.settleStart();
  }

  /** `start()` resolves once the pool is ready, crash-looping or closed. */
  private settleStart(): void {
    if (!this.isReady && !this.crashLoop.looping && !this.closed && !this.eraRefused) return;
    for (const resolve of this.startWaiters.splice(0)) resolve();
  }

  private async closeOnce(): Promise<void> {
    this.closed = true;
    for (const member of this.members) clearTimeout(member.idleTimer);
    for (const timer of this.restartTimers) clearTimeout(timer);
    this.restartTimers.clear();
    this.failQueue((method) => noChild("the gateway is shutting down", method));
    this.updateReady();
    await Promise.all([
      ...[...this.members].map((member) => member.child?.close("shutdown")),
      ...[...this.checking].map((child) => child.close("shutdown")),
      ...this.spawning,
      ...this.revisionsAccepted.values(),
    ]);
    // Children that started while closing were closed by their own start; those that exited
    // are still having their groups stopped.
    await Promise.all([...[...this.members].map((member) => member.child?.close("shutdown")), ...this.stopping]);
  }
}
