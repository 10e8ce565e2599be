/**
 * Where the answer to one request of the host goes: its own line, or the one line that answers
 * the JSON-RPC batch it came in (revision 2025-03-26 lets the host send batches; host-channel.ts).
 * JSON-RPC 2.0, "Batch": "The Server should respond with an Array containing the corresponding
 * Response objects, after all of the batch Request objects have been processed", in any order
 * ("MAY be returned in any order"), and "If there are no Response objects contained within the
 * Response array as it is to be sent to the client, the server MUST NOT return an empty Array and
 * should return nothing at all".
 *
 * Answers come back asynchronously, one request at a time: each request of a batch has its share
 * (`member()`), its answer is held, and the array goes out once every request is answered or
 * withdrawn (the host cancelled it and expects no answer, basic/utilities/cancellation). The
 * relay answers every request it took, even when it ends (bridge-relay.ts), so the array is
 * written before the bridge stops.
 */
import type { JsonRpcResponse } from "../../protocol/jsonrpc.js";

/** Where the answer to one request of the host goes. */
export interface HostAnswer {
  /** The request's answer; only the first call counts. */
  send(response: JsonRpcResponse): void;
  /** The request ends without an answer (the host cancelled it). */
  withdraw(): void;
}

/** The answers to the requests of one batch, written as one array once the last is in. */
export class BatchAnswers {
  private readonly held: JsonRpcResponse[] = [];
  /** Members handed out and not yet answered or withdrawn. */
  private open = 0;
  /** Every request of the batch has its member: until then an empty `open` is not the end. */
  private sealed = false;
  private written = false;

  constructor(private readonly write: (answers: JsonRpcResponse[]) => void) {}

  /** The share of one request of the batch. */
  member(): HostAnswer {
    this.open++;
    let done = false;
    const finish = (response: JsonRpcResponse | undefined): void => {
      if (done) return;
      done = true;
      if (response !== undefined) this.held.push(response);
      this.open--;
      this.writeIfDone();
    };
    return { send: (response) => finish(response), withdraw: () => finish(undefined) };
  }

  /**
   * Every request of the batch has its member. A request may be answered while the batch is
   * still being handed on (a duplicate id, `maxInFlight`), so the array waits for this too.
   */
  seal(): void {
    this.sealed = true;
    this.writeIfDone();
  }

  private writeIfDone(): void {
    if (!this.sealed || this.open > 0 || this.written) return;
    this.written = true;
    if (this.held.length > 0) this.write(this.held.splice(0));
  }
}
