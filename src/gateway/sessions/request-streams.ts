/**
 * The SSE reply streams of one legacy session's POSTed requests, kept so that a caller whose
 * connection dropped can resume them (transports, "Resumability and Redelivery", revisions
 * 2025-03-26 to 2025-11-25): "Disconnection SHOULD NOT be interpreted as the client cancelling
 * its request", so the request runs on, and what it says meanwhile waits here.
 *
 * - Every event of a request stream has an id that names its stream and its place in it,
 *   `r<stream>-<event>` (`r3-0` is stream 3's priming event, `r3-1` its first message). The
 *   numbers never repeat within the session, so an id is unique across all its streams; the GET
 *   stream's ids are plain numbers (event-store.ts), so the two never meet.
 * - A GET with `Last-Event-ID` naming a stream gets the events after it, then the stream live
 *   until its answer, then the end. Never another stream's events.
 * - At most `max` events are kept across the session's request streams, the oldest dropped
 *   first: a caller that never comes back costs a bounded amount. A stream whose events after
 *   the caller's id were dropped cannot be resumed (the caller would miss them, maybe the answer),
 *   and says so rather than send a stream with a hole in it.
 * - One connection carries a stream at a time (transports, "Multiple Connections": a message
 *   goes on one stream only): a resume while one is open is refused.
 * - A stream is forgotten once its answer went out in full on a connection that then ended (the
 *   caller had it all), once its answer itself was dropped, or when the session ends.
 */
import type { JsonRpcMessage, JsonRpcResponse } from "../../protocol/jsonrpc.js";
import type { SseWriter } from "../http/sse-writer.js";

/** The shape of a request stream's event id. */
const EVENT_ID = /^r(\d{1,15})-(\d{1,15})$/;

/** Whether a `Last-Event-ID` names a request stream (rather than the session's GET stream). */
export function namesRequestStream(lastEventId: string): boolean {
  return EVENT_ID.test(lastEventId);
}

function eventId(stream: number, index: number): string {
  return `r${stream}-${index}`;
}

/**
 * What a `Last-Event-ID` finds: the stream and the place to resume after, or why not:
 * `unknown` (no stream of this session has sent that id, or the stream was answered and is
 * forgotten), or `dropped` (events after it are no longer kept).
 */
export type ResumePoint = { stream: RequestStream; after: number } | { refused: "unknown" | "dropped" };

interface KeptEvent {
  stream: RequestStream;
  index: number;
  message: JsonRpcMessage;
}

export class RequestStreams {
  private readonly streams = new Map<number, RequestStream>();
  /** Every kept event of every stream, oldest first: a Set keeps the order and deletes in O(1). */
  private readonly kept = new Set<KeptEvent>();
  private nextStream = 1;
  private closed = false;

  constructor(private readonly max: number) {}

  /** A new stream, for a request whose reply has just become an SSE stream. */
  open(): RequestStream {
    const stream = new RequestStream(this.nextStream++, this);
    if (!this.closed) this.streams.set(stream.key, stream);
    return stream;
  }

  /** Where a GET with this `Last-Event-ID` resumes, or why it cannot. */
  find(lastEventId: string): ResumePoint {
    const match = EVENT_ID.exec(lastEventId);
    const stream = match === null ? undefined : this.streams.get(Number(match[1]));
    const after = Number(match?.[2]);
    if (stream === undefined || after >= stream.sent) return { refused: "unknown" };
    if (stream.droppedThrough > after) return { refused: "dropped" };
    return { stream, after };
  }

  /** Streams held (in flight, or answered and still resumable). */
  get size(): number {
    return this.streams.size;
  }

  /** Events held, of all streams. */
  get keptEvents(): number {
    return this.kept.size;
  }

  /** Ends every connection that carries a stream (the front is closing); the streams stay. */
  endConnections(): void {
    for (const stream of this.streams.values()) stream.endConnection();
  }

  /** The session ended: every connection ended, nothing kept, nothing kept from now on. */
  close(): void {
    this.closed = true;
    for (const stream of [...this.streams.values()]) {
      stream.endConnection();
      this.forget(stream);
    }
  }

  /** Keeps an event of a stream, dropping the oldest past `max`. */
  keep(stream: RequestStream, index: number, message: JsonRpcMessage): KeptEvent | undefined {
    if (this.closed || !this.streams.has(stream.key)) return undefined;
    const event: KeptEvent = { stream, index, message };
    this.kept.add(event);
    while (this.kept.size > this.max) {
      const oldest = this.kept.values().next().value!;
      this.kept.delete(oldest);
      oldest.stream.dropped(oldest);
    }
    return this.kept.has(event) ? event : undefined;
  }

  /** Forgets a stream and its events: it can no longer be resumed. */
  forget(stream: RequestStream): void {
    if (this.streams.get(stream.key) !== stream) return;
    this.streams.delete(stream.key);
    for (const event of stream.events.splice(0)) this.kept.delete(event);
  }
}

/** One request's reply stream: its kept events, the connection carrying it now, its answer. */
export class RequestStream {
  /** Its kept events, oldest first (the session's store drops from the front). */
  readonly events: KeptEvent[] = [];
  /** The index of the last event dropped from the store; a resume from before it would miss it. */
  droppedThrough = 0;
  private nextIndex = 1;
  private connection: SseWriter | undefined;
  private answered = false;

  constructor(
    readonly key: number,
    private readonly owner: RequestStreams,
  ) {}

  /** The id of the priming event (an id and empty data), which lets a caller resume from the start. */
  get primingId(): string {
    return eventId(this.key, 0);
  }

  /** Events sent so far, the priming one counted: an id at or past it was never sent. */
  get sent(): number {
    return this.nextIndex;
  }

  /** A connection carries the stream now (one that is closing, its close not yet reported, does not). */
  get connected(): boolean {
    return this.connection !== undefined && !this.connection.closed;
  }

  /**
   * A connection now carries the stream: the POST's own (nothing to replay), or a GET resuming
   * it, which is sent the events after `after`, and ends at once if the answer was among them.
   */
  connect(writer: SseWriter, after = this.nextIndex - 1): void {
    // A resume takes the stream from the connection that carried it, which is ended: its caller
    // reads it no longer (it resumed), though the gateway may not have seen it close (a
    // half-open connection), and a message goes on one connection only.
    const previous = this.connection;
    this.connection = writer;
    if (previous !== undefined && previous !== writer) previous.end();
    for (const event of this.events) {
      if (event.index > after && !writer.send(event.message, eventId(this.key, event.index))) return;
    }
    if (this.answered) writer.end();
  }

  /**
   * A connection closed. `delivered`: it ended after writing everything it was given (the answer
   * included, if it was given): then an answered stream is done with.
   */
  disconnect(writer: SseWriter, delivered: boolean): void {
    if (this.connection !== writer) return;
    this.connection = undefined;
    if (this.answered && delivered) this.owner.forget(this);
  }

  /** A message of the request before its answer: kept, and sent if a connection carries the stream. */
  send(message: JsonRpcMessage): void {
    const index = this.nextIndex++;
    const kept = this.owner.keep(this, index, message);
    if (kept !== undefined) this.events.push(kept);
    else this.droppedThrough = index;
    this.connection?.send(message, eventId(this.key, index));
  }

  /** The answer: kept like any message, then the connection (if one) ends. Returns whether a connection carried it. */
  answer(response: JsonRpcResponse): boolean {
    const carried = this.connection !== undefined;
    this.send(response);
    this.answered = true;
    this.connection?.end();
    // The answer is not kept (the store holds none, or the session ended): no resumption could
    // end the stream, so there is nothing to resume.
    if (this.droppedThrough === this.nextIndex - 1) this.owner.forget(this);
    return carried;
  }

  /** Ends the connection carrying the stream, if one does. */
  endConnection(): void {
    this.connection?.end();
  }

  /** The session's store dropped this stream's oldest event. */
  dropped(event: KeptEvent): void {
    if (this.events[0] === event) this.events.shift();
    this.droppedThrough = Math.max(this.droppedThrough, event.index);
    // Its answer is gone: no resumption can end it any more.
    if (this.answered && this.events.length === 0) this.owner.forget(this);
  }
}
