/**
 * The server's check of a 2026-07-28 request's mirrored headers (basic/transports/
 * streamable-http, "Server Validation"): `MCP-Protocol-Version` must equal the body's `_meta`
 * revision, `Mcp-Method` the method, and `Mcp-Name` the name, URI or task id, Base64 sentinel
 * values decoded first. A missing, malformed or different value is 400 with HeaderMismatch
 * (-32020), so an intermediary that routes on headers and the child that acts on the body never
 * disagree about what a request is.
 *
 * `Mcp-Param-*` headers are checked by param-headers.ts, once the tool's schema is known
 * (tool-header-catalog.ts).
 */
import type { IncomingMessage } from "node:http";
import type { JsonRpcRequest } from "../../protocol/jsonrpc.js";
import { decodeHeaderValue } from "../../protocol/header-values.js";
import { TaskMethod } from "../../protocol/tasks.js";
import { headerValue, metaRevisionOf } from "./era-of-request.js";

const NAMED_BY_NAME: ReadonlySet<string> = new Set(["tools/call", "prompts/get"]);
const NAMED_BY_TASK: ReadonlySet<string> = new Set([TaskMethod.get, TaskMethod.update, TaskMethod.cancel]);

/** `undefined` when the headers match the body, else what does not (for the -32020 message). */
export function modernHeaderMismatch(message: JsonRpcRequest, request: IncomingMessage): string | undefined {
  const version = headerValue(request, "mcp-protocol-version");
  if (version === undefined) return "the MCP-Protocol-Version header is missing";
  if (version !== metaRevisionOf(message)) return "the MCP-Protocol-Version header does not match the revision in _meta";
  const method = headerValue(request, "mcp-method");
  if (method === undefined) return "the Mcp-Method header is missing";
  if (method !== message.method) return "the Mcp-Method header does not match the method in the body";

  const params = message.params ?? {};
  const bodyName = message.method === "resources/read" ? params.uri : NAMED_BY_NAME.has(message.method) ? params.name : NAMED_BY_TASK.has(message.method) ? params.taskId : undefined;
  const required = message.method === "resources/read" || NAMED_BY_NAME.has(message.method);
  const nameHeader = headerValue(request, "mcp-name");
  if (nameHeader === undefined) return required ? "the Mcp-Name header is missing" : undefined;
  const name = decodeHeaderValue(nameHeader);
  if (name === undefined) return "the Mcp-Name header holds characters a header may not carry, or a malformed Base64 value";
  if (bodyName !== undefined && name !== bodyName) return "the Mcp-Name header does not match the body";
  return undefined;
}
