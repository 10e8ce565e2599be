/**
 * The host's side of the bridge: JSON-RPC messages, one per line, on the process's stdin and
 * stdout (basic/transports, stdio: "Messages are delimited by newlines, and MUST NOT contain
 * embedded newlines"; "The server MUST NOT write anything to its stdout that is not a valid MCP
 * message"). Lines are cut within `maxMessageBytes` by the stdio transport's framer.
 *
 * A line that is not JSON-RPC is answered with a JSON-RPC error (-32700 or -32600, id null, as
 * JSON-RPC 2.0 asks) and the rest goes on; a line past the ceiling cannot be resynchronized, so
 * the input ends there, as stdin EOF would.
 *
 * Revision 2025-03-26 lets the host send a line holding a JSON-RPC batch ("Messages may be
 * JSON-RPC requests, notifications, responses—or a JSON-RPC batch containing one or more requests
 * and/or notifications", transports, stdio), which a server "MUST support receiving" (basic/index,
 * "Batching"): while `acceptsBatches` says so, a batch's messages are reported one by one, in
 * order, and its requests are answered together, on one line holding the array of their answers,
 * once the last is answered (JSON-RPC 2.0, "Batch"; batch-answers.ts); a batch of notifications
 * and responses only is answered with nothing. A single message is answered on its own line. A
 * member that is not one JSON-RPC message spoils only itself, as on the HTTP front
 * (../batch-members.ts): its Invalid Request error goes in the batch's array, and the others are
 * taken. An empty batch, one holding `initialize` ("The initialize request MUST NOT be part of a
 * JSON-RPC batch", lifecycle) or one mixing responses with requests is refused whole with one
 * -32600 error, not an array. In any other revision a batch is a line that is not JSON-RPC.
 * A line that is not JSON is answered Parse error (-32700); JSON that is not one JSON-RPC message,
 * Invalid Request (-32600), as JSON-RPC 2.0's error codes tell the two apart.
 *
 * A host that stops reading its stdout stops the bridge reading its stdin: no new request is
 * taken until stdout drains, so what waits in memory is bounded by the requests already in
 * flight, not by what the host keeps sending.
 */
import { JSONRPC_INVALID_REQUEST, JSONRPC_PARSE_ERROR, isRequest, parseJson, serializeMessage, toMessage, type JsonRpcMessage } from "../../protocol/jsonrpc.js";
import { LineFramer } from "../../transport/stdio/line-framer.js";
import { sortMembers } from "../batch-members.js";
import { BatchAnswers, type HostAnswer } from "./batch-answers.js";

export interface HostChannelEvents {
  /** One message from the host, in order; `answer` is where a request's answer goes (its own line, or its batch's). */
  message(message: JsonRpcMessage, answer: HostAnswer): void;
  /** A line that could not be read, answered already; `fatal` when the input ends with it. */
  unreadable(what: string, fatal: boolean): void;
  /** The input ended (EOF, an error on stdin, or a line past the ceiling). Called once. */
  ended(): void;
  /** Whether the revision the host speaks lets it send batches (2025-03-26); none are taken when absent. */
  acceptsBatches?(): boolean;
}

export class HostChannel {
  private readonly framer: LineFramer;
  private ended = false;
  private waitingForDrain = false;
  private readonly onData = (chunk: Buffer | string) => this.push(chunk);
  private readonly onEnd = () => this.end();
  /** The answer to a message that came alone: its own line. */
  private readonly alone: HostAnswer = { send: (response) => this.send(response), withdraw: () => {} };

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    maxMessageBytes: number,
    private readonly events: HostChannelEvents,
  ) {
    this.framer = new LineFramer(maxMessageBytes);
    input.on("data", this.onData);
    input.on("end", this.onEnd);
    input.on("close", this.onEnd);
    input.on("error", this.onEnd);
  }

  /** Writes one message on the output, if it is still there. */
  send(message: JsonRpcMessage): void {
    this.writeLine(serializeMessage(message));
  }

  /** Writes one line; while the host does not read it, no more of its input is read. */
  private writeLine(text: string): void {
    const output = this.output as NodeJS.WritableStream & { destroyed?: boolean; writableEnded?: boolean };
    if (output.destroyed === true || output.writableEnded === true) return;
    if (output.write(`${text}\n`) || this.waitingForDrain) return;
    this.waitingForDrain = true;
    this.input.pause();
    output.once("drain", () => {
      this.waitingForDrain = false;
      if (!this.ended) this.input.resume();
    });
  }

  /** Stops reading; nothing more is reported but `ended`, if it was not yet. */
  stop(): void {
    this.input.off("data", this.onData);
    this.end();
  }

  private push(chunk: Buffer | string): void {
    if (this.ended) return;
    const { lines, tooLong } = this.framer.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
    for (const line of lines) this.read(line);
    if (tooLong) {
      this.answer(JSONRPC_INVALID_REQUEST, "a line on stdin is longer than maxMessageBytes; the bridge stops reading");
      this.events.unreadable("a line longer than maxMessageBytes", true);
      this.stop();
    }
  }

  private read(line: string | null): void {
    if (this.ended) return;
    if (line === null) {
      this.answer(JSONRPC_PARSE_ERROR, "a line on stdin is not valid UTF-8");
      return this.events.unreadable("a line that is not UTF-8", false);
    }
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = parseJson(line);
    } catch (error) {
      return this.refuse(JSONRPC_PARSE_ERROR, "a line that is not JSON", error);
    }
    if (Array.isArray(value) && (this.events.acceptsBatches?.() ?? false)) return this.readBatch(value);
    let message: JsonRpcMessage;
    try {
      message = toMessage(value);
    } catch (error) {
      // JSON, but not a request: JSON-RPC 2.0 answers that Invalid Request, keeping Parse error for text that is not JSON.
      return this.refuse(JSONRPC_INVALID_REQUEST, "a line that is not JSON-RPC", error);
    }
    this.events.message(message, this.alone);
  }

  /**
   * A batch line in 2025-03-26, sorted as the HTTP front sorts a POSTed one (batch-members.ts): a
   * member that is not JSON-RPC gets its Invalid Request answer in the batch's array, and the
   * others are taken; what spoils the batch as a whole is one error, not an array.
   */
  private readBatch(batch: unknown[]): void {
    const members = sortMembers(batch);
    if (typeof members === "string") {
      this.answer(JSONRPC_INVALID_REQUEST, `a batch on stdin was refused, nothing of it was taken: ${members}`);
      return this.events.unreadable("a batch refused whole", false);
    }
    const answers = new BatchAnswers((responses) => this.writeLine(`[${responses.map(serializeMessage).join(",")}]`));
    for (const invalid of members.invalid) {
      answers.member().send(invalid);
      this.events.unreadable("a batch member that is not JSON-RPC", false);
    }
    for (const message of members.messages) this.events.message(message, isRequest(message) ? answers.member() : this.alone);
    answers.seal();
  }

  /** A line that is not JSON, or not one JSON-RPC message (nor a batch where batches are taken). */
  private refuse(code: number, what: string, error: unknown): void {
    // The parse's message says what was wrong without the text itself.
    this.answer(code, `a line on stdin is not a JSON-RPC message: ${(error as Error).message}`);
    this.events.unreadable(what, false);
  }

  private answer(code: number, message: string): void {
    this.send({ jsonrpc: "2.0", id: null, error: { code, message } });
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.input.off("close", this.onEnd);
    this.events.ended();
  }
}
