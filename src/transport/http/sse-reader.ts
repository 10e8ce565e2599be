/**
 * Reads a whole Server-Sent Events body (`text/event-stream`), for every transport that receives
 * one: Streamable HTTP (reply streams and the GET stream) and the legacy HTTP+SSE transport.
 *
 * The parsing is eventsource-parser's. This file adds what a hardened client needs on top:
 * - the byte ceiling per event, kept while reading: the parser's buffer is capped, so an event
 *   that never ends cannot grow memory past `maxEventBytes`, and each event is measured exactly;
 * - every chunk reported as activity (for the read-stall ceiling);
 * - the last event id (an event of an id alone counts too: sse-last-event-id.ts) and the server's
 *   `retry` field kept for resumption;
 * - an event cut off by the end of the stream is not delivered (as the SSE standard says).
 */
import { StringDecoder } from "node:string_decoder";
import type * as EventSourceParser from "eventsource-parser";
import type { EventSourceMessage, ParseError } from "eventsource-parser";
import type { McpTransportError } from "../../errors.js";
import type { HttpResponse } from "./http-client.js";
import { messageTooLarge } from "../limits.js";
import { LastEventIdTracker } from "./sse-last-event-id.js";

export interface SseEvent {
  /** The event's `id`, when it had one. */
  id?: string;
  /** The event's type; absent means the default, "message". */
  event?: string;
  data: string;
}

export interface SseReadOptions {
  /** The largest event data, in bytes of UTF-8. Past it, LIMIT. */
  maxEventBytes: number;
  /** Names the wire in error messages. */
  transportName: string;
  /** Called once per complete event, in order. Throwing stops the read with that error. */
  onEvent(event: SseEvent): void;
  /** Called with the server's `retry` field, in ms. */
  onRetry?(ms: number): void;
  /** Called for every chunk received, before it is parsed. */
  onActivity?(): void;
}

/** What the reader knows when the body ends or fails. */
export interface SseProgress {
  /** The id of the last event that had one: the `Last-Event-ID` to resume from; none after an empty id. */
  lastEventId?: string;
  /** The last `retry` the server asked for, in ms. */
  retryMs?: number;
}

/**
 * eventsource-parser, loaded by the first event stream read rather than with mcpwire: only the
 * HTTP transports read one. Kept once loaded, so that later reads do not wait for it.
 */
let parserModule: typeof EventSourceParser | undefined;
let loadingParser: Promise<typeof EventSourceParser> | undefined;

function loadParser(): Promise<typeof EventSourceParser> {
  loadingParser ??= import("eventsource-parser").then((module) => (parserModule = module));
  return loadingParser;
}

/**
 * Reads a response's body to its end. Resolves when the server ends the stream; rejects with
 * LIMIT when an event is too large, with what `onEvent` threw, or with the read error when the
 * connection is lost. `progress` is kept up to date either way, for a caller that resumes the stream.
 */
export async function readSse(
  response: Pick<HttpResponse, "read">,
  options: SseReadOptions,
  progress: SseProgress = {},
): Promise<void> {
  const { createParser } = parserModule ?? (await loadParser());
  let failure: McpTransportError | undefined;
  const parser = createParser({
    // Characters never outnumber UTF-8 bytes, so this caps the buffer at the byte ceiling at most.
    maxBufferSize: options.maxEventBytes,
    onEvent(message: EventSourceMessage) {
      if (failure) return;
      if (message.data.length * 3 > options.maxEventBytes && Buffer.byteLength(message.data, "utf8") > options.maxEventBytes) {
        failure = messageTooLarge(options.maxEventBytes, "received", options.transportName);
        return;
      }
      const event: SseEvent = { data: message.data };
      if (message.id !== undefined) event.id = message.id;
      if (message.event !== undefined) event.event = message.event;
      options.onEvent(event);
    },
    onRetry(ms: number) {
      progress.retryMs = ms;
      options.onRetry?.(ms);
    },
    onError(error: ParseError) {
      // Unknown fields and bad retry values are ignored, as the SSE standard says; only the
      // buffer ceiling is a failure.
      if (error.type === "max-buffer-size-exceeded" && !failure) {
        failure = messageTooLarge(options.maxEventBytes, "received", options.transportName);
      }
    },
  });
  // A StringDecoder rather than a TextDecoder: the same UTF-8 decoding (a character cut between
  // chunks is carried over, invalid bytes become U+FFFD), without a converter to open per stream.
  const decoder = new StringDecoder("utf8");
  // The last event id, kept beside the parser, which drops an event of an id alone (sse-last-event-id.ts).
  const ids = new LastEventIdTracker();
  ids.lastEventId = progress.lastEventId;
  let bomChecked = false;
  const feed = (text: string) => {
    if (text === "") return;
    if (!bomChecked) {
      bomChecked = true;
      // The SSE standard ignores one leading byte order mark.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    parser.feed(text);
    if (failure) return;
    ids.scan(text);
    // An empty id resets it: nothing is left to resume from, and the SSE standard then sends no Last-Event-ID.
    if (ids.lastEventId === "") delete progress.lastEventId;
    else if (ids.lastEventId !== undefined) progress.lastEventId = ids.lastEventId;
  };
  await response.read((chunk) => {
    options.onActivity?.();
    feed(decoder.write(chunk));
    if (failure) throw failure;
  });
  feed(decoder.end());
  if (failure) throw failure;
}

/**
 * Events of the default type, or of type "message", carry JSON-RPC messages; an event with empty
 * data (a priming event) carries none.
 */
export function isMessageEvent(event: SseEvent): boolean {
  return (event.event === undefined || event.event === "message") && event.data !== "";
}
