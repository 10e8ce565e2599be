/**
 * The read-stall ceiling (`readTimeoutMs`) for a connection that is one stream of messages
 * (stdio, in-memory, WebSocket, the legacy SSE stream).
 *
 * It tracks the requests sent and not yet answered; while there is at least one, a read silence
 * longer than `readTimeoutMs` fails each of them with TIMEOUT. Any activity from the peer (bytes,
 * a message) restarts the count, which starts at the first request of a busy spell, not at the
 * last idle byte.
 *
 * One stream needs one timestamp and one timer, not the list of streams Streamable HTTP keeps
 * for its many replies (stream-stall-watch.ts). Activity only records the time. The timer is
 * unref'd, armed when a busy spell starts and none is pending; when it fires while requests wait
 * it is armed again from the last activity, and while none waits it lapses. So a connection
 * answering one request at a time makes no timer and no object per request: its call path keeps
 * the ceiling with a clock reading and an entry in the table of ids (bench/RESULTS.md, "The
 * read-stall watch of one stream").
 */
import { IdTable } from "../../collections/id-table.js";
import { monotonicNow } from "../../collections/deadlines.js";
import type { McpTransportError } from "../../errors.js";
import type { JsonRpcMessage, RequestId } from "../../protocol/jsonrpc.js";
import { readStallError } from "./read-stall-error.js";

export class ReadStallWatch {
  private readonly outstanding = new IdTable<true>();
  /** When the peer was last heard from, or the busy spell began (monotonic ms). */
  private lastActivity = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly onTimer = (): void => this.check();

  constructor(
    private readonly readTimeoutMs: number,
    /** Who is silent, for the message: "the server process". */
    private readonly peer: string,
    private readonly onStall: (id: RequestId, error: McpTransportError) => void,
  ) {}

  /** Requests sent and not yet answered. */
  get waiting(): number {
    return this.outstanding.size;
  }

  /** Call with every message handed to the wire; a long-lived request is not waited for. */
  sent(message: JsonRpcMessage, longLived = false): void {
    if (longLived || !("id" in message) || !("method" in message)) return;
    if (this.outstanding.size === 0) {
      this.lastActivity = monotonicNow();
      if (this.timer === undefined) this.arm(this.readTimeoutMs);
    }
    this.outstanding.set(message.id, true);
  }

  /** Call with every message received: a response settles its request. */
  received(message: JsonRpcMessage): void {
    this.lastActivity = monotonicNow();
    if (!("method" in message) && message.id !== null) this.outstanding.delete(message.id);
  }

  /** Call when bytes arrive that are not yet a whole message. */
  activity(): void {
    this.lastActivity = monotonicNow();
  }

  /** The session stopped waiting for this request. */
  forget(id: RequestId): void {
    this.outstanding.delete(id);
  }

  stop(): void {
    this.stopped = true;
    this.outstanding.clear();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(delayMs: number): void {
    if (this.stopped) return;
    // Node's timers count whole ms and may fire a little early by the monotonic clock: check() looks again.
    this.timer = setTimeout(this.onTimer, Math.max(1, Math.ceil(delayMs)));
    this.timer.unref();
  }

  private check(): void {
    this.timer = undefined;
    if (this.outstanding.size === 0) return; // idle: the next busy spell arms it again
    const silentMs = monotonicNow() - this.lastActivity;
    if (silentMs < this.readTimeoutMs) {
      this.arm(this.readTimeoutMs - silentMs);
      return;
    }
    const error = readStallError(this.peer, this.readTimeoutMs);
    const stalled = this.outstanding.idList();
    this.outstanding.clear();
    for (const id of stalled) this.onStall(id, error);
  }
}
