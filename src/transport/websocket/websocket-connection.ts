/**
 * One open WebSocket of the WebSocket transport (src/transport/websocket.ts), from the upgrade to
 * the close event: text frames in and out, the byte ceiling, the read-stall ceiling, keepalive,
 * writes that respect backpressure, and a close handshake bounded in time.
 *
 * A failure found on this side (a binary frame, a message that is not JSON-RPC, a frame past
 * `maxMessageBytes`, a ping left unanswered) is reported at once, and the socket follows within
 * the close deadline; `close()` resolves only once the socket is closed.
 */
import type { Duplex } from "node:stream";
import type { RawData, WebSocket } from "ws";
import { IdTable } from "../../collections/id-table.js";
import { McpTransportError } from "../../errors.js";
import { serializeMessage, type JsonRpcMessage, type RequestId } from "../../protocol/jsonrpc.js";
import { PingKeepAlive, type KeepAliveSettings } from "./ping-keepalive.js";
import { closedOnce, type EventsClosedOnce } from "../common/ending.js";
import { IncomingBatches } from "../common/incoming-batches.js";
import { ReadStallWatch } from "../common/read-stall.js";
import { isOverBytes, messageTooLarge, type Limits } from "../limits.js";
import type { ConnectionEnding, ConnectionEvents, McpConnection, SendContext, WireRules } from "../transport.js";

/** `WebSocket.readyState` values (RFC 6455 / the WHATWG API), without loading `ws` to name them. */
const OPEN = 1;
const CLOSED = 3;

/** Close codes (RFC 6455 section 7.4.1). */
const CLOSE_NORMAL = 1000;
const CLOSE_PROTOCOL_ERROR = 1002;
const CLOSE_UNSUPPORTED_DATA = 1003;
/** Reported by `ws` when the socket ended without a close frame; never sent. */
const CLOSE_ABNORMAL = 1006;
/** The server broke the rules of the subprotocol (a text frame that is not one JSON-RPC message). */
const CLOSE_POLICY_VIOLATION = 1008;
const CLOSE_MESSAGE_TOO_BIG = 1009;

const KIND = "websocket";
const PEER = "the WebSocket server";

/**
 * The `cause` of a DISCONNECTED error when the socket closed under us: the close code (1006 when
 * it dropped without a close frame) and the server's close reason, verbatim.
 */
export class WebSocketCloseError extends Error {
  override readonly name = "WebSocketCloseError";

  constructor(
    readonly closeCode: number,
    readonly closeReason: string,
  ) {
    super(`the WebSocket closed with code ${closeCode}`);
  }
}

/** One open WebSocket, from the upgrade to the close event. */
export class WebSocketConnection implements McpConnection {
  private readonly events: EventsClosedOnce;
  /** The socket is being closed (or is closed); nothing more is delivered or sent. */
  private closing = false;
  private failure: McpTransportError | undefined;
  /** The socket was told to close (or was destroyed); it is released on its close event. */
  private shuttingDown = false;
  private closeDeadline: NodeJS.Timeout | undefined;
  /** The sends not yet written, by a number of their own: failed all at once if the socket ends. */
  private readonly sends = new IdTable<(error: McpTransportError) => void>();
  private nextSend = 1;
  private readonly stall: ReadStallWatch;
  private readonly keepAlive: PingKeepAlive;
  /** Whether a text frame may hold a JSON-RPC batch (revision 2025-03-26), as the era said. */
  private readonly batches = new IncomingBatches();
  private markReleased!: () => void;
  /** Settles once the socket is closed. */
  private readonly released = new Promise<void>((resolve) => (this.markReleased = resolve));

  constructor(
    private readonly socket: WebSocket,
    events: ConnectionEvents,
    private readonly limits: Limits,
    keepAlive: KeepAliveSettings,
    private readonly closeTimeoutMs: number,
    /** The stream under the socket, when known: any byte on it restarts the read-stall count. */
    private readonly wire?: Duplex,
  ) {
    this.events = closedOnce(events);
    this.stall = new ReadStallWatch(limits.readTimeoutMs, PEER, (id, error) => events.requestFailed(id, error));
    this.keepAlive = new PingKeepAlive(
      keepAlive,
      () => socket.ping(),
      () =>
        this.fail(
          new McpTransportError(
            "DISCONNECTED",
            `${PEER} did not answer a ping within ${keepAlive.timeoutMs} ms (keepAlive.timeoutMs); the connection is presumed dead`,
            { timeoutMs: keepAlive.timeoutMs },
          ),
        ),
    );
    // readTimeoutMs bounds silence, and a large message arriving in slow fragments is not silence.
    wire?.on("data", this.onBytes);
    socket.on("message", (data, isBinary) => this.onMessage(data, isBinary));
    socket.on("pong", () => this.keepAlive.pong());
    socket.on("ping", () => this.keepAlive.activity());
    socket.on("error", (error) => this.onError(error));
    socket.on("close", (code, reason) => this.onClose(code, reason));
    this.keepAlive.start();
  }

  send(message: JsonRpcMessage, context?: SendContext): Promise<void> {
    if (this.closing || this.socket.readyState !== OPEN) return Promise.reject(this.notOpen());
    let text: string;
    try {
      text = serializeMessage(message);
    } catch (error) {
      return Promise.reject(error);
    }
    if (isOverBytes(text, this.limits.maxMessageBytes)) return Promise.reject(messageTooLarge(this.limits.maxMessageBytes, "sent", KIND));
    return new Promise<void>((resolve, reject) => {
      const key = this.nextSend++;
      const fail = (error: McpTransportError) => {
        if (this.sends.delete(key)) reject(error);
      };
      this.sends.set(key, fail);
      try {
        // The callback runs once the frame is written to the socket: that is the backpressure.
        this.socket.send(text, (error) => {
          if (!error) {
            if (this.sends.delete(key)) resolve();
          } else {
            fail(new McpTransportError("DISCONNECTED", `the message could not be written: the socket to ${PEER} failed`, { cause: error }));
          }
        });
      } catch (cause) {
        fail(new McpTransportError("DISCONNECTED", `the message could not be written to ${PEER}`, { cause }));
        return;
      }
      this.stall.sent(message, context?.longLived);
    });
  }

  abandon(id: RequestId): void {
    this.stall.forget(id);
  }

  setProtocolVersion(_revision: string, rules?: WireRules): void {
    this.batches.follow(rules);
  }

  close(): Promise<void> {
    this.report({});
    this.shutdown(CLOSE_NORMAL);
    return this.released;
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.closing) return;
    this.keepAlive.activity();
    if (isBinary) {
      this.fail(
        new McpTransportError(
          "PROTOCOL",
          `${PEER} sent a binary frame; MCP over WebSocket carries one JSON-RPC message per text frame`,
        ),
        CLOSE_UNSUPPORTED_DATA,
      );
      return;
    }
    let read: JsonRpcMessage | JsonRpcMessage[];
    try {
      read = this.batches.read(textOf(data));
    } catch (error) {
      this.fail(error as McpTransportError, CLOSE_POLICY_VIOLATION);
      return;
    }
    if (!Array.isArray(read)) {
      this.stall.received(read);
      this.events.message(read);
      return;
    }
    for (const message of read) {
      // A message of the batch may have ended the connection (a handler closing it).
      if (this.closing) return;
      this.stall.received(message);
      this.events.message(message);
    }
  }

  /** ws reports an error once; for a bad frame it has already started the close handshake itself. */
  private onError(error: Error): void {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") {
      this.fail(messageTooLarge(this.limits.maxMessageBytes, "received", KIND).with({ cause: error }), CLOSE_MESSAGE_TOO_BIG);
    } else if (typeof code === "string" && code.startsWith("WS_ERR_")) {
      this.fail(
        new McpTransportError("PROTOCOL", `${PEER} sent a frame that breaks the WebSocket protocol (${code})`, { cause: error }),
        CLOSE_PROTOCOL_ERROR,
      );
    } else {
      // The socket itself failed: there is nobody to close it with.
      this.fail(
        new McpTransportError("DISCONNECTED", `the socket to ${PEER} failed${typeof code === "string" ? ` (${code})` : ""}`, {
          cause: error,
        }),
      );
    }
  }

  private readonly onBytes = (): void => this.stall.activity();

  private onClose(code: number, reason: Buffer): void {
    clearTimeout(this.closeDeadline);
    this.wire?.off("data", this.onBytes);
    this.closing = true;
    this.report({ error: this.failure ?? closedUnderUs(code, reason.toString("utf8")) });
    this.markReleased();
  }

  /** A failure found on this side ends the connection now; the socket follows within the close deadline. */
  private fail(error: McpTransportError, closeCode?: number): void {
    this.failure ??= error;
    this.report({ error });
    this.shutdown(closeCode);
  }

  /** Tells the session once how the connection ended, and stops everything that waits on it. */
  private report(ending: ConnectionEnding): void {
    if (this.events.reported) return;
    this.closing = true;
    this.stall.stop();
    this.keepAlive.stop();
    for (const fail of this.sends.valueList()) fail(this.notOpen());
    this.events.closed(ending);
  }

  /**
   * Closes the socket with `closeCode` and a close handshake bounded by the close deadline;
   * without a code (a peer presumed dead) it is destroyed at once.
   */
  private shutdown(closeCode: number | undefined): void {
    if (this.shuttingDown || this.socket.readyState === CLOSED) return;
    this.shuttingDown = true;
    if (closeCode === undefined) {
      this.socket.terminate();
      return;
    }
    this.closeDeadline = setTimeout(() => this.socket.terminate(), this.closeTimeoutMs);
    try {
      this.socket.close(closeCode);
    } catch {
      this.socket.terminate();
    }
  }

  private notOpen(): McpTransportError {
    return new McpTransportError("DISCONNECTED", `the connection to ${PEER} is closed`, {
      cause: this.failure,
    });
  }
}

/** The socket closed without us asking: the server closed it, or it dropped. */
function closedUnderUs(code: number, reason: string): McpTransportError {
  const cause = new WebSocketCloseError(code, reason);
  const details = { cause, ...(reason ? { serverMessage: reason } : {}) };
  if (code === CLOSE_ABNORMAL) {
    return new McpTransportError("DISCONNECTED", `the connection to ${PEER} dropped without a close frame (close code ${code})`, details);
  }
  return new McpTransportError("DISCONNECTED", `${PEER} closed the connection (close code ${code})`, details);
}

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}
