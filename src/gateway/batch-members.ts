/**
 * The members of a 2025-03-26 JSON-RPC batch sorted before anything of it is handed on: those that
 * are JSON-RPC messages, and an Invalid Request answer for each that is not. The one rule for both
 * of the gateway's fronts that take batches: a POSTed body (http/post-batch.ts) and a host's line
 * on the bridge's stdin (bridge/host-channel.ts). JSON-RPC 2.0, "Batch": "The Server should respond
 * with an Array containing the corresponding Response objects", and its example answers a batch
 * holding `{"foo": "boo"}` with the valid members' responses plus an Invalid Request error for
 * that one; a bad member does not spoil the others.
 *
 * What is wrong with the batch as a whole still refuses all of it: an empty array ("an empty
 * Array ... is an Invalid Request", answered with one error, not an array), `initialize` in it
 * ("The initialize request MUST NOT be part of a JSON-RPC batch", 2025-03-26 lifecycle), and
 * responses mixed with requests or notifications (the 2025-03-26 schema's batches are
 * `JSONRPCBatchRequest`, "(JSONRPCRequest | JSONRPCNotification)[]", or `JSONRPCBatchResponse`;
 * the POST body is "an array batching one or more requests and/or notifications" or "an array
 * batching one or more responses").
 */
import { JSONRPC_INVALID_REQUEST, isId, isRequest, isResponse, toMessage, type JsonRpcFailure, type JsonRpcMessage, type RequestId } from "../protocol/jsonrpc.js";
import { Method } from "../protocol/methods.js";

export interface BatchMembers {
  /** The members that are JSON-RPC messages, in the batch's order. */
  messages: JsonRpcMessage[];
  /** One Invalid Request answer per member that is not, in the batch's order. */
  invalid: JsonRpcFailure[];
}

/** The members of a batch sorted, or why the batch as a whole cannot be taken. */
export function sortMembers(batch: unknown[]): BatchMembers | string {
  if (batch.length === 0) return "an empty batch (array) is not a JSON-RPC request";
  const members: BatchMembers = { messages: [], invalid: [] };
  for (const [index, value] of batch.entries()) {
    try {
      members.messages.push(toMessage(value));
    } catch {
      members.invalid.push({
        jsonrpc: "2.0",
        id: idOf(value),
        error: { code: JSONRPC_INVALID_REQUEST, message: `Invalid Request: member ${index} of the batch is not one JSON-RPC 2.0 message; it was not handed on` },
      });
    }
  }
  if (members.messages.some((m) => isRequest(m) && m.method === Method.initialize)) {
    return "initialize must not be part of a batch (2025-03-26 lifecycle); send it alone";
  }
  const responses = members.messages.filter(isResponse).length;
  if (responses > 0 && responses < members.messages.length) return "a batch holds either requests and notifications, or responses, not both";
  return members;
}

/**
 * The id to answer an invalid member in. JSON-RPC 2.0, "Response object": the id "MUST be the same
 * as the value of the id member in the Request Object. If there was an error in detecting the id
 * in the Request object (e.g. Parse error/Invalid Request), it MUST be Null." So a member that
 * reads as a request (an object, no `result` or `error`) keeps an id of the right type; anything
 * else is answered in null. A malformed response's id names a request of the server, not one of the caller's: null too.
 */
function idOf(value: unknown): RequestId | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  if ("result" in value || "error" in value) return null;
  const id = (value as { id?: unknown }).id;
  return isId(id) ? id : null;
}
