/**
 * What a caller is told when its request cannot be answered by the child: a JSON-RPC error in
 * the caller's own id, in the gateway's words (never the child's text, never its stderr), with
 * the reason in `data.reason` for a program to branch on; and how each counts in telemetry.
 */
import type { McpFailureReason, McpTransportError } from "../../errors.js";
import { JSONRPC_INTERNAL_ERROR, type JsonRpcFailure, type RequestId } from "../../protocol/jsonrpc.js";
import type { RequestOutcome } from "../ops/telemetry.js";
import { isCancelledByCaller } from "../relay.js";

/** The JSON-RPC code of a request the gateway gave up on for its deadline (the implementation-defined range). */
export const GATEWAY_TIMEOUT_CODE = -32001;

/** The JSON-RPC code of "no such session": the caller initializes a new one. */
export const SESSION_NOT_FOUND_CODE = -32001;

const WORDS: Record<McpFailureReason, string> = {
  DISCONNECTED: "the server process ended before answering this request",
  TIMEOUT: "the request timed out in the gateway",
  PROTOCOL: "the server process answered with something that is not JSON-RPC",
  LIMIT: "a message of this request ran past the gateway's size ceiling",
  UNAVAILABLE: "no server process is available for this request; try again later",
};

export function jsonRpcError(id: RequestId | null, code: number, message: string, data?: unknown): JsonRpcFailure {
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** The words for a request its caller cancelled: DISCONNECTED too, but the server process did not end. */
const CANCELLED_WORDS = "this request was cancelled by its caller";

/** The answer for a request its relay failed. */
export function failureAnswer(id: RequestId, error: McpTransportError): JsonRpcFailure {
  const timeout = error.reason === "TIMEOUT" && error.timeoutMs !== undefined ? ` after ${error.timeoutMs} ms` : "";
  const words = isCancelledByCaller(error) ? CANCELLED_WORDS : `${WORDS[error.reason]}${timeout}`;
  return jsonRpcError(id, error.reason === "TIMEOUT" ? GATEWAY_TIMEOUT_CODE : JSONRPC_INTERNAL_ERROR, words, { reason: error.reason });
}

export function outcomeOf(error: McpTransportError): RequestOutcome {
  if (isCancelledByCaller(error)) return "cancelled";
  return error.reason === "TIMEOUT" ? "timeout" : "error";
}
