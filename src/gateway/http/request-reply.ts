/**
 * The answer to one POSTed request, as JSON or as an SSE stream, chosen as late as possible
 * (transports, "Sending Messages"): a request whose child answers before saying anything else
 * gets one JSON object; one whose child sends progress, log lines or (legacy session mode) its
 * own requests first gets an SSE stream carrying them, then the answer, then the end of the
 * stream. A caller that accepts only JSON gets the answer alone. Settled once: whatever comes after
 * the answer or a failure is dropped.
 *
 * In a legacy session the stream is resumable (sessions/request-streams.ts): each event has an
 * id, a 2025-11-25 caller gets the priming event first, and what is said after the caller's
 * connection dropped is kept for the GET that resumes it.
 */
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { JsonRpcMessage, JsonRpcResponse } from "../../protocol/jsonrpc.js";
import type { RequestStream, RequestStreams } from "../sessions/request-streams.js";
import { SseWriter } from "./sse-writer.js";

export interface ReplyFormats {
  /** The caller's `Accept` lists `text/event-stream` (or any type). */
  sse: boolean;
  /** The session's request streams, when the reply's stream may be resumed (legacy session mode). */
  resumable?: {
    streams: RequestStreams;
    /**
     * Send the priming event (an id, empty data) first: 2025-11-25 says a server SHOULD
     * (transports, "Sending Messages to the Server"); earlier revisions have no such event, and a
     * client of theirs may take empty data for a broken message.
     */
    primed: boolean;
  };
}

/**
 * What forwarding one request needs of its caller's reply (forward.ts): the messages about the
 * request, then its answer, once. A POST of one request has a `RequestReply`; each request of a
 * 2025-03-26 batch has its share of the batch's one reply (batch-reply.ts).
 */
export interface CallerReply {
  /** Whether the reply has begun streaming (its status is sent). */
  readonly streaming: boolean;
  /** Whether the answer went out on a connection. */
  readonly answerCarried: boolean;
  /** Adds a header to the reply, while none is sent yet. */
  setHeader(name: string, value: string): void;
  /** A message about the request before its answer; false when it could not be delivered. */
  message(message: JsonRpcMessage): boolean;
  /** A comment line on the stream: a long-lived reply stays open through intermediaries. */
  keepAlive(): void;
  /** The answer, with the HTTP status it takes when it is sent alone as JSON. */
  answer(response: JsonRpcResponse, status?: number): void;
}

export class RequestReply implements CallerReply {
  private stream: SseWriter | undefined;
  /** The session's record of the stream, when it is resumable. */
  private record: RequestStream | undefined;
  private done = false;
  private carried = false;
  private headers: OutgoingHttpHeaders;

  constructor(
    private readonly response: ServerResponse,
    private readonly formats: ReplyFormats,
    headers: OutgoingHttpHeaders,
  ) {
    this.headers = { ...headers };
  }

  get settled(): boolean {
    return this.done;
  }

  /** Whether the reply has begun streaming (its status is sent). */
  get streaming(): boolean {
    return this.stream !== undefined;
  }

  /** Adds a header to the reply, while none is sent yet (a new session's id). */
  setHeader(name: string, value: string): void {
    this.headers[name] = value;
  }

  removeHeader(name: string): void {
    delete this.headers[name];
  }

  /** Whether the answer went out on a connection (after the caller's own dropped: on one that resumed the stream). */
  get answerCarried(): boolean {
    return this.carried;
  }

  /**
   * A message about the request before its answer; false when it could not be delivered. A
   * resumable stream keeps it for the caller when its connection is gone: that counts as delivered.
   */
  message(message: JsonRpcMessage): boolean {
    if (this.done || !this.formats.sse) return false;
    // A caller that left before its reply became a stream holds no id to resume from.
    const stream = this.stream ?? (this.response.destroyed ? undefined : this.openStream());
    if (stream === undefined) return false;
    if (this.record !== undefined) {
      this.record.send(message);
      return true;
    }
    return stream.send(message);
  }

  /** A comment line on the stream (opened if it was not): a long-lived reply stays open through intermediaries. */
  keepAlive(): void {
    if (this.done || !this.formats.sse) return;
    (this.stream ?? this.openStream()).keepAlive();
  }

  /** The answer, with the HTTP status it takes when it is sent as JSON. */
  answer(response: JsonRpcResponse, status = 200): void {
    if (this.done) return;
    this.done = true;
    if (this.record !== undefined) {
      this.carried = this.record.answer(response);
      return;
    }
    if (this.stream !== undefined) {
      this.carried = this.stream.send(response);
      this.stream.end();
      return;
    }
    this.carried = !this.response.destroyed;
    writeJson(this.response, status, response, this.headers);
  }

  private openStream(): SseWriter {
    const stream = new SseWriter(this.response);
    this.stream = stream;
    stream.open(200, this.headers);
    const resumable = this.formats.resumable;
    if (resumable !== undefined) {
      const record = resumable.streams.open();
      this.record = record;
      if (resumable.primed) stream.prime(record.primingId);
      record.connect(stream);
      // Whether everything written reached the socket decides if the caller may still need a resumption.
      this.response.once("close", () => record.disconnect(stream, this.response.writableFinished));
    }
    return stream;
  }
}

/** A JSON body with its status; nothing when the response already began or the caller left. */
export function writeJson(response: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, { ...headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  response.end(text);
}

/** A status without a body (202, 204, 405...). */
export function writeEmpty(response: ServerResponse, status: number, headers: OutgoingHttpHeaders = {}): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, headers);
  response.end();
}
