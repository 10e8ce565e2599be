/**
 * The request headers of revision 2026-07-28 over Streamable HTTP (basic/transports/
 * streamable-http, "Request Metadata"): `Mcp-Method` on every request, `Mcp-Name` for
 * `tools/call`, `prompts/get` and `resources/read` (and, by the tasks extension, the task id of
 * `tasks/get`, `tasks/update` and `tasks/cancel`), and `Mcp-Param-{Name}` for each tool argument
 * whose schema carries `x-mcp-header`. Values that are not header-safe travel in the Base64
 * sentinel form `=?base64?...?=`.
 */
import { argumentAt, encodeHeaderValue, type HeaderParam } from "../protocol/header-values.js";
import { TaskMethod } from "../protocol/tasks.js";

// Kept here too, where the client and the bridge have always imported them from.
export { encodeHeaderValue, headerParamsOf, type HeaderParam } from "../protocol/header-values.js";

/**
 * Requests about one task, routed by its id: "the client MUST set the Mcp-Name header to the
 * value of params.taskId" (tasks extension, "Streamable HTTP: Routing Headers").
 */
const TASK_ROUTED_METHODS: ReadonlySet<string> = new Set([TaskMethod.get, TaskMethod.update, TaskMethod.cancel]);

/** The `Mcp-*` headers of one modern request. */
export function modernHeaders(
  method: string,
  params: Record<string, unknown> | undefined,
  toolParams: readonly HeaderParam[] | undefined,
): Record<string, string> {
  const headers: Record<string, string> = { "Mcp-Method": method };
  const name =
    method === "resources/read"
      ? params?.uri
      : method === "tools/call" || method === "prompts/get"
        ? params?.name
        : TASK_ROUTED_METHODS.has(method)
          ? params?.taskId
          : undefined;
  if (typeof name === "string") headers["Mcp-Name"] = encodeHeaderValue(name);
  if (method === "tools/call" && toolParams) {
    const args = params?.arguments;
    for (const param of toolParams) {
      const value = argumentAt(args, param.path);
      if (typeof value === "string") headers[`Mcp-Param-${param.name}`] = encodeHeaderValue(value);
      else if (typeof value === "boolean") headers[`Mcp-Param-${param.name}`] = String(value);
      else if (typeof value === "number" && Number.isSafeInteger(value)) headers[`Mcp-Param-${param.name}`] = String(value);
    }
  }
  return headers;
}
