/**
 * The one owner of a client's connection to its server: it opens the transport, settles the era
 * (the probe, then the handshake or discovery), reconnects when asked to, and answers `request()`
 * and `notify()` for the current session. `McpClient` is the typed API on top of it.
 *
 * A session becomes the current one only once its era is settled: sessions the probe opens and
 * drops are never watched, so their end is not the connection's. After that, the end of the
 * current session is the end of the connection, or the start of a reconnection.
 */
import { McpTransportError, asMcpTransportError } from "../errors.js";
import { Notification } from "../protocol/methods.js";
import { loadSchemas, schemas } from "../protocol/schema-registry.js";
import { matching } from "./validate.js";
import { TransportSession, type RequestOptions } from "../session/session.js";
import type { ConnectionEnding, McpTransport } from "../transport/transport.js";
import { abortReason, delay, raceAbort } from "../util/abort.js";
import { deadlineAfterLogins } from "../util/user-waits.js";
import { checkWholeNumber } from "../util/whole-number.js";
import type { ClientOptions } from "./client-options.js";
import type { EraName, ProtocolEra } from "./era.js";
import { DEFAULT_PROBE_TIMEOUT_MS, negotiateEra } from "./era-negotiation.js";
import { elicitationModes, type UrlElicitationHandler } from "./elicitation.js";
import { ElicitationCompletions, type ElicitationCompletion } from "./elicitation-completions.js";
import { resolveHandlers } from "./handler-options.js";
import { capabilitiesFor, installHandlers, type ClientHandlers } from "./handlers.js";
import { ModernEra } from "./modern-era.js";
import { reconnectDelay, resolveReconnect, type ReconnectPolicy } from "./reconnect.js";
import { Subscriptions, type SubscriptionFilter } from "./subscriptions.js";
import { afterUrlElicitations, isUrlElicitationRequired } from "./url-elicitation.js";
import { withTasksExtension } from "./tasks/task-support.js";
import { TaskMethod } from "../protocol/tasks.js";
import { PACKAGE_VERSION } from "../package-version.js";


/** A listener the user registered: it follows the connection from session to session. */
interface ListenerRegistration {
  method: string;
  listener: (params: Record<string, unknown>) => void;
  /** Stops the listener on the session it is currently registered with. */
  stop: () => void;
}

export class ServerConnection {
  private current: TransportSession;
  /** The sessions the negotiation opened, while it runs: a login on any of them holds the opening's deadline. */
  private readonly negotiating = new Set<TransportSession>();
  private protocol: ProtocolEra | undefined;
  /** The session to use first: the one given, until it is taken. */
  private unopened: TransportSession | undefined;
  private readonly subscriptions = new Subscriptions();
  private reconnection: Promise<void> | undefined;
  private readonly reconnectPolicy: ReconnectPolicy | undefined;
  private readonly probeTimeoutMs: number;
  private readonly registrations = new Set<ListenerRegistration>();
  /** Told when a reconnection succeeded, before any request waiting for it goes on. */
  private readonly reconnectListeners = new Set<() => void>();
  /** The user's handlers, checked and in one form (see handler-options.ts). */
  private readonly handlers: ClientHandlers;
  /** The handler of URL-mode elicitations, for a -32042 (the handlers are fixed at connect time). */
  private readonly urlHandler: UrlElicitationHandler | undefined;
  /** The URL elicitations handed to a handler, until the server says each is complete. */
  private readonly completions = new ElicitationCompletions();
  /** Aborted by close(): stops a reconnection in progress. */
  private readonly closing = new AbortController();
  private markEnded!: (ending: ConnectionEnding) => void;
  private readonly finalEnding: Promise<ConnectionEnding> = new Promise((resolve) => (this.markEnded = resolve));

  /** `first` is a session not yet open; it is the first one opened. */
  constructor(
    first: TransportSession,
    private readonly options: ClientOptions,
  ) {
    this.reconnectPolicy = resolveReconnect(options.reconnect);
    this.probeTimeoutMs =
      options.probeTimeoutMs === undefined
        ? DEFAULT_PROBE_TIMEOUT_MS
        : checkWholeNumber(options.probeTimeoutMs, "probeTimeoutMs", "options", { min: 1, defaultValue: DEFAULT_PROBE_TIMEOUT_MS });
    this.handlers = resolveHandlers(options.handlers, options.capabilities);
    this.urlHandler = elicitationModes(this.handlers.elicitation).url;
    this.current = first;
    this.unopened = first;
    this.onNotification(Notification.elicitationComplete, (params) => {
      const complete = matching(schemas().ElicitationCompleteParamsSchema, params);
      if (complete !== undefined) this.completions.notified(complete.elicitationId);
    });
  }

  /** The session of the current connection (a new one after each reconnection). */
  get session(): TransportSession {
    return this.current;
  }

  /** The era settled with the server. */
  get era(): ProtocolEra {
    if (!this.protocol) throw new Error("the client is not connected yet: await connect() first");
    return this.protocol;
  }

  /** Settles with how the connection finally ended (after any reconnection attempts). */
  get ended(): Promise<ConnectionEnding> {
    return this.finalEnding;
  }

  /**
   * Opens the connection and settles the protocol, all within `timeoutMs` and `signal`. On any
   * failure everything opened is closed before the error is thrown.
   */
  async open(): Promise<void> {
    const first = this.current;
    const timeoutMs = first.limits.timeoutMs;
    // The whole opening within timeoutMs; a login waiting for a person stops the count, and the
    // work after it gets the whole of timeoutMs again (the session's own deadlines stand still).
    const deadline = new AbortController();
    const timer = deadlineAfterLogins(
      timeoutMs,
      (ms) => Math.max(...[this.current, ...this.negotiating].map((session) => session.loginPostponement(ms))),
      () => deadline.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
    );
    const signal = this.options.signal ? AbortSignal.any([this.options.signal, deadline.signal]) : deadline.signal;
    try {
      await this.negotiate(signal, this.options.era);
    } catch (error) {
      await first.close();
      this.markEnded({ error: error instanceof McpTransportError ? error : undefined });
      if (deadline.signal.aborted && !this.options.signal?.aborted) {
        // A server that hangs at start often said why on stderr (a missing key, say): the tail
        // goes with this failure as with every other of a stdio connection.
        const stderrTail = stderrTailOf(first.transport);
        throw new McpTransportError("TIMEOUT", `connecting timed out after ${timeoutMs} ms (${first.description})`, {
          timeoutMs,
          cause: error,
          ...(stderrTail === undefined ? {} : { stderrTail }),
        });
      }
      if (signal.aborted) throw abortReason(signal);
      throw error;
    } finally {
      timer.clear();
      this.negotiating.clear();
    }
    this.watchEnd(this.current);
  }

  /**
   * One request the way the era sends it, once any reconnection under way is done; sent once more
   * after the URL elicitations a -32042 asked for (see url-elicitation.ts). What a -32042 needs
   * is made only when one comes: every other request goes to the era with nothing around it but
   * the check of its failure.
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions & { label: string; urlElicitationRetry?: boolean },
  ): Promise<Record<string, unknown>> {
    let sent: Promise<Record<string, unknown>>;
    try {
      this.era.checkMethod(method, options.label);
      sent = this.send(method, params, options);
    } catch (error) {
      return Promise.reject(error);
    }
    return sent.catch((error: unknown) => {
      // A -32042 from tasks/result is the error of the request that made the task, not of
      // tasks/result: "For tasks in a terminal status, receivers MUST return from tasks/result
      // exactly what the underlying request would have returned" (basic/utilities/tasks), and a
      // terminal task never changes, so sending tasks/result again can only fail again. The
      // request to send again is that one (see ToolTasks.follow).
      if (!isUrlElicitationRequired(error) || method === TaskMethod.result) throw error;
      // The request is itself the one repeat of a -32042 that a layer above made (SentOptions).
      if (options.urlElicitationRetry === false) throw error;
      return this.afterUrlElicitations(error, () => this.send(method, params, options), { method, label: options.label, signal: options.signal });
    });
  }

  /**
   * After a request failed with `error`, a -32042: runs the URL elicitations it lists through the
   * URL handler, then `attempt` once (see url-elicitation.ts). `method` is the refused request's.
   */
  afterUrlElicitations<T>(error: McpTransportError, attempt: () => Promise<T>, request: { method: string; label: string; signal?: AbortSignal }): Promise<T> {
    return afterUrlElicitations(error, attempt, {
      ...request,
      handler: this.urlHandler,
      completions: this.completions,
      closing: this.closing.signal,
      where: () => this.current.description,
    });
  }

  /** One sending of a request by the era, after any reconnection under way. */
  private send(method: string, params: Record<string, unknown> | undefined, options: RequestOptions & { label: string }): Promise<Record<string, unknown>> {
    if (!this.reconnection) return this.era.request(method, params, options);
    return this.waitForReconnection(options).then(() => this.era.request(method, params, options));
  }

  /** The URL elicitations this client handled that the server says are complete; returns the function that stops it. */
  onElicitationComplete(listener: (completion: ElicitationCompletion) => void): () => void {
    return this.completions.onComplete(listener);
  }

  /** A notification to the server, after the era allows it and once any reconnection under way is done. */
  async notify(method: string, label: string, params?: Record<string, unknown>): Promise<void> {
    this.era.checkMethod(method, label);
    if (this.reconnection) await this.waitForReconnection({ label });
    await this.era.notify(method, params);
  }

  /** Any server notification by method, on this session and every later one; returns the function that stops it. */
  onNotification(method: string, listener: (params: Record<string, unknown>) => void): () => void {
    const registration: ListenerRegistration = { method, listener, stop: this.current.onNotification(method, listener) };
    this.registrations.add(registration);
    return () => {
      registration.stop();
      this.registrations.delete(registration);
    };
  }

  /**
   * Called after each successful reconnection, before the requests that waited for it go on: the
   * server may have changed while the connection was down. Returns the function that stops it.
   */
  onReconnected(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => {
      this.reconnectListeners.delete(listener);
    };
  }

  /** Change notifications in either era (see `Subscriptions`); opened again after a reconnection. */
  listen(filter: SubscriptionFilter, timeoutMs: number | undefined): Promise<SubscriptionFilter> {
    return this.subscriptions.listen(this.current, this.era, filter, timeoutMs ?? this.current.limits.timeoutMs);
  }

  /** Closes the connection and releases everything it holds. Idempotent. */
  async close(): Promise<void> {
    this.closing.abort();
    this.subscriptions.stop();
    this.completions.clear();
    await this.reconnection?.catch(() => {});
    await this.current.close();
    this.markEnded({});
  }

  // --- Settling the era

  /** Settles the era on a new session (the one given first, if it is still unopened). */
  private async negotiate(signal: AbortSignal, hint: EraName | undefined): Promise<void> {
    const transport = this.current.transport;
    const limits = this.current.limits;
    const capabilities = capabilitiesFor(this.handlers, this.options.capabilities);
    const clientInfo = this.options.clientInfo ?? { name: "mcpwire", version: PACKAGE_VERSION };
    const { session, era } = await negotiateEra({
      server: transport.description,
      http: transport.kind === "streamable-http",
      // A transport that knows its server's era (a scripted one, the legacy HTTP+SSE transport)
      // settles it; otherwise the client finds out, starting from what it was told or remembers.
      choice: this.options.protocolVersion ?? transport.era ?? "auto",
      pinned: this.options.protocolVersion !== undefined && this.options.protocolVersion !== "auto",
      hint,
      probeTimeoutMs: this.probeTimeoutMs,
      timeoutMs: limits.timeoutMs,
      signal,
      openSession: () => this.openSession(signal),
      legacy: { clientInfo, capabilities, timeoutMs: limits.timeoutMs },
      modern: {
        clientInfo,
        // callTool follows a task whenever a modern server answers with one: the extension is declared.
        capabilities: withTasksExtension(capabilitiesFor(this.handlers, this.options.capabilities, "modern")),
        handlers: this.handlers,
        mirrorsHeaders: transport.kind === "streamable-http",
        server: transport.description,
        maxInputRounds: this.options.maxInputRounds,
      },
    });
    this.protocol = era;
    this.current = session;
    // The era sends on this connection's current session from now on, through reconnections.
    era.bind(this);
  }

  /** A session for the negotiation: the given one first, then new ones; handlers and listeners installed. */
  private async openSession(signal: AbortSignal): Promise<TransportSession> {
    const session = this.unopened ?? new TransportSession(this.current.transport, this.current.limits);
    this.unopened = undefined;
    this.negotiating.add(session);
    this.install(session);
    // The schemas (about 12 ms to load: bench/RESULTS.md, "The schemas without zod, and one file
    // to load") load while the transport opens, a child process boots on another core; both are
    // done before the first request is sent, so no answer is validated before they are there. (A
    // server speaks first only with what basic/lifecycle allows before the handshake: a ping, which
    // the session answers without them, or a log message, which a listener would drop if it came
    // this early.)
    await Promise.all([session.open({ signal }), loadSchemas()]);
    return session;
  }

  /** The handlers and the user's listeners, on a session that is about to open. */
  private install(session: TransportSession): void {
    installHandlers(session, this.handlers, { completions: this.completions });
    // A list that changed is no longer fresh in the modern era's result cache.
    for (const notification of [Notification.toolsListChanged, Notification.promptsListChanged, Notification.resourcesListChanged]) {
      session.onNotification(notification, () => {
        if (this.protocol instanceof ModernEra) this.protocol.onListChanged(notification);
      });
    }
    for (const registration of this.registrations) {
      registration.stop = session.onNotification(registration.method, registration.listener);
    }
  }

  // --- Ending and reconnecting

  /** The end of the current session is the connection's end, or the start of a reconnection. */
  private watchEnd(session: TransportSession): void {
    session.onEnd((ending) => {
      if (session !== this.current) return;
      const drop = ending.error !== undefined && !this.closing.signal.aborted;
      if (!drop || !this.reconnectPolicy) {
        this.markEnded(ending);
        return;
      }
      this.reconnection = this.reconnect(this.reconnectPolicy, ending).then((reconnected) => {
        this.reconnection = undefined;
        // Watched only now: an end during the reconnection itself is that attempt's failure.
        if (reconnected) this.watchEnd(this.current);
      });
      // Waiters observe the outcome through the session they get; nobody may see this rejection unhandled.
      this.reconnection.catch(() => {});
    });
  }

  /**
   * Opens the transport again and runs the handshake, with backoff, until it works or attempts
   * run out; resolves with whether it reconnected.
   */
  private async reconnect(policy: ReconnectPolicy, drop: ConnectionEnding): Promise<boolean> {
    let last = drop;
    const dropped = this.current;
    for (let attempt = 0; attempt < policy.maxAttempts; attempt++) {
      try {
        await delay(reconnectDelay(policy, attempt), this.closing.signal);
      } catch {
        return false; // closed by the user while waiting
      }
      const deadline = AbortSignal.timeout(dropped.limits.timeoutMs);
      const signal = AbortSignal.any([this.closing.signal, deadline]);
      try {
        // The era found before is the hint: no probe unless the server changed.
        await this.negotiate(signal, this.protocol?.name);
        if (!this.current.isOpen) throw new McpTransportError("DISCONNECTED", "the connection dropped during the handshake");
        await this.subscriptions.resume(this.current, this.era, this.current.limits.timeoutMs).catch(() => {
          // A subscription the server no longer accepts is not a failed reconnection; listen() says why.
        });
        this.announceReconnection();
        return true;
      } catch (error) {
        if (this.current !== dropped) await this.current.close();
        this.current = dropped;
        if (this.closing.signal.aborted) return false;
        last = { error: asMcpTransportError(error, "UNAVAILABLE", "reconnecting failed") };
      }
    }
    this.markEnded(last);
    return false;
  }

  /** Tells the reconnection's listeners; one that throws breaks neither the others nor the reconnection. */
  private announceReconnection(): void {
    for (const listener of [...this.reconnectListeners]) {
      try {
        listener();
      } catch {
        // A listener's failure is its own, as with notification listeners.
      }
    }
  }

  /** A request made while reconnecting waits for it, within its own deadline and signal. */
  private async waitForReconnection(options: RequestOptions & { label: string }): Promise<void> {
    const timeoutMs = options.timeoutMs ?? this.current.limits.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new McpTransportError("TIMEOUT", `${options.label} timed out after ${timeoutMs} ms while reconnecting (${this.current.description})`, {
              timeoutMs,
            }),
          ),
        timeoutMs,
      );
    });
    try {
      await raceAbort(Promise.race([this.reconnection, deadline]), options.signal);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The last lines a transport's server process wrote on stderr (the stdio transport keeps them), if any. */
function stderrTailOf(transport: McpTransport): string | undefined {
  const tail = (transport as { stderrTail?: unknown }).stderrTail;
  return typeof tail === "string" && tail !== "" ? tail : undefined;
}
