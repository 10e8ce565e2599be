/**
 * The read-stall ceiling (`readTimeoutMs`) for a connection made of many independent streams:
 * Streamable HTTP reads each request's reply on a stream of its own, so one silent reply must
 * fail alone while the others keep arriving.
 *
 * One timer per connection, not per stream: a stream's activity only records a timestamp, and
 * the timer, when it fires, fails the streams silent for the whole ceiling and re-arms itself
 * for the earliest of the others. It is unref'd (the session's own deadlines keep the process
 * alive while a request waits) and not cleared when the last stream stops: a connection sending
 * one request at a time would otherwise make and clear a timer per request. Firing with nothing
 * watched, it lapses; `close()` clears it.
 */
import { IdTable } from "../../collections/id-table.js";
import { McpTransportError } from "../../errors.js";

/** One stream under watch. */
export interface WatchedStream {
  /** Bytes or a message arrived: the silence starts again. */
  activity(): void;
  /** Stops watching this stream (answered, or given up). Idempotent. */
  stop(): void;
}

class Watched implements WatchedStream {
  lastActivity = Date.now();

  constructor(
    private readonly owner: IdTable<Watched>,
    /** Its key in the owner's table. */
    private readonly key: number,
    readonly onStall: (error: McpTransportError) => void,
  ) {}

  activity(): void {
    this.lastActivity = Date.now();
  }

  stop(): void {
    this.owner.delete(this.key);
  }
}

export class StreamStallWatch {
  private readonly streams = new IdTable<Watched>();
  private nextKey = 1;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly readTimeoutMs: number,
    /** Who is silent, for the message: "the endpoint". */
    private readonly peer: string,
  ) {}

  /** Watches a new stream from now on; `onStall` hears TIMEOUT once, after which it is no longer watched. */
  watch(onStall: (error: McpTransportError) => void): WatchedStream {
    const key = this.nextKey++;
    const stream = new Watched(this.streams, key, onStall);
    this.streams.set(key, stream);
    this.timer ??= this.arm(this.readTimeoutMs);
    return stream;
  }

  /** Stops every watch and the timer. */
  close(): void {
    this.streams.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(delay: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.check(), delay);
    timer.unref();
    return timer;
  }

  private check(): void {
    this.timer = undefined;
    const now = Date.now();
    let nextDue = Infinity;
    const stalled: Watched[] = [];
    for (const stream of this.streams.valueList()) {
      const silentFor = now - stream.lastActivity;
      if (silentFor >= this.readTimeoutMs) stalled.push(stream);
      else nextDue = Math.min(nextDue, this.readTimeoutMs - silentFor);
    }
    if (nextDue !== Infinity) this.timer = this.arm(nextDue);
    for (const stream of stalled) {
      stream.stop();
      stream.onStall(
        new McpTransportError(
          "TIMEOUT",
          `${this.peer} sent nothing for ${this.readTimeoutMs} ms while a request waited (readTimeoutMs)`,
          { timeoutMs: this.readTimeoutMs },
        ),
      );
    }
  }
}
