/**
 * The read-stall ceiling (`readTimeoutMs`) for a connection that is one stream of messages
 * (stdio, in-memory, WebSocket, the legacy SSE stream).
 *
 * It tracks the requests sent and not yet answered; while there is at least one, a read silence
 * longer than `readTimeoutMs` fails each of them with TIMEOUT. Any activity from the peer (bytes,
 * a message) restarts the count. The clock is the one Streamable HTTP uses for its many reply
 * streams (stream-stall-watch.ts), here with one stream: the connection, watched from the first
 * request sent to the last one answered. Its one timer is unref'd and outlives idle moments, so
 * a connection answering one request at a time makes no timer per request.
 */
import { IdTable } from "../../collections/id-table.js";
import type { McpTransportError } from "../../errors.js";
import type { JsonRpcMessage, RequestId } from "../../protocol/jsonrpc.js";
import { StreamStallWatch, type WatchedStream } from "./stream-stall-watch.js";

export class ReadStallWatch {
  private readonly outstanding = new IdTable<true>();
  private readonly clock: StreamStallWatch;
  /** The connection under watch while a request waits for its answer. */
  private watched: WatchedStream | undefined;
  private readonly onSilence = (error: McpTransportError) => this.stalled(error);

  constructor(
    readTimeoutMs: number,
    /** Who is silent, for the message: "the server process". */
    peer: string,
    private readonly onStall: (id: RequestId, error: McpTransportError) => void,
  ) {
    this.clock = new StreamStallWatch(readTimeoutMs, peer);
  }

  /** Requests sent and not yet answered. */
  get waiting(): number {
    return this.outstanding.size;
  }

  /** Call with every message handed to the wire; a long-lived request is not waited for. */
  sent(message: JsonRpcMessage, longLived = false): void {
    if (longLived || !("id" in message) || !("method" in message)) return;
    this.outstanding.set(message.id, true);
    // The silence is counted from the first request of a busy spell, not from the last idle byte.
    this.watched ??= this.clock.watch(this.onSilence);
  }

  /** Call with every message received: a response settles its request. */
  received(message: JsonRpcMessage): void {
    this.watched?.activity();
    if (!("method" in message) && message.id !== null) this.forget(message.id);
  }

  /** Call when bytes arrive that are not yet a whole message. */
  activity(): void {
    this.watched?.activity();
  }

  /** The session stopped waiting for this request. */
  forget(id: RequestId): void {
    this.outstanding.delete(id);
    if (this.outstanding.size === 0) this.unwatch();
  }

  stop(): void {
    this.outstanding.clear();
    this.watched = undefined;
    this.clock.close();
  }

  private unwatch(): void {
    this.watched?.stop();
    this.watched = undefined;
  }

  private stalled(error: McpTransportError): void {
    this.watched = undefined;
    const stalled = this.outstanding.idList();
    this.outstanding.clear();
    for (const id of stalled) this.onStall(id, error);
  }
}
