/**
 * The JSON-RPC error answer a host gets, in its own id, for a request the bridge could not
 * forward or whose answer never came: the remote unreachable (UNAVAILABLE), a deadline (TIMEOUT),
 * the remote gone mid-call (DISCONNECTED), a ceiling (LIMIT), or a remote that did not speak MCP
 * (PROTOCOL). Never a hang, and never the remote's own error text: the message is mcpwire's
 * (`McpTransportError` messages are ours by rule), `data` says the reason as a stable code.
 *
 * One exception keeps the protocol's recoveries working through the bridge: a modern error the
 * remote answered with an HTTP status (-32020, -32021, -32022) keeps its code and `data`, which
 * the host's client needs (the revisions offered, the capabilities required).
 */
import { McpTransportError, asMcpTransportError } from "../../errors.js";
import { JSONRPC_INTERNAL_ERROR, type JsonRpcFailure, type RequestId } from "../../protocol/jsonrpc.js";
import { isModernErrorCode } from "../../protocol/modern.js";

/** What `data` of a bridge's error answer holds: how to branch on it without reading the message. */
export interface BridgeFailureData {
  /** `McpTransportError.reason`: UNAVAILABLE, TIMEOUT, DISCONNECTED, LIMIT, PROTOCOL... */
  reason: string;
  retryable: boolean;
  kind?: string;
  httpStatus?: number;
  timeoutMs?: number;
  limitBytes?: number;
  authStep?: string;
}

export function failureAnswer(id: RequestId, error: unknown, method: string): JsonRpcFailure {
  const failure = asFailure(error);
  if (failure.code !== undefined && isModernErrorCode(failure.code)) {
    return { jsonrpc: "2.0", id, error: { code: failure.code, message: `${method} failed: ${failure.message}`, data: failure.serverData } };
  }
  const data: BridgeFailureData = { reason: failure.reason, retryable: failure.retryable };
  if (failure.kind !== undefined) data.kind = failure.kind;
  if (failure.httpStatus !== undefined) data.httpStatus = failure.httpStatus;
  if (failure.timeoutMs !== undefined) data.timeoutMs = failure.timeoutMs;
  if (failure.limitBytes !== undefined) data.limitBytes = failure.limitBytes;
  if (failure.authStep !== undefined) data.authStep = failure.authStep;
  return { jsonrpc: "2.0", id, error: { code: JSONRPC_INTERNAL_ERROR, message: `mcpwire gateway: ${method} was not answered: ${failure.message}`, data } };
}

function asFailure(error: unknown): McpTransportError {
  if (error instanceof McpTransportError) return error;
  // Anything else is a fault of ours: its text may not be ours to show, so it is not shown.
  return asMcpTransportError(error, "DISCONNECTED", "the bridge failed to forward it");
}
