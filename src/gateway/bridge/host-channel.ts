/**
 * The host's side of the bridge: JSON-RPC messages, one per line, on the process's stdin and
 * stdout (basic/transports, stdio: "Messages are delimited by newlines, and MUST NOT contain
 * embedded newlines"; "The server MUST NOT write anything to its stdout that is not a valid MCP
 * message"). Lines are cut within `maxMessageBytes` by the stdio transport's framer.
 *
 * A line that is not JSON-RPC is answered with a JSON-RPC error (-32700 or -32600, id null, as
 * JSON-RPC 2.0 asks) and the rest goes on; a line past the ceiling cannot be resynchronized, so
 * the input ends there, as stdin EOF would.
 */
import { JSONRPC_INVALID_REQUEST, JSONRPC_PARSE_ERROR, parseMessage, serializeMessage, type JsonRpcMessage } from "../../protocol/jsonrpc.js";
import { LineFramer } from "../../transport/stdio/line-framer.js";

export interface HostChannelEvents {
  /** One message from the host, in order. */
  message(message: JsonRpcMessage): void;
  /** A line that could not be read, answered already; `fatal` when the input ends with it. */
  unreadable(what: string, fatal: boolean): void;
  /** The input ended (EOF, an error on stdin, or a line past the ceiling). Called once. */
  ended(): void;
}

export class HostChannel {
  private readonly framer: LineFramer;
  private ended = false;
  private readonly onData = (chunk: Buffer | string) => this.push(chunk);
  private readonly onEnd = () => this.end();

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
    const output = this.output as NodeJS.WritableStream & { destroyed?: boolean; writableEnded?: boolean };
    if (output.destroyed === true || output.writableEnded === true) return;
    output.write(`${serializeMessage(message)}\n`);
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
    let message: JsonRpcMessage;
    try {
      message = parseMessage(line);
    } catch (error) {
      // parseMessage's message says what was wrong without the text itself.
      this.answer(JSONRPC_PARSE_ERROR, `a line on stdin is not a JSON-RPC message: ${(error as Error).message}`);
      return this.events.unreadable("a line that is not JSON-RPC", false);
    }
    this.events.message(message);
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
