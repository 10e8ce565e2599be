/**
 * The seam inside the gateway: between the HTTP front (gateway/http/, which speaks to callers)
 * and the children (gateway/children/, which speak to the stdio servers). The front turns each
 * POST into messages handed to a `Relay`; a relay sends them to a child, with the ids and
 * progress tokens rewritten so that callers sharing a child never see each other's, and hands
 * back what the child says about each request to that request's `RequestSink`.
 *
 * Nothing here rebuilds a server object: messages pass as they are (a request's `_meta`, a
 * session's `initialize`, `requestState`), except the ids and tokens the relay owns.
 */
import { McpTransportError } from "../errors.js";
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../protocol/jsonrpc.js";

/** Where the traffic of one forwarded request goes, in the caller's own ids and tokens. */
export interface RequestSink {
  /**
   * A message the child sent about this request before answering it: a progress or log
   * notification, or (legacy session mode only) a request to the client such as
   * `sampling/createMessage` or `elicitation/create`, whose answer the caller POSTs back.
   */
  message(message: JsonRpcMessage): void;
  /** The child's answer. Called at most once, and never after `failed`. */
  answer(response: JsonRpcResponse): void;
  /**
   * The request could not be answered: the child died (DISCONNECTED), the request timed out
   * (TIMEOUT, after `notifications/cancelled` went to the child), a ceiling was passed (LIMIT),
   * no child could be started (UNAVAILABLE). The front turns it into a JSON-RPC error answer;
   * the message never carries the child's own text. Called at most once, never after `answer`.
   */
  failed(error: McpTransportError): void;
}

/** What the front hands the messages of one caller to: a pool (shared children) or a session's own child. */
export interface Relay {
  /**
   * Forwards a request. `signal` aborts when the caller went away (its connection or stream
   * closed, where that is a cancellation: not in a legacy session) or the gateway gave up on it:
   * the relay tells the child (`notifications/cancelled`) and calls `sink.failed` with the abort's
   * reason.
   */
  request(message: JsonRpcRequest, sink: RequestSink, signal: AbortSignal): void;
  /** Forwards a notification of the caller (`notifications/initialized`, `notifications/cancelled` in the caller's ids...). */
  notification(message: JsonRpcNotification): void;
  /** The caller's answer to a request the child sent it (legacy session mode). */
  response(message: JsonRpcResponse): void;
}

/** The failures made by `cancelledByCaller`, so the front counts them as cancelled, not as errors. */
const cancellations = new WeakSet<McpTransportError>();

/**
 * What a relay hands `RequestSink.failed` for a request its caller cancelled with
 * `notifications/cancelled` (the child was told): DISCONNECTED, which the front reports with the
 * outcome `cancelled`.
 */
export function cancelledByCaller(method: string): McpTransportError {
  const error = new McpTransportError("DISCONNECTED", `${method} was cancelled by its caller`, { method });
  cancellations.add(error);
  return error;
}

/** Whether `error` is a caller's own cancellation (`cancelledByCaller`). */
export function isCancelledByCaller(error: McpTransportError): boolean {
  return cancellations.has(error);
}
