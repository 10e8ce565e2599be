/**
 * JSON-RPC 2.0 message shapes and the parse of one message.
 *
 * Pure data, no I/O. Every transport hands what it read to `parseMessage` (text) or
 * `toMessage` (an already-parsed value), and gets either a typed message or a PROTOCOL failure.
 * The checks are the minimum that lets the session route a message safely; result shapes are
 * validated later, by the client, per method.
 */
import { McpTransportError } from "../errors.js";

/** A request id. String and number ids are different ids: `1` and `"1"` never match. */
export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcSuccess {
  jsonrpc: "2.0";
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcFailure {
  jsonrpc: "2.0";
  /** `null` only when the peer could not read the id of the request it answers. */
  id: RequestId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** Standard JSON-RPC error codes that mcpwire itself sends. */
export const JSONRPC_PARSE_ERROR = -32700;
export const JSONRPC_INVALID_REQUEST = -32600;
export const JSONRPC_METHOD_NOT_FOUND = -32601;
export const JSONRPC_INVALID_PARAMS = -32602;
export const JSONRPC_INTERNAL_ERROR = -32603;

export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return "method" in message && "id" in message;
}

export function isNotification(message: JsonRpcMessage): message is JsonRpcNotification {
  return "method" in message && !("id" in message);
}

export function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return !("method" in message);
}

export function isFailure(message: JsonRpcResponse): message is JsonRpcFailure {
  return "error" in message;
}

function protocolError(what: string, cause?: unknown): McpTransportError {
  return new McpTransportError("PROTOCOL", `received a message that is not JSON-RPC 2.0: ${what}`, {
    cause,
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An id MCP takes on a request or an answer: a string or a number, never null. */
export function isId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/**
 * Checks that a parsed value is one JSON-RPC 2.0 message and returns it typed.
 * Batches (arrays) are refused: no MCP revision that mcpwire speaks lets a server send one
 * unasked, and 2025-06-18 removed them altogether.
 */
export function toMessage(value: unknown): JsonRpcMessage {
  if (!isPlainObject(value)) {
    throw protocolError(Array.isArray(value) ? "a batch (array), which MCP does not use" : "not an object");
  }
  if (value.jsonrpc !== "2.0") throw protocolError('"jsonrpc" is not "2.0"');
  const { method, id, params } = value;
  if (method !== undefined) {
    if (typeof method !== "string") throw protocolError('"method" is not a string');
    if (params !== undefined && !isPlainObject(params)) throw protocolError('"params" is not an object');
    if ("id" in value && !isId(id)) throw protocolError('a request "id" is not a string or a number');
    return value as unknown as JsonRpcRequest | JsonRpcNotification;
  }
  if ("result" in value) {
    if (!isId(id)) throw protocolError('a response "id" is not a string or a number');
    if (!isPlainObject(value.result)) throw protocolError('"result" is not an object');
    return value as unknown as JsonRpcSuccess;
  }
  if ("error" in value) {
    const error = value.error;
    if (!isPlainObject(error) || typeof error.code !== "number" || typeof error.message !== "string") {
      throw protocolError('"error" lacks a numeric code or a string message');
    }
    if (id !== null && !isId(id)) throw protocolError('an error "id" is not a string, a number or null');
    return value as unknown as JsonRpcFailure;
  }
  throw protocolError("neither a method, a result nor an error");
}

/**
 * Parses the text of one message, as a transport reads it off its wire: the message typed, or an
 * `McpTransportError` with reason PROTOCOL saying what was wrong (not JSON, not JSON-RPC 2.0, a
 * batch), never with the text itself in the message.
 */
export function parseMessage(text: string): JsonRpcMessage {
  return toMessage(parseJson(text));
}

/** The JSON value of a text off the wire, or PROTOCOL (without the text) when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw protocolError("the text is not valid JSON", cause);
  }
}

/**
 * A message that cannot be JSON because of what the caller put in it (a BigInt, a circular
 * reference, a `toJSON` that throws): a mistake in the calling code, so a TypeError, never a
 * failure of the connection. The session names the call it belongs to.
 */
export class UnserializableMessageError extends TypeError {}

/**
 * The text of one message, for a transport to put on the wire. A message that is not JSON throws
 * `UnserializableMessageError` (a transport's `send` rejects with it: it must not throw).
 */
export function serializeMessage(message: JsonRpcMessage): string {
  try {
    return JSON.stringify(message);
  } catch (cause) {
    throw new UnserializableMessageError(
      "its params are not JSON (they hold a BigInt, a circular reference, or a toJSON that throws); " +
        "pass plain JSON values (strings, finite numbers, booleans, null, arrays and objects of them)",
      { cause },
    );
  }
}
