/**
 * The read-stall ceiling (`readTimeoutMs`) for a connection that is one stream of messages
 * (stdio, in-memory, WebSocket, the legacy SSE stream).
 *
 * It tracks the requests sent and not yet answered; while there is at least one, a read silence
 * longer than `readTimeoutMs` fails each of them with TIMEOUT. Any activity from the peer (bytes,
 * a message) restarts the count. One timer per connection, not per message: activity only
 * records a timestamp, and the timer re-arms itself for the time left when it fires early.
 * Nor is the timer cleared when the last answer arrives (it is unref'd, so it keeps nothing
 * alive): a connection answering one request at a time would otherwise make and clear a timer
 * per request. When it fires with nothing outstanding it lapses; `stop()` clears it.
 */
import { McpTransportError } from "../../errors.js";
import type { JsonRpcMessage, RequestId } from "../../protocol/jsonrpc.js";

export class ReadStallWatch {
  private readonly outstanding = new Set<RequestId>();
  private lastActivity = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly readTimeoutMs: number,
    private readonly transportName: string,
    private readonly onStall: (id: RequestId, error: McpTransportError) => void,
  ) {}

  /** Call with every message handed to the wire; a long-lived request is not waited for. */
  sent(message: JsonRpcMessage, longLived = false): void {
    if (longLived || !("id" in message) || !("method" in message)) return;
    if (this.outstanding.size === 0) this.lastActivity = Date.now();
    this.outstanding.add(message.id);
    this.timer ??= this.arm(this.readTimeoutMs);
  }

  /** Call with every message received: a response settles its request. */
  received(message: JsonRpcMessage): void {
    this.lastActivity = Date.now();
    if (!("method" in message) && message.id !== null) this.outstanding.delete(message.id);
  }

  /** Call when bytes arrive that are not yet a whole message. */
  activity(): void {
    this.lastActivity = Date.now();
  }

  /** The session stopped waiting for this request. */
  forget(id: RequestId): void {
    this.outstanding.delete(id);
  }

  stop(): void {
    this.outstanding.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(delay: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.check(), delay);
    // The session's own deadline keeps the process alive while a request waits; this one need not.
    timer.unref();
    return timer;
  }

  private check(): void {
    this.timer = undefined;
    if (this.outstanding.size === 0) return;
    const silentFor = Date.now() - this.lastActivity;
    if (silentFor < this.readTimeoutMs) {
      this.timer = this.arm(this.readTimeoutMs - silentFor);
      return;
    }
    const stalled = [...this.outstanding];
    this.outstanding.clear();
    for (const id of stalled) {
      this.onStall(
        id,
        new McpTransportError(
          "TIMEOUT",
          `${this.transportName} sent nothing for ${this.readTimeoutMs} ms while a request waited (readTimeoutMs)`,
          { timeoutMs: this.readTimeoutMs },
        ),
      );
    }
  }
}
