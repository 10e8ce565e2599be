/**
 * The requests a session's child sent to the client (`roots/list`, `sampling/createMessage`,
 * `elicitation/create`, `ping`), under ids the session gives them: the caller answers those ids
 * (`Relay.response`), and the answer reaches the child in the id the child chose. The child's
 * ids never leave the gateway, so a child cannot make one caller's answer look like another's.
 */
import type { RequestId } from "../../protocol/jsonrpc.js";

export class ClientRequestIds {
  private lastId = 0;
  private readonly childIdOf = new Map<RequestId, RequestId>();
  private readonly callerIdOf = new Map<RequestId, RequestId>();

  /** Requests of the child the caller has not answered yet. */
  get size(): number {
    return this.childIdOf.size;
  }

  /** The id the caller sees for the child's request `childId`. */
  issue(childId: RequestId): RequestId {
    const callerId = `gw-${++this.lastId}`;
    this.childIdOf.set(callerId, childId);
    this.callerIdOf.set(childId, callerId);
    return callerId;
  }

  /** The child's id of the request the caller answers, once: a second answer finds nothing. */
  answer(callerId: RequestId): RequestId | undefined {
    const childId = this.childIdOf.get(callerId);
    if (childId === undefined) return undefined;
    this.childIdOf.delete(callerId);
    this.callerIdOf.delete(childId);
    return childId;
  }

  /** The caller's id of a request the child cancels (its `notifications/cancelled`), forgotten after. */
  cancelled(childId: RequestId): RequestId | undefined {
    const callerId = this.callerIdOf.get(childId);
    if (callerId !== undefined) this.answer(callerId);
    return callerId;
  }
}
