/**
 * The GET stream of a Streamable HTTP connection: after initialization, the server may send its
 * own requests and notifications there (basic/transports, "Listening for Messages from the
 * Server"). It is optional: a server that answers 405 offers none, one that keeps dropping it is
 * given up after the reconnect budget, and neither ends the connection. A server that cannot be
 * reached any more, or that sends what cannot be read, does end it.
 */
import { McpTransportError } from "../../errors.js";
import type { AbortSignalLike } from "../../util/abort.js";
import type { RequestAbort } from "./request-abort.js";
import type { HttpResponse } from "./http-client.js";
import { isMessageEvent, readSse, type SseProgress } from "./sse-reader.js";
import { disconnected } from "./disconnected.js";
import { reopenEventStream, type ReconnectBudget } from "./stream-reopen.js";

/** What the stream needs of its connection. */
export interface EventStreamHost {
  /** The largest event, in bytes (`maxMessageBytes`). */
  readonly maxEventBytes: number;
  readonly transportName: string;
  /** A new abort switch, tracked by the connection so that its end aborts it. */
  newController(): RequestAbort;
  forgetController(controller: RequestAbort): void;
  /** A GET for the event stream, or undefined when the server offers none (405). */
  openGet(signal: AbortSignalLike, lastEventId: string | undefined, what: string): Promise<HttpResponse | undefined>;
  /** Delivers the messages of one event's data. */
  deliver(data: string): void;
  /** Ends the connection with this failure. */
  endWith(error: McpTransportError): void;
}

export class ServerEventStream {
  private current: RequestAbort | undefined;

  constructor(private readonly host: EventStreamHost) {}

  /** Whether the stream is open (or being opened). */
  get active(): boolean {
    return this.current !== undefined;
  }

  /** Listens for server-initiated messages for as long as the server offers a stream; resolves when it stops. */
  async listen(): Promise<void> {
    if (this.current) return;
    const controller = this.host.newController();
    this.current = controller;
    const progress: SseProgress = {};
    const budget: ReconnectBudget = { reconnects: 0 };
    try {
      for (let first = true; !controller.aborted; first = false) {
        const signal = controller.signal;
        const opened = await reopenEventStream((lastEventId) => this.host.openGet(signal, lastEventId, "the event stream"), budget, progress, signal, first);
        // Given up after the budget, or none offered (405).
        if (opened.kind === "exhausted" || opened.kind === "none") return;
        if (opened.kind === "unreachable") {
          this.host.endWith(disconnected(`the endpoint stopped answering its event stream`, opened.error));
          return;
        }
        if (opened.kind === "refused") {
          // A 2xx that is not an event stream is a broken endpoint; any other refusal means no stream.
          const error = opened.error;
          if (error instanceof McpTransportError && error.httpStatus !== undefined && error.httpStatus < 300) this.host.endWith(error);
          return;
        }
        if (!(await this.read(opened.response, progress, budget, controller))) return;
      }
    } catch {
      // Only an abort reaches here (close, or a new session): nothing to report.
    } finally {
      this.host.forgetController(controller);
      if (this.current === controller) this.current = undefined;
    }
  }

  /** Stops the stream (a new session, or the connection's end). */
  stop(): void {
    this.current?.abort();
    this.current = undefined;
  }

  /** Reads one stream to its end; false when the connection was ended or the stream stopped. */
  private async read(response: HttpResponse, progress: SseProgress, budget: ReconnectBudget, controller: RequestAbort): Promise<boolean> {
    try {
      await readSse(
        response,
        {
          maxEventBytes: this.host.maxEventBytes,
          transportName: this.host.transportName,
          onEvent: (event) => {
            if (!isMessageEvent(event)) return;
            this.host.deliver(event.data);
            budget.reconnects = 0;
          },
        },
        progress,
      );
      return true;
    } catch (error) {
      if (controller.aborted) return false;
      if (error instanceof McpTransportError) {
        // A message past the ceiling or not JSON-RPC is lost to everyone: fail closed.
        this.host.endWith(error);
        return false;
      }
      return true; // dropped: reconnect
    } finally {
      response.discard();
    }
  }
}
