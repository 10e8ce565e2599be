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
import { parseJson, toMessage, type JsonRpcMessage } from "../../protocol/jsonrpc.js";
import type { WireRules } from "../transport.js";

export class IncomingBatches {
  /** Whether the server may send batches on this connection; set by `follow` only. */
  private accepted = false;

  /** The rules the era settled for this connection (`McpConnection.setProtocolVersion`). */
  follow(rules: WireRules | undefined): void {
    this.accepted = rules?.acceptsBatches === true;
  }

  /**
   * One text off the wire: the message it holds, or where batches are accepted and it is one,
   * the messages of the batch in order (an array, never an array of one for a lone message).
   * PROTOCOL when it is not what the rules allow.
   *
   * `parseMessage`'s two steps are written out here rather than called: on stdio this runs for
   * every line, and one more function on each call's path is one more for V8 to compile
   * (bench/RESULTS.md, `npm run bench:call-path`).
   */
  read(text: string): JsonRpcMessage | JsonRpcMessage[] {
    const value = parseJson(text);
    if (this.accepted && Array.isArray(value) && value.length > 0) return value.map(toMessage);
    return toMessage(value);
  }
}
