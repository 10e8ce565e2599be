/**
 * The one reply to a POSTed 2025-03-26 batch holding requests (or members that are not JSON-RPC,
 * each answered here at once, ../batch-members.ts), shared by its requests (transports,
 * "Sending Messages to the Server": "If the input contains any number of JSON-RPC requests, the
 * server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or
 * Content-Type: application/json"). Each request forwarded from the batch has its share
 * (`member()`), as a request POSTed alone has its `RequestReply`, and the form is chosen as late
 * as possible, the same way:
 *
 * - while no child has said anything but answers, the answers are held, and once the last is in
 *   they go as one JSON array, in the order they came (JSON-RPC 2.0, "Batch": the server answers
 *   a batch with an array of the responses, which "MAY be returned in any order");
 * - once a child sends a message about its request (progress, a log line, its own request) and
 *   the caller takes SSE, the reply becomes one stream: the answers held so far go first, then
 *   every message and answer as it comes, and the stream ends after the last answer ("The SSE
 *   stream SHOULD eventually include one JSON-RPC response per each JSON-RPC request sent in the
 *   POST body").
 *
 * The stream is not resumable: its events would need ids of their own shared by several
 * requests, which the session's request streams (sessions/request-streams.ts) do not keep, and
 * the revision lets a server do without ("MAY make the stream resumable").
 */
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { JsonRpcResponse } from "../../protocol/jsonrpc.js";
import { writeJson, type CallerReply } from "./request-reply.js";
import { SseWriter } from "./sse-writer.js";

export class BatchReply {
  private stream: SseWriter | undefined;
  /** Answers not yet sent (JSON form only), in the order they came. */
  private readonly held: JsonRpcResponse[] = [];
  private unanswered: number;
  /** The JSON array went out on a live connection. */
  private written = false;

  /**
   * @param sse the caller's `Accept` lists `text/event-stream` (or any type)
   * @param requests how many answers this reply carries: the batch's requests and its invalid members
   */
  constructor(
    private readonly response: ServerResponse,
    private readonly sse: boolean,
    private readonly headers: OutgoingHttpHeaders,
    requests: number,
  ) {
    this.unanswered = requests;
  }

  /** One request's share of the reply. */
  member(): CallerReply {
    let done = false;
    let carried = false;
    const answerOnce = (answer: JsonRpcResponse): void => {
      if (done) return;
      done = true;
      carried = this.answer(answer);
    };
    const openStream = (): SseWriter | undefined => this.openStream();
    const streaming = (): boolean => this.stream !== undefined;
    const written = (): boolean => this.written;
    return {
      get streaming() {
        return streaming();
      },
      get answerCarried() {
        return streaming() ? carried : written();
      },
      // One request's header (the Retry-After of one busy answer) does not speak for the others
      // that share the reply.
      setHeader() {},
      message(message) {
        if (done) return false;
        const stream = openStream();
        return stream !== undefined && stream.send(message);
      },
      keepAlive() {
        if (!done) openStream()?.keepAlive();
      },
      answer: answerOnce,
    };
  }

  /** Takes one answer; true when it went out on the stream. */
  private answer(answer: JsonRpcResponse): boolean {
    this.unanswered--;
    if (this.stream !== undefined) {
      const sent = this.stream.send(answer);
      if (this.unanswered === 0) this.stream.end();
      return sent;
    }
    this.held.push(answer);
    if (this.unanswered === 0) {
      this.written = !this.response.destroyed;
      writeJson(this.response, 200, this.held, this.headers);
    }
    return false;
  }

  /** The stream, opened now if it was not and the caller takes one; undefined when it cannot be. */
  private openStream(): SseWriter | undefined {
    if (this.stream !== undefined) return this.stream;
    if (!this.sse || this.response.destroyed || this.response.headersSent) return undefined;
    const stream = new SseWriter(this.response);
    this.stream = stream;
    stream.open(200, this.headers);
    for (const answer of this.held.splice(0)) stream.send(answer);
    return stream;
  }
}
