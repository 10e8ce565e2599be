/**
 * The answer to one POSTed request, as JSON or as an SSE stream, chosen as late as possible
 * (transports, "Sending Messages"): a request whose child answers before saying anything else
 * gets one JSON object; one whose child sends progress, log lines or (legacy session mode) its
 * own requests first gets an SSE stream carrying them, then the answer, then the end of the
 * stream. A caller that accepts only JSON gets the answer alone. Settled once: whatever comes after
 * the answer or a failure is dropped.
 */
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { JsonRpcMessage, JsonRpcResponse } from "../../protocol/jsonrpc.js";
import { SseWriter } from "./sse-writer.js";

export interface ReplyFormats {
  /** The caller's `Accept` lists `text/event-stream` (or any type). */
  sse: boolean;
}

export class RequestReply {
  private stream: SseWriter | undefined;
  private done = false;
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

  /** A message about the request before its answer; false when it could not be delivered. */
  message(message: JsonRpcMessage): boolean {
    if (this.done || !this.formats.sse) return false;
    if (this.stream === undefined) {
      this.stream = new SseWriter(this.response);
      this.stream.open(200, this.headers);
    }
    return this.stream.send(message);
  }

  /** The answer, with the HTTP status it takes when it is sent as JSON. */
  answer(response: JsonRpcResponse, status = 200): void {
    if (this.done) return;
    this.done = true;
    if (this.stream !== undefined) {
      this.stream.send(response);
      this.stream.end();
      return;
    }
    writeJson(this.response, status, response, this.headers);
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
