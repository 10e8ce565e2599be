/**
 * The relay of `startStdioBridge` (stdio-bridge.ts, which checks the options and loads this module):
 * a remote MCP server served to a host that speaks only stdio. It is a transparent relay built on
 * the wire below mcpwire's client (an `McpTransport`),
 * not on `McpClient`, so nothing of the conversation is rebuilt: the host's `initialize`, its
 * `_meta` and its ids reach the remote as they are, and every message of the remote comes back,
 * server-to-client requests (sampling, elicitation, roots) included, for the host to answer.
 *
 * What the bridge adds is what a relay must do for the host not to hang or lose its session:
 *
 * - the era the host speaks (host-era.ts) is told to the transport (`setProtocolVersion`), with
 *   the `Mcp-*` headers of a modern request over Streamable HTTP (client/modern-headers.ts);
 * - a legacy session the remote forgot (404) is opened again by replaying the host's own
 *   `initialize` and `notifications/initialized`, and the request sent again, at most
 *   `MAX_SESSION_RENEWALS` times; the same replay opens a session on a connection opened again
 *   after the remote went away;
 * - a modern reply stream that broke is re-issued once with a new id (the spec's rule for
 *   2026-07-28), its answer given back in the host's id;
 * - every request that fails gets a JSON-RPC error answer in the host's id (failure-answer.ts):
 *   the remote unreachable, gone mid-call, too slow (`timeoutMs`), a ceiling passed;
 * - at the end (stdin EOF, `close()`), the remote session is ended (DELETE for a legacy HTTP
 *   session) and nothing is left open.
 */
import { McpTransportError } from "../../errors.js";
import {
  JSONRPC_INVALID_REQUEST,
  isNotification,
  isRequest,
  isResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from "../../protocol/jsonrpc.js";
import { Method, Notification } from "../../protocol/methods.js";
import { ModernMethod } from "../../protocol/modern.js";
import { headerParamsOf, modernHeaders, type HeaderParam } from "../../client/modern-headers.js";
import type { Limits } from "../../transport/limits.js";
import type { McpConnection, SendContext } from "../../transport/transport.js";
import type { HostAnswer } from "./batch-answers.js";
import { BRIDGE_ID_PREFIX, MAX_SESSION_RENEWALS, STDIN_END_DRAIN_MS, type StdioBridgeOptions } from "./bridge-options.js";
import { failureAnswer } from "./failure-answer.js";
import { HostChannel } from "./host-channel.js";
import { MODERN_SEND_RULES, eraOf, legacyWireRules, type HostEra } from "./host-era.js";
import { RemoteLink } from "./remote-link.js";

/** One request of the host, from the line it came on to its answer. */
interface Forwarded {
  readonly message: JsonRpcRequest;
  readonly hostId: RequestId;
  /** Where its answer goes: its own line, or the array answering its batch. */
  readonly answer: HostAnswer;
  /** The id on the wire: the host's, except for a re-issue after a broken modern stream. */
  wireId: RequestId;
  /** The connection it was sent on, once it was. */
  connection: McpConnection | undefined;
  timer: NodeJS.Timeout | undefined;
  renewals: number;
  reissued: boolean;
  settled: boolean;
}

/** A request the bridge sends on its own (the replayed `initialize`), answered to the bridge. */
interface OwnRequest {
  connection: McpConnection;
  resolve(response: JsonRpcResponse): void;
  reject(error: unknown): void;
}

type State = "running" | "draining" | "ending";

/** The relay of one `startStdioBridge`, its options checked (stdio-bridge.ts). */
export class Bridge {
  readonly done: Promise<void>;
  private resolveDone!: () => void;
  private state: State = "running";
  private ending: Promise<void> | undefined;
  private drainTimer: NodeJS.Timeout | undefined;
  private readonly limits: Limits;
  private readonly timeoutMs: number;
  private readonly host: HostChannel;
  private readonly link: RemoteLink;
  private readonly byHost = new Map<RequestId, Forwarded>();
  private readonly byWire = new Map<RequestId, Forwarded>();
  private readonly own = new Map<RequestId, OwnRequest>();
  private serial = 0;

  private era: HostEra | undefined;
  /** The revision each connection was told, so that it is told again only when it changes. */
  private readonly told = new WeakMap<McpConnection, string>();
  /** The host's opening of a legacy session, replayed to open a new one. */
  private hostInitialize: JsonRpcRequest | undefined;
  private hostInitialized: JsonRpcNotification | undefined;
  /** The revision the remote settled on for the host lets the host send batches (2025-03-26). */
  private hostBatches = false;
  /** The connection on which the legacy session is open (the host's own, or one the bridge replayed). */
  private sessionOn: McpConnection | undefined;
  private renewal: Promise<void> | undefined;
  /** Which tool arguments a modern `tools/call` mirrors into `Mcp-Param-*` headers, from the tool lists that passed. */
  private readonly toolHeaders = new Map<string, HeaderParam[]>();

  constructor(
    private readonly options: StdioBridgeOptions,
    limits: Limits,
    timeoutMs: number,
  ) {
    this.limits = limits;
    this.timeoutMs = timeoutMs;
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.link = new RemoteLink(options.transport, this.limits, {
      message: (message, connection) => this.fromRemote(message, connection),
      requestFailed: (id, error, connection) => this.remoteRequestFailed(id, error, connection),
      ended: (connection, error) => this.remoteEnded(connection, error),
    });
    this.host = new HostChannel(options.input, options.output, this.limits.maxMessageBytes, {
      message: (message, answer) => this.fromHost(message, answer),
      unreadable: (what, fatal) => this.log("host_line_refused", { what, fatal }),
      ended: () => this.hostEnded(),
      acceptsBatches: () => this.hostBatches,
    });
    this.log("bridge_started", { remote: options.transport.description });
  }

  close(): Promise<void> {
    this.ending ??= this.end();
    return this.ending;
  }

  // --- From the host

  private fromHost(message: JsonRpcMessage, answer: HostAnswer): void {
    const era = eraOf(message);
    if (era) this.era = era;
    if (isRequest(message)) return this.request(message, answer);
    if (this.state === "ending") return;
    if (isNotification(message)) return this.notification(message);
    // The host's answer to a request of the remote (sampling, elicitation, roots): as it is.
    void this.sendPlain(message);
  }

  private request(message: JsonRpcRequest, answer: HostAnswer): void {
    if (this.state === "ending") {
      answer.send(failureAnswer(message.id, new McpTransportError("DISCONNECTED", "the bridge is closing"), message.method));
      return;
    }
    if (this.byHost.has(message.id)) {
      // JSON-RPC ids must be unique among requests in flight; answering the second would confuse both.
      answer.send({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: JSONRPC_INVALID_REQUEST, message: `mcpwire gateway: a request with this id is already in flight` },
      });
      return;
    }
    if (this.byHost.size >= this.limits.maxInFlight) {
      const error = new McpTransportError("LIMIT", `more than ${this.limits.maxInFlight} requests in flight at once (maxInFlight)`);
      answer.send(failureAnswer(message.id, error, message.method));
      return;
    }
    if (message.method === Method.initialize) {
      // A new session by the host's own wish: the bridge replays this one from now on.
      this.hostInitialize = message;
      this.hostInitialized = undefined;
      this.sessionOn = undefined;
    }
    const forwarded: Forwarded = {
      message,
      hostId: message.id,
      answer,
      wireId: message.id,
      connection: undefined,
      timer: undefined,
      renewals: 0,
      reissued: false,
      settled: false,
    };
    // A listen stream stays open by design; its end is the host's to decide (it cancels it).
    if (message.method !== ModernMethod.subscriptionsListen) {
      forwarded.timer = setTimeout(() => this.timedOut(forwarded), this.timeoutMs);
    }
    this.byHost.set(message.id, forwarded);
    void this.forward(forwarded);
  }

  private notification(message: JsonRpcNotification): void {
    if (message.method === Notification.initialized) this.hostInitialized = message;
    if (message.method === Notification.cancelled) {
      const forwarded = this.byHost.get(message.params?.requestId as RequestId);
      if (forwarded) {
        // Cancelled: the host expects no answer (basic/utilities/cancellation).
        this.settle(forwarded);
        forwarded.answer.withdraw();
        this.cancelOnRemote(forwarded, message);
        return;
      }
    }
    void this.sendPlain(message);
  }

  private hostEnded(): void {
    if (this.state !== "running") return;
    this.state = "draining";
    this.log("host_input_ended", { inFlight: this.byHost.size });
    if (this.byHost.size === 0) {
      void this.close();
      return;
    }
    this.drainTimer = setTimeout(() => void this.close(), STDIN_END_DRAIN_MS);
  }

  // --- To the remote

  private async forward(forwarded: Forwarded): Promise<void> {
    let connection: McpConnection | undefined;
    try {
      connection = await this.link.connection();
      if (forwarded.settled) return;
      await this.prepare(connection, forwarded.message);
      if (forwarded.settled) return;
      forwarded.connection = connection;
      this.byWire.set(forwarded.wireId, forwarded);
      const message = forwarded.wireId === forwarded.hostId ? forwarded.message : { ...forwarded.message, id: forwarded.wireId };
      await connection.send(message, this.contextFor(forwarded.message, connection));
    } catch (error) {
      this.forwardFailed(forwarded, error, connection);
    }
  }

  /** A notification, or the host's answer to the remote: sent as it is, a failure only logged (there is no id to answer). */
  private async sendPlain(message: JsonRpcMessage): Promise<void> {
    try {
      const connection = await this.link.connection();
      await this.prepare(connection, message);
      await connection.send(message, "method" in message ? this.contextFor(message, connection) : undefined);
    } catch (error) {
      this.log("host_message_not_forwarded", { what: "method" in message ? message.method : "a response", reason: reasonOf(error) });
    }
  }

  /** What the connection must know before `message` goes: the revision, and a legacy session. */
  private async prepare(connection: McpConnection, message: JsonRpcMessage): Promise<void> {
    if (this.era?.name === "modern") {
      // A request names its own revision; one that names none goes in the host's latest.
      const own = eraOf(message);
      const revision = own?.name === "modern" ? own.revision : this.era.revision;
      if (this.told.get(connection) !== revision) {
        connection.setProtocolVersion?.(revision, {});
        this.told.set(connection, revision);
      }
      return;
    }
    if (this.era?.name !== "legacy" || this.hostInitialize === undefined || this.sessionOn === connection) return;
    if (!("method" in message) || message.method === Method.initialize || message.method === Notification.initialized) return;
    // While the host's own initialize waits for its answer there is no session to renew yet.
    if (this.byHost.get(this.hostInitialize.id)?.message === this.hostInitialize) return;
    await this.renewSession(connection);
  }

  /** The modern era's rules and headers for a request over Streamable HTTP; nothing for the legacy era. */
  private contextFor(message: JsonRpcRequest | JsonRpcNotification, connection: McpConnection): SendContext | undefined {
    if (this.era?.name !== "modern") return undefined;
    // A listen stream stays open by design: the read-stall ceiling is not for it.
    const longLived = message.method === ModernMethod.subscriptionsListen ? { longLived: true } : {};
    if (connection.closesRequestStreams !== true || !("id" in message)) return { ...MODERN_SEND_RULES, ...longLived };
    const params = message.params;
    const toolParams = message.method === Method.toolsCall && typeof params?.name === "string" ? this.toolHeaders.get(params.name) : undefined;
    return { ...MODERN_SEND_RULES, ...longLived, headers: modernHeaders(message.method, params, toolParams) };
  }

  private forwardFailed(forwarded: Forwarded, error: unknown, connection: McpConnection | undefined): void {
    if (forwarded.settled) return;
    if (this.byWire.get(forwarded.wireId) === forwarded) this.byWire.delete(forwarded.wireId);
    forwarded.connection = undefined;
    const failure = error instanceof McpTransportError ? error : undefined;
    if (failure?.sessionExpired && this.hostInitialize !== undefined && forwarded.message.method !== Method.initialize && this.state !== "ending") {
      if (forwarded.renewals < MAX_SESSION_RENEWALS) {
        forwarded.renewals++;
        if (connection !== undefined && this.sessionOn === connection) this.sessionOn = undefined;
        this.log("session_expired", { method: forwarded.message.method, renewal: forwarded.renewals });
        void this.forward(forwarded);
        return;
      }
      return this.fail(
        forwarded,
        failure.with({}, `the remote server forgot the session again after it was initialized ${MAX_SESSION_RENEWALS} times for this request`),
      );
    }
    if (failure?.streamBroken && !forwarded.reissued && this.state !== "ending") {
      // 2026-07-28: a broken reply stream is not resumed; the request is issued again with a new id.
      forwarded.reissued = true;
      forwarded.wireId = this.ownId("reissue");
      void this.forward(forwarded);
      return;
    }
    this.fail(forwarded, error);
  }

  // --- The legacy session

  /** Opens a new legacy session on `connection` with the host's own opening; concurrent callers share one. */
  private renewSession(connection: McpConnection): Promise<void> {
    this.renewal ??= this.replayInitialize(connection).finally(() => (this.renewal = undefined));
    return this.renewal;
  }

  private async replayInitialize(connection: McpConnection): Promise<void> {
    const opening = this.hostInitialize!;
    const answer = await this.ownRequest(connection, { ...opening, id: this.ownId("initialize") });
    if ("error" in answer) {
      throw new McpTransportError("PROTOCOL", "the remote server refused the initialize the bridge replayed to open a new session", {
        code: answer.error.code,
        serverMessage: answer.error.message,
      });
    }
    this.adoptRevision(connection, answer.result);
    await connection.send(this.hostInitialized ?? { jsonrpc: "2.0", method: Notification.initialized });
    this.sessionOn = connection;
    this.log("session_renewed", {});
  }

  private ownRequest(connection: McpConnection, message: JsonRpcRequest): Promise<JsonRpcResponse> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.own.delete(message.id);
        connection.abandon(message.id);
        reject(new McpTransportError("TIMEOUT", `the remote server did not answer the replayed initialize within ${this.timeoutMs} ms`, { timeoutMs: this.timeoutMs }));
      }, this.timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.own.delete(message.id);
      };
      this.own.set(message.id, {
        connection,
        resolve: (response) => {
          done();
          resolve(response);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      connection.send(message).catch((error: unknown) => this.own.get(message.id)?.reject(error));
    });
  }

  private adoptRevision(connection: McpConnection, result: Record<string, unknown>): void {
    const revision = result.protocolVersion;
    if (typeof revision !== "string") return;
    // The same rule holds both ways: a revision that lets the remote answer with batches lets the host send them.
    const rules = legacyWireRules(revision);
    this.hostBatches = rules.acceptsBatches === true;
    connection.setProtocolVersion?.(revision, rules);
  }

  // --- From the remote

  private fromRemote(message: JsonRpcMessage, connection: McpConnection): void {
    if (!isResponse(message)) {
      // The remote's requests and notifications go to the host as they are: it answers them.
      this.host.send(message);
      return;
    }
    if (message.id === null) {
      this.log("remote_answer_without_id", {});
      return;
    }
    const own = this.own.get(message.id);
    if (own) return own.resolve(message);
    const forwarded = this.byWire.get(message.id);
    if (!forwarded || forwarded.connection !== connection) {
      // Late (after a timeout or a cancellation), or never asked: the host expects nothing.
      this.log("remote_answer_unmatched", {});
      return;
    }
    this.settle(forwarded);
    if ("result" in message) this.noteAnswer(forwarded.message, message.result, connection);
    forwarded.answer.send(forwarded.wireId === forwarded.hostId ? message : { ...message, id: forwarded.hostId });
  }

  /** What an answer tells the bridge: the session opened, the tools whose arguments go into headers. */
  private noteAnswer(request: JsonRpcRequest, result: Record<string, unknown>, connection: McpConnection): void {
    if (request.method === Method.initialize && request === this.hostInitialize) {
      this.adoptRevision(connection, result);
      this.sessionOn = connection;
    }
    if (request.method === Method.toolsList && this.era?.name === "modern" && Array.isArray(result.tools)) {
      for (const tool of result.tools as unknown[]) {
        if (typeof tool !== "object" || tool === null) continue;
        const { name, inputSchema } = tool as { name?: unknown; inputSchema?: unknown };
        if (typeof name !== "string" || typeof inputSchema !== "object" || inputSchema === null) continue;
        const params = headerParamsOf(inputSchema as Record<string, unknown>);
        if (!("invalid" in params) && params.length > 0) this.toolHeaders.set(name, params);
        else this.toolHeaders.delete(name);
      }
    }
  }

  private remoteRequestFailed(id: RequestId, error: McpTransportError, connection: McpConnection): void {
    const own = this.own.get(id);
    if (own) return own.reject(error);
    const forwarded = this.byWire.get(id);
    if (forwarded && forwarded.connection === connection) this.forwardFailed(forwarded, error, connection);
  }

  /** The remote went away: what was sent on that connection is lost; the next request opens a new one. */
  private remoteEnded(connection: McpConnection, error: McpTransportError): void {
    this.log("remote_ended", { reason: error.reason });
    if (this.sessionOn === connection) this.sessionOn = undefined;
    for (const own of [...this.own.values()]) if (own.connection === connection) own.reject(error);
    for (const forwarded of [...this.byHost.values()]) {
      if (forwarded.connection === connection) this.fail(forwarded, error);
    }
  }

  // --- Settling

  private timedOut(forwarded: Forwarded): void {
    if (forwarded.settled) return;
    const error = new McpTransportError("TIMEOUT", `no answer within ${this.timeoutMs} ms`, { timeoutMs: this.timeoutMs, method: forwarded.message.method });
    this.fail(forwarded, error);
    this.cancelOnRemote(forwarded, undefined);
  }

  /**
   * Tells the remote that a request is no longer awaited: its stream is closed, and, unless that
   * closing is the cancellation (2026-07-28 over Streamable HTTP), `notifications/cancelled` goes
   * too, in the wire's id (never for `initialize`, which may not be cancelled).
   */
  private cancelOnRemote(forwarded: Forwarded, hostNotice: JsonRpcNotification | undefined): void {
    const connection = forwarded.connection;
    if (!connection) return;
    connection.abandon(forwarded.wireId);
    const closing = this.era?.name === "modern" && connection.closesRequestStreams === true;
    if (closing || forwarded.message.method === Method.initialize) return;
    const params = { ...hostNotice?.params, requestId: forwarded.wireId, ...(hostNotice ? {} : { reason: "timeout" }) };
    connection.send({ jsonrpc: "2.0", method: Notification.cancelled, params }).catch(() => {});
  }

  private fail(forwarded: Forwarded, error: unknown): void {
    if (forwarded.settled) return;
    this.settle(forwarded);
    forwarded.answer.send(failureAnswer(forwarded.hostId, error, forwarded.message.method));
    this.log("request_failed", { method: forwarded.message.method, reason: reasonOf(error) });
  }

  private settle(forwarded: Forwarded): void {
    if (forwarded.settled) return;
    forwarded.settled = true;
    clearTimeout(forwarded.timer);
    if (this.byHost.get(forwarded.hostId) === forwarded) this.byHost.delete(forwarded.hostId);
    if (this.byWire.get(forwarded.wireId) === forwarded) this.byWire.delete(forwarded.wireId);
    if (this.state === "draining" && this.byHost.size === 0) void this.close();
  }

  // --- Ending

  private async end(): Promise<void> {
    this.state = "ending";
    clearTimeout(this.drainTimer);
    this.host.stop();
    const closing = new McpTransportError("DISCONNECTED", "the bridge is closing");
    for (const forwarded of [...this.byHost.values()]) this.fail(forwarded, closing);
    for (const own of [...this.own.values()]) own.reject(closing);
    try {
      await this.link.close();
    } catch (error) {
      this.log("remote_close_failed", { reason: reasonOf(error) });
    }
    this.log("bridge_ended", {});
    this.resolveDone();
  }

  private ownId(what: string): string {
    return `${BRIDGE_ID_PREFIX}${what}-${++this.serial}`;
  }

  private log(event: string, fields: Record<string, string | number | boolean>): void {
    this.options.log?.(JSON.stringify({ event, ...fields }));
  }
}

function reasonOf(error: unknown): string {
  return error instanceof McpTransportError ? error.reason : "INTERNAL";
}
