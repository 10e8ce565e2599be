/**
 * A scripted transport for tests: it answers from a script keyed by method and records every
 * message it was sent, so tool behaviour is tested with no subprocess and no socket.
 *
 * A request for a method nobody scripted fails with PROTOCOL, so a test cannot pass by accident
 * on a call it never arranged. A script function that throws an `McpTransportError` plays a wire
 * failure of that one request (a timeout, an expired HTTP session).
 *
 * It plays a legacy server by default, or a modern one (revision 2026-07-28) with
 * `era: "modern"`, and the client takes its word for the era. Only the opening has a built-in
 * answer, which the script may replace: `initialize` (legacy) or `server/discover` (modern),
 * declaring the capabilities the script implies.
 */
import { McpTransportError } from "../errors.js";
import {
  serializeMessage,
  toMessage,
  type JsonRpcErrorObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type RequestId,
} from "../protocol/jsonrpc.js";
import { Method } from "../protocol/methods.js";
import { MetaKey, ModernMethod } from "../protocol/modern.js";
import { abortReason } from "../util/abort.js";
import { ReadStallWatch } from "./common/read-stall.js";
import { checkOutgoingSize, isOverBytes, messageTooLarge } from "./limits.js";
import type { ConnectionEvents, McpConnection, McpTransport, OpenOptions, SendContext } from "./transport.js";

const ERROR_MARK = Symbol("mcpwire.scriptedError");

/** A JSON-RPC error the script answers with; make one with `RecordingTransport.error()`. */
export interface ScriptedError {
  readonly [ERROR_MARK]: true;
  readonly error: JsonRpcErrorObject;
}

export interface ScriptContext {
  /** The request as the client sent it. */
  request: JsonRpcRequest;
  /** The transport, to push notifications or server requests from inside an answer. */
  transport: RecordingTransport;
}

export type ScriptAnswer =
  | Record<string, unknown>
  | ScriptedError
  | ((params: Record<string, unknown>, context: ScriptContext) => Record<string, unknown> | ScriptedError | Promise<Record<string, unknown> | ScriptedError>);

export type Script = Record<string, ScriptAnswer>;

export interface RecordingOptions {
  /**
   * The era the scripted server plays: "legacy" answers `initialize` by itself, "modern"
   * (revision 2026-07-28) answers `server/discover` by itself. @default "legacy"
   */
  era?: "legacy" | "modern";
  /** What the built-in `initialize` answer says of the server. */
  serverInfo?: { name: string; version: string };
  /** Replaces the capabilities the built-in `initialize` answer derives from the script. */
  capabilities?: Record<string, unknown>;
}

function isScriptedError(value: unknown): value is ScriptedError {
  return typeof value === "object" && value !== null && ERROR_MARK in value;
}

export class RecordingTransport implements McpTransport {
  readonly kind = "recording";
  readonly description = "recording: scripted server";
  readonly era: "legacy" | "modern";
  /** Every message the client sent, in order, as copies. */
  readonly sent: JsonRpcMessage[] = [];
  /** The per-message headers the client asked for (the modern era's `Mcp-*` headers), by message. */
  readonly headers = new WeakMap<JsonRpcMessage, Record<string, string>>();
  private events: ConnectionEvents | undefined;
  private stall: ReadStallWatch | undefined;
  private limitBytes = Number.MAX_SAFE_INTEGER;
  private open_ = false;
  private nextServerId = 1;
  private readonly waitingReplies = new Map<RequestId, { resolve(result: Record<string, unknown>): void; reject(error: Error): void }>();

  constructor(
    private readonly script: Script,
    private readonly options: RecordingOptions = {},
  ) {
    this.era = options.era ?? "legacy";
  }

  /** A scripted JSON-RPC error answer. */
  static error(code: number, message: string, data?: unknown): ScriptedError {
    return { [ERROR_MARK]: true, error: data === undefined ? { code, message } : { code, message, data } };
  }

  /** The requests the client sent, optionally only those of one method. */
  requests(method?: string): JsonRpcRequest[] {
    return this.sent.filter((m): m is JsonRpcRequest => "method" in m && "id" in m && (method === undefined || m.method === method));
  }

  /** The notifications the client sent, optionally only those of one method. */
  notifications(method?: string): JsonRpcNotification[] {
    return this.sent.filter(
      (m): m is JsonRpcNotification => "method" in m && !("id" in m) && (method === undefined || m.method === method),
    );
  }

  /** Pushes a notification to the client, as a server would. */
  notify(method: string, params?: Record<string, unknown>): void {
    this.deliver(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
  }

  /** Sends a request to the client, as a server would; resolves with the client's result. */
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = `server-${this.nextServerId++}`;
    return new Promise((resolve, reject) => {
      this.waitingReplies.set(id, { resolve, reject });
      this.deliver(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params });
    });
  }

  /** Ends the connection from the server's side, as a crash or a dropped stream would. */
  disconnect(error = new McpTransportError("DISCONNECTED", "the scripted server closed the connection")): void {
    this.end(error);
  }

  async open(events: ConnectionEvents, options: OpenOptions): Promise<McpConnection> {
    if (options.signal?.aborted) throw abortReason(options.signal);
    if (this.open_) throw new McpTransportError("UNAVAILABLE", "this RecordingTransport is already open");
    this.open_ = true;
    this.events = events;
    this.limitBytes = options.limits.maxMessageBytes;
    this.stall = new ReadStallWatch(options.limits.readTimeoutMs, "the scripted server", (id, error) =>
      events.requestFailed(id, error),
    );
    return {
      send: async (message, context) => this.receive(message, context),
      abandon: (id) => this.stall?.forget(id),
      close: async () => this.end(undefined),
    };
  }

  private receive(message: JsonRpcMessage, context?: SendContext): void {
    if (!this.open_) throw new McpTransportError("DISCONNECTED", "the scripted connection is closed");
    const text = serializeMessage(message);
    checkOutgoingSize(text, this.limitBytes, this.kind);
    const copy = JSON.parse(text) as JsonRpcMessage;
    this.sent.push(copy);
    if (context?.headers) this.headers.set(copy, { ...context.headers });
    this.stall?.sent(copy, context?.longLived);
    if ("method" in copy) {
      if ("id" in copy) void this.answer(copy as JsonRpcRequest);
      return;
    }
    // The client's reply to a request this transport pushed.
    const waiting = copy.id === null ? undefined : this.waitingReplies.get(copy.id);
    if (!waiting || copy.id === null) return;
    this.waitingReplies.delete(copy.id);
    if ("error" in copy) waiting.reject(Object.assign(new Error(`the client answered with error ${copy.error.code}`), { error: copy.error }));
    else waiting.resolve(copy.result);
  }

  private async answer(request: JsonRpcRequest): Promise<void> {
    const entry = this.script[request.method] ?? this.builtInAnswer(request.method);
    if (entry === undefined) {
      queueMicrotask(() =>
        this.events?.requestFailed(
          request.id,
          new McpTransportError("PROTOCOL", `the RecordingTransport script has no answer for "${request.method}"`, {
            method: request.method,
          }),
        ),
      );
      return;
    }
    let answer: Record<string, unknown> | ScriptedError;
    try {
      answer = typeof entry === "function" ? await entry(request.params ?? {}, { request, transport: this }) : entry;
    } catch (cause) {
      // A script may throw an McpTransportError to play a wire failure of this one request.
      const failure =
        cause instanceof McpTransportError
          ? cause
          : new McpTransportError("PROTOCOL", `the RecordingTransport script for "${request.method}" threw`, {
              method: request.method,
              cause,
            });
      this.events?.requestFailed(request.id, failure);
      return;
    }
    this.deliver(
      isScriptedError(answer)
        ? { jsonrpc: "2.0", id: request.id, error: answer.error }
        : { jsonrpc: "2.0", id: request.id, result: answer },
    );
  }

  private builtInAnswer(method: string): ScriptAnswer | undefined {
    if (this.era === "legacy" && method === Method.initialize) return this.initializeAnswer();
    if (this.era === "modern" && method === ModernMethod.discover) {
      return (params) => ({
        resultType: "complete",
        // The scripted server speaks whatever revision it is asked in: it plays a server, it checks none.
        supportedVersions: [requestedRevision(params)],
        capabilities: this.options.capabilities ?? this.impliedCapabilities(),
        _meta: { [MetaKey.serverInfo]: this.options.serverInfo ?? { name: "recording", version: "0.0.0" } },
      });
    }
    return undefined;
  }

  private initializeAnswer(): ScriptAnswer {
    return (params) => ({
      protocolVersion: params.protocolVersion,
      capabilities: this.options.capabilities ?? this.impliedCapabilities(),
      serverInfo: this.options.serverInfo ?? { name: "recording", version: "0.0.0" },
    });
  }

  private impliedCapabilities(): Record<string, unknown> {
    const methods = Object.keys(this.script);
    const capabilities: Record<string, unknown> = {};
    if (methods.some((m) => m.startsWith("tools/"))) capabilities.tools = {};
    if (methods.some((m) => m.startsWith("resources/"))) {
      capabilities.resources = methods.includes(Method.resourcesSubscribe) ? { subscribe: true } : {};
    }
    if (methods.some((m) => m.startsWith("prompts/"))) capabilities.prompts = {};
    if (methods.includes(Method.loggingSetLevel)) capabilities.logging = {};
    if (methods.includes(Method.completionComplete)) capabilities.completions = {};
    return capabilities;
  }

  /** Hands a message to the client asynchronously, through the same checks as a wire. */
  private deliver(message: JsonRpcMessage): void {
    const text = JSON.stringify(message);
    queueMicrotask(() => {
      if (!this.open_ || !this.events) return;
      if (isOverBytes(text, this.limitBytes)) {
        this.end(messageTooLarge(this.limitBytes, "received", this.kind));
        return;
      }
      const copy = toMessage(JSON.parse(text));
      this.stall?.received(copy);
      this.events.message(copy);
    });
  }

  private end(error: McpTransportError | undefined): void {
    if (!this.open_) return;
    this.open_ = false;
    this.stall?.stop();
    for (const waiting of this.waitingReplies.values()) waiting.reject(new Error("the connection closed before the client answered"));
    this.waitingReplies.clear();
    const events = this.events;
    this.events = undefined;
    events?.closed(error ? { error } : {});
  }
}

/** The revision a modern request names in its `_meta`. */
function requestedRevision(params: Record<string, unknown>): unknown {
  return (params._meta as Record<string, unknown> | undefined)?.[MetaKey.protocolVersion];
}
