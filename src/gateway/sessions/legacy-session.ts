/**
 * One legacy session (revisions 2025-03-26 to 2025-11-25 over Streamable HTTP): its id, the
 * principal that opened it, its own child, its GET stream for what the child says outside any
 * request, with the events kept for `Last-Event-ID`, and the reply streams of its requests, kept
 * the same way (request-streams.ts). Only the caller that opened a session may use it: its id
 * alone is not enough.
 */
import type { JsonRpcMessage } from "../../protocol/jsonrpc.js";
import type { Principal } from "../gateway-options.js";
import type { ChildExitCause } from "../ops/telemetry.js";
import type { SseWriter } from "../http/sse-writer.js";
import { EventStore } from "./event-store.js";
import { RequestStreams } from "./request-streams.js";
import type { SessionChild } from "./session-child.js";

export class LegacySession {
  /** Set once the child is spawned; requests wait for `initialize` to have set it. */
  child: SessionChild | undefined;
  /** Its `initialize` was answered with a result: until then no other request may use it. */
  initialized = false;
  /**
   * The revision its `initialize` answer settled on, once answered: it decides what the session's
   * POSTs may carry (2025-03-26 alone takes batches, basic/index "Batching").
   */
  revision: string | undefined;
  /** `Date.now()` of the last request or answer; the idle reaper reads it. */
  lastActive = Date.now();
  /** Requests of this session now at its child: a session is never idle while one runs. */
  inFlight = 0;
  /** Ended: by DELETE, idle, its child's death, or the gateway closing. */
  ended = false;
  /** The SSE replies of its POSTed requests, resumable with GET and `Last-Event-ID`. */
  readonly requestStreams: RequestStreams;
  private stream: SseWriter | undefined;
  private readonly events: EventStore;

  constructor(
    readonly id: string,
    readonly principal: Principal,
    maxStoredEvents: number,
  ) {
    this.events = new EventStore(maxStoredEvents);
    this.requestStreams = new RequestStreams(maxStoredEvents);
  }

  /** The caller is the one that opened the session. */
  belongsTo(principal: Principal): boolean {
    return principal.principal === this.principal.principal;
  }

  /**
   * A GET stream opened: it replaces the one before (a caller reconnecting may not have seen its
   * old connection close), and is sent the events it missed.
   */
  attachStream(stream: SseWriter, lastEventId: string | undefined): void {
    this.stream?.end();
    this.stream = stream;
    for (const event of this.events.replay(lastEventId)) {
      if (!stream.send(event.message, event.id)) return;
      this.events.markDelivered(event.id);
    }
  }

  detachStream(stream: SseWriter): void {
    if (this.stream === stream) this.stream = undefined;
  }

  /** A message of the child outside any request: kept, and sent on the GET stream if one is open. */
  unsolicited(message: JsonRpcMessage): void {
    const id = this.events.add(message);
    if (this.stream?.send(message, id)) this.events.markDelivered(id);
  }

  /** Ends the GET stream and every connection carrying a request's stream (the front is closing). */
  endStream(): void {
    this.stream?.end();
    this.stream = undefined;
    this.requestStreams.endConnections();
  }

  /**
   * Ends the streams and stops the child; the caller of this (the store) awaits it. The requests
   * still running fail as the child goes, and their answers reach any stream that carries them;
   * then the request streams are dropped, with what they kept.
   */
  end(cause: ChildExitCause): Promise<void> {
    this.ended = true;
    this.stream?.end();
    this.stream = undefined;
    const stopped = this.child?.close(cause) ?? Promise.resolve();
    return stopped.finally(() => this.requestStreams.close());
  }
}
