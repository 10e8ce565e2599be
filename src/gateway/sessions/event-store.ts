/**
 * The events of one session's GET stream, kept for `Last-Event-ID` (transports, "Resumability and
 * Redelivery"): at most `max`, the oldest dropped first, so a caller that never comes back costs a
 * bounded amount. Ids are the event's sequence number in the session: plain numbers, unique
 * across its streams because the request streams' ids have a shape of their own
 * (`r<stream>-<event>`, request-streams.ts). An id of neither shape, or one whose events were
 * dropped, resumes from what is still kept: the GET stream never ends, and what it lost is lost
 * either way. An event sent while no stream is open is kept and sent when one opens, so a
 * server's request made between two GETs is not lost.
 */
import type { JsonRpcMessage } from "../../protocol/jsonrpc.js";

export interface StoredEvent {
  id: string;
  message: JsonRpcMessage;
}

export class EventStore {
  private readonly events: Array<{ seq: number; message: JsonRpcMessage }> = [];
  private nextSeq = 1;
  /** The highest sequence number written to a stream. */
  private delivered = 0;

  constructor(private readonly max: number) {}

  /** Keeps a message; returns its event id. */
  add(message: JsonRpcMessage): string {
    const seq = this.nextSeq++;
    if (this.max > 0) {
      this.events.push({ seq, message });
      if (this.events.length > this.max) this.events.shift();
    }
    return String(seq);
  }

  /** Notes that the event of this id reached a stream. */
  markDelivered(id: string): void {
    this.delivered = Math.max(this.delivered, Number(id));
  }

  /**
   * What a new stream is sent first: the events after `lastEventId` when the caller resumes
   * (those still kept), else the events no stream has carried yet.
   */
  replay(lastEventId: string | undefined): StoredEvent[] {
    const resumed = lastEventId !== undefined && /^\d+$/.test(lastEventId) ? Number(lastEventId) : undefined;
    const after = resumed ?? this.delivered;
    return this.events.filter((event) => event.seq > after).map((event) => ({ id: String(event.seq), message: event.message }));
  }

  get size(): number {
    return this.events.length;
  }
}
