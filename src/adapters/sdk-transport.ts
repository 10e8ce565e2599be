/**
 * `mcpwire/sdk`: any mcpwire transport as the official TypeScript SDK's `Transport`, so code
 * written against the SDK's `Client` gains mcpwire's stdio and HTTP transports by changing the
 * line that makes its transport:
 *
 * ```ts
 * await client.connect(new SdkTransport(new StdioTransport({ command: "uvx", args: ["handbook-mcp"] })));
 * ```
 *
 * The wire keeps its ceilings (`maxMessageBytes`, `readTimeoutMs`); the SDK's `Client` keeps its
 * own request timeout. A failure that touches one request (a stalled read, an HTTP status on its
 * POST) answers that request with a JSON-RPC error, so the `Client` call fails at once instead of
 * waiting for its own timeout. The SDK's shape is declared here, so mcpwire needs no SDK.
 */
import { checkSignalOption } from "../client/call-option-names.js";
import { McpTransportError } from "../errors.js";
import { revisionAcceptsBatches } from "../protocol/revisions.js";
import type {
  JsonRpcErrorObject,
  JsonRpcFailure,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcSuccess,
  RequestId,
} from "../protocol/jsonrpc.js";
import { LIMIT_NAMES, resolveLimits, type Limits } from "../transport/limits.js";
import { didYouMean, firstUnknownKey } from "../util/option-names.js";
import { describeValue } from "../util/whole-number.js";
import { isMcpTransport, type ConnectionEnding, type McpConnection, type McpTransport, type WireRules } from "../transport/transport.js";

/**
 * The JSON-RPC error code of a request that failed at the wire: the SDK's `RequestTimeout` for
 * TIMEOUT, its `ConnectionClosed` (-32000, implementation-defined server error) otherwise. The
 * mcpwire reason is in `error.data.reason`.
 */
export const SDK_REQUEST_TIMEOUT_CODE = -32001;
export const SDK_REQUEST_FAILED_CODE = -32000;

/**
 * Ids of requests already answered with a failure, so a late real answer is dropped rather than
 * reported by the SDK as an answer to an unknown request. Bounded: oldest forgotten first.
 */
export const FAILED_IDS_KEPT = 1024;

/** A JSON-RPC message as the SDK types it: an error answer may lack its id. */
export type SdkMessage =
  | JsonRpcRequest
  | JsonRpcNotification
  | JsonRpcSuccess
  | { jsonrpc: "2.0"; id?: RequestId | null; error: JsonRpcErrorObject };

/** The official SDK's `Transport` (shared/transport.d.ts), as mcpwire implements it. */
export interface SdkTransportLike {
  start(): Promise<void>;
  send(message: SdkMessage, options?: unknown): Promise<void>;
  close(): Promise<void>;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: SdkMessage, extra?: unknown) => void) | undefined;
  readonly sessionId?: string | undefined;
  setProtocolVersion?(version: string): void;
}

export interface SdkTransportOptions {
  /**
   * Ceilings kept at the wire: `maxMessageBytes` and `readTimeoutMs` (`maxInFlight` and
   * `timeoutMs` belong to a session; the SDK's `Client` keeps its own request timeout).
   * @default DEFAULT_LIMITS
   */
  limits?: Partial<Limits>;
  /** Aborts `start()`; once started, the connection ends with `close()`. */
  signal?: AbortSignal;
}

/** Every option `SdkTransport` takes; any other key is refused. */
const SDK_TRANSPORT_OPTION_NAMES = ["limits", "signal"] as const satisfies readonly (keyof SdkTransportOptions)[];

type State = "new" | "starting" | "open" | "closed";

/** An mcpwire transport in the official SDK's `Transport` shape. Starts once, like the SDK's own. */
export class SdkTransport implements SdkTransportLike {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: SdkMessage, extra?: unknown) => void) | undefined;

  private state: State = "new";
  private connection: McpConnection | undefined;
  private protocolVersion: string | undefined;
  private closeNotified = false;
  private starting: Promise<void> | undefined;
  private readonly limits: Limits;
  private readonly stopStarting = new AbortController();
  private readonly failedIds = new Set<RequestId>();

  constructor(
    /** The mcpwire transport this one opens. */
    readonly transport: McpTransport,
    private readonly options: SdkTransportOptions = {},
  ) {
    // Checked here, not at start(): an SDK transport given by mistake would fail there with "open is not a function".
    if (!isMcpTransport(transport)) {
      throw new TypeError(
        `SdkTransport: expected an mcpwire transport (new StdioTransport(...), transportFor(config), ...), got ${describeValue(transport)}` +
          (typeof transport === "object" && transport !== null && typeof (transport as { start?: unknown }).start === "function"
            ? "; this looks like an SDK transport, which the SDK's Client takes as it is"
            : ""),
      );
    }
    checkOptions(options);
    this.limits = resolveLimits(options.limits, "SdkTransport options.limits");
  }

  /** The server-assigned session, where the transport has one (Streamable HTTP). */
  get sessionId(): string | undefined {
    return this.connection?.sessionId;
  }

  /** Opens the connection. The SDK's `Client.connect` calls it; do not call it yourself then. */
  start(): Promise<void> {
    if (this.state !== "new") {
      return Promise.reject(
        new Error(`SdkTransport already ${this.state === "closed" ? "closed" : "started"}; make a new one to connect again`),
      );
    }
    this.state = "starting";
    this.starting = this.open();
    return this.starting;
  }

  private async open(): Promise<void> {
    const signal = this.options.signal ? AbortSignal.any([this.options.signal, this.stopStarting.signal]) : this.stopStarting.signal;
    let connection: McpConnection;
    try {
      connection = await this.transport.open(
        {
          message: (message) => this.deliver(message),
          requestFailed: (id, error) => this.onRequestFailed(id, error),
          closed: (ending) => this.onClosed(ending),
        },
        { limits: this.limits, signal },
      );
    } catch (error) {
      this.state = "closed";
      throw error;
    }
    if (this.state !== "starting") {
      // close() was called while opening.
      await connection.close();
      throw new McpTransportError("DISCONNECTED", `${this.transport.description}: closed while connecting`);
    }
    this.connection = connection;
    this.state = "open";
    if (this.protocolVersion !== undefined) connection.setProtocolVersion?.(this.protocolVersion, wireRules(this.protocolVersion));
  }

  /** Hands one message to the wire. Rejects with an `McpTransportError` (LIMIT, DISCONNECTED). */
  async send(message: SdkMessage): Promise<void> {
    const connection = this.connection;
    if (this.state !== "open" || !connection) {
      throw new McpTransportError(
        "DISCONNECTED",
        `${this.transport.description}: cannot send, the transport is ${this.state === "closed" ? "closed" : "not started"}`,
      );
    }
    // JSON-RPC answers an unreadable request with id null; the SDK leaves the id out instead.
    await connection.send("error" in message && message.id === undefined ? { ...message, id: null } : (message as JsonRpcMessage));
    // The SDK gave up on a request (its timeout, an abort): the wire stops waiting for it too.
    if ("method" in message && message.method === "notifications/cancelled" && !("id" in message)) {
      const requestId = message.params?.requestId;
      if (typeof requestId === "string" || typeof requestId === "number") connection.abandon(requestId);
    }
  }

  /** Closes the connection; resolves once everything it holds is released. Idempotent. */
  async close(): Promise<void> {
    const previous = this.state;
    this.state = "closed";
    if (previous === "starting") {
      this.stopStarting.abort(new McpTransportError("DISCONNECTED", `${this.transport.description}: closed while connecting`));
      await this.starting?.catch(() => {});
    }
    if (this.connection) await this.connection.close();
    // A connection that never opened has no `closed` event of its own to report.
    this.notifyClosed();
  }

  /**
   * The revision agreed in `initialize`; HTTP transports send it as `MCP-Protocol-Version`. The
   * wire follows that revision's rules as under mcpwire's own client: a 2025-03-26 server's
   * JSON-RPC batches are read, since that revision says clients "MUST support receiving" them.
   */
  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
    this.connection?.setProtocolVersion?.(version, wireRules(version));
  }

  private deliver(message: JsonRpcMessage): void {
    if (!("method" in message) && message.id !== null && this.failedIds.delete(message.id)) return;
    this.onmessage?.(message);
  }

  /** One request failed at the wire: the SDK's pending call gets an error answer now. */
  private onRequestFailed(id: RequestId, error: McpTransportError): void {
    this.rememberFailed(id);
    this.onerror?.(error);
    const answer: JsonRpcFailure = {
      jsonrpc: "2.0",
      id,
      error: {
        code: error.reason === "TIMEOUT" ? SDK_REQUEST_TIMEOUT_CODE : SDK_REQUEST_FAILED_CODE,
        message: error.message,
        data: errorData(error),
      },
    };
    this.onmessage?.(answer);
  }

  private onClosed(ending: ConnectionEnding): void {
    this.state = "closed";
    if (ending.error) this.onerror?.(ending.error);
    this.notifyClosed();
  }

  private notifyClosed(): void {
    if (this.closeNotified) return;
    this.closeNotified = true;
    this.onclose?.();
  }

  private rememberFailed(id: RequestId): void {
    this.failedIds.add(id);
    if (this.failedIds.size > FAILED_IDS_KEPT) {
      const oldest = this.failedIds.values().next().value;
      if (oldest !== undefined) this.failedIds.delete(oldest);
    }
  }
}

/** What the wire must follow under `revision`, the SDK's `Client` having settled it in `initialize`. */
function wireRules(revision: string): WireRules {
  return { acceptsBatches: revisionAcceptsBatches(revision) };
}

/** Refuses a key nobody would read (resolveLimits reads only the names it knows). */
function checkOptions(options: SdkTransportOptions): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError("SdkTransport: options must be an object");
  }
  const unknown = firstUnknownKey(options, SDK_TRANSPORT_OPTION_NAMES);
  if (unknown !== undefined) {
    throw new TypeError(
      `SdkTransport: unknown option "${unknown}"${didYouMean(unknown, SDK_TRANSPORT_OPTION_NAMES)}; the options are ${SDK_TRANSPORT_OPTION_NAMES.join(", ")}` +
        (LIMIT_NAMES.includes(unknown as keyof Limits) ? " (ceilings go in options.limits)" : ""),
    );
  }
  // start() combines it with its own: anything else would throw there, after the options were taken.
  checkSignalOption(options.signal, "SdkTransport options");
  const limits: unknown = options.limits;
  if (limits === undefined) return;
  if (typeof limits !== "object" || limits === null || Array.isArray(limits)) {
    throw new TypeError(`SdkTransport: options.limits must be an object of ceilings (${LIMIT_NAMES.join(", ")})`);
  }
  const unknownLimit = firstUnknownKey(limits, LIMIT_NAMES);
  if (unknownLimit !== undefined) {
    throw new TypeError(
      `SdkTransport: options.limits has an unknown ceiling "${unknownLimit}"${didYouMean(unknownLimit, LIMIT_NAMES)}; the ceilings are ${LIMIT_NAMES.join(", ")}`,
    );
  }
}

/** What an SDK caller can branch on, in the error's `data`: the mcpwire reason and its details. */
function errorData(error: McpTransportError): Record<string, unknown> {
  const data: Record<string, unknown> = { reason: error.reason, retryable: error.retryable };
  for (const key of ["httpStatus", "timeoutMs", "limitBytes", "exitCode"] as const) {
    if (error[key] !== undefined) data[key] = error[key];
  }
  return data;
}
