/**
 * The read-stall ceiling (`readTimeoutMs`) for a connection made of many independent streams:
 * Streamable HTTP reads each request's reply on a stream of its own, so one silent reply must
 * fail alone while the others keep arriving.
 *
 * On the one clock (collections/deadlines.ts): each stream is due `readTimeoutMs` after its last
 * activity, and activity only records a timestamp, with no work on the clock per chunk. When a stream
 * comes due, it has stalled if nothing arrived since; otherwise it is due again from its last
 * activity. The clock's timer never keeps the process alive: the session's own deadlines do,
 * while a request waits.
 */
import { Deadlines, monotonicNow, type Deadline } from "../../collections/deadlines.js";
import type { McpTransportError } from "../../errors.js";
import { readStallError } from "./read-stall-error.js";

/** One stream under watch. */
export interface WatchedStream {
  /** Bytes or a message arrived: the silence starts again. */
  activity(): void;
  /** Stops watching this stream (answered, or given up). Idempotent. */
  stop(): void;
}

class Watched implements WatchedStream, Deadline {
  dueAt = 0;
  clockIndex = -1;
  lastActivity = monotonicNow();

  constructor(
    private readonly clock: Deadlines<Watched>,
    readonly onStall: (error: McpTransportError) => void,
  ) {}

  activity(): void {
    this.lastActivity = monotonicNow();
  }

  stop(): void {
    this.clock.delete(this);
  }
}

export class StreamStallWatch {
  private readonly clock = new Deadlines<Watched>((stream) => this.due(stream), { keepsProcessAlive: false });

  constructor(
    private readonly readTimeoutMs: number,
    /** Who is silent, for the message: "the endpoint". */
    private readonly peer: string,
  ) {}

  /** Watches a new stream from now on; `onStall` hears TIMEOUT once, after which it is no longer watched. */
  watch(onStall: (error: McpTransportError) => void): WatchedStream {
    const stream = new Watched(this.clock, onStall);
    this.clock.set(stream, stream.lastActivity + this.readTimeoutMs);
    return stream;
  }

  /** Stops every watch and the timer. */
  close(): void {
    this.clock.stop();
  }

  private due(stream: Watched): void {
    const dueAgainAt = stream.lastActivity + this.readTimeoutMs;
    // Node's timers may fire a little early by the monotonic clock; the clock itself allows for it.
    if (dueAgainAt > monotonicNow()) {
      this.clock.set(stream, dueAgainAt);
      return;
    }
    stream.onStall(readStallError(this.peer, this.readTimeoutMs));
  }
}
