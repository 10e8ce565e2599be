/**
 * JSON-RPC batches from the server: one rule for every wire (STYLE habit 10).
 *
 * Revision 2025-03-26, and only it, lets a server send a batch, on any transport: its basic
 * section ("Batching") says implementations "MUST support receiving JSON-RPC batches", its stdio
 * and Streamable HTTP transports carry them, and custom transports "MUST ... preserve the JSON-RPC
 * message format"; 2025-06-18 removed batches. The era says which applies per connection, through
 * `WireRules.acceptsBatches` in `setProtocolVersion`. Each connection keeps one `IncomingBatches`,
 * hands it those rules (`follow`) and reads each text off its wire through it (`read`): a batch is
 * the messages it holds, in order, each checked as one message; when the rules do not accept
 * batches, one fails with PROTOCOL like any text that is not one message.
 */
import { parseMessages, type JsonRpcMessage } from "../../protocol/jsonrpc.js";
import type { WireRules } from "../transport.js";

export class IncomingBatches {
  /**
   * Whether the server may send batches on this connection; set by `follow` only. A wire where
   * every message is on the hot path (stdio) tests this first and reads a lone message with
   * `parseMessage`, which is the same rule without the array of one. A field, not a getter: on
   * stdio it is read for every line, and a getter would be one more function on each call's path
   * for V8 to compile (bench/RESULTS.md, `npm run bench:call-path`).
   */
  accepted = false;

  /** The rules the era settled for this connection (`McpConnection.setProtocolVersion`). */
  follow(rules: WireRules | undefined): void {
    this.accepted = rules?.acceptsBatches === true;
  }

  /** The messages of one text off the wire, in order; PROTOCOL when it is not what the rules allow. */
  read(text: string): JsonRpcMessage[] {
    return parseMessages(text, this.accepted);
  }
}
