/**
 * The only changes a message gets on its way through the gateway: the ids and tokens the relay
 * owns. Each function makes a shallow copy with one member replaced, so every other member
 * (`_meta`, `requestState`, arguments) is the very value the front parsed, in its own key order;
 * nothing is parsed against a schema or rebuilt.
 */
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse, RequestId } from "../../protocol/jsonrpc.js";
import { MetaKey } from "../../protocol/modern.js";

/** A progress token: a string or an integer (basic/utilities/progress). */
export type ProgressToken = string | number;

type Params = Record<string, unknown>;

function metaOf(params: Params | undefined): Params | undefined {
  const meta = params?._meta;
  return typeof meta === "object" && meta !== null && !Array.isArray(meta) ? (meta as Params) : undefined;
}

/** The caller's progress token, if the request asks for progress. */
export function progressTokenOf(message: JsonRpcRequest): ProgressToken | undefined {
  const token = metaOf(message.params)?.progressToken;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}

/** Whether the request asks for log messages (2026-07-28: request-scoped logging). */
export function asksForLogs(message: JsonRpcRequest): boolean {
  return metaOf(message.params)?.[MetaKey.logLevel] !== undefined;
}

/** The request as the child sees it: its id, and its progress token if it has one, replaced. */
export function requestForChild(message: JsonRpcRequest, childId: RequestId, childToken: ProgressToken | undefined): JsonRpcRequest {
  if (childToken === undefined) return { ...message, id: childId };
  const params = message.params!;
  return { ...message, id: childId, params: { ...params, _meta: { ...metaOf(params), progressToken: childToken } } };
}

/** A message with its id replaced (an answer going back to its caller, a caller's answer going to the child). */
export function withId<M extends JsonRpcMessage & { id: RequestId | null }>(message: M, id: RequestId): M {
  return { ...message, id };
}

/** A notification's `params.<member>` replaced (`progressToken` of a progress, `requestId` of a cancel). */
export function withParam(message: JsonRpcNotification, member: string, value: unknown): JsonRpcNotification {
  return { ...message, params: { ...message.params, [member]: value } };
}

/** The subscription id a child's message carries in `_meta` (2026-07-28 `subscriptions/listen`), if any. */
export function subscriptionIdOf(params: Params | undefined): unknown {
  return metaOf(params)?.[MetaKey.subscriptionId];
}

/** The params with `_meta["io.modelcontextprotocol/subscriptionId"]` replaced by the caller's listen id. */
function withSubscriptionId(params: Params, callerId: RequestId): Params {
  return { ...params, _meta: { ...metaOf(params), [MetaKey.subscriptionId]: callerId } };
}

/** A notification of a listen stream, with the caller's listen id as its subscription id. */
export function subscriptionNotificationForCaller(message: JsonRpcNotification, callerId: RequestId): JsonRpcNotification {
  return { ...message, params: withSubscriptionId(message.params ?? {}, callerId) };
}

/** The child's answer to a request, in the caller's id; a listen's result also carries the caller's id as subscription id. */
export function answerForCaller(response: JsonRpcResponse, callerId: RequestId, listen: boolean): JsonRpcResponse {
  if (listen && "result" in response && subscriptionIdOf(response.result) !== undefined) {
    return { ...response, id: callerId, result: withSubscriptionId(response.result, callerId) };
  }
  return { ...response, id: callerId };
}
