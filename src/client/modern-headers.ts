/**
 * The request headers of revision 2026-07-28 over Streamable HTTP (basic/transports/
 * streamable-http, "Request Metadata"): `Mcp-Method` on every request, `Mcp-Name` for
 * `tools/call`, `prompts/get` and `resources/read` (and, by the tasks extension, the task id of
 * `tasks/get`, `tasks/update` and `tasks/cancel`), and `Mcp-Param-{Name}` for each tool argument
 * whose schema carries `x-mcp-header`. Values that are not header-safe travel in the Base64
 * sentinel form `=?base64?...?=`.
 */
import { TaskMethod } from "../protocol/tasks.js";

/** One argument mirrored into a header: the header's name part and the property path to read. */
export interface HeaderParam {
  name: string;
  path: readonly string[];
}

/**
 * Requests about one task, routed by its id: "the client MUST set the Mcp-Name header to the
 * value of params.taskId" (tasks extension, "Streamable HTTP: Routing Headers").
 */
const TASK_ROUTED_METHODS: ReadonlySet<string> = new Set([TaskMethod.get, TaskMethod.update, TaskMethod.cancel]);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const SENTINEL = /^=\?base64\?.*\?=$/s;

/**
 * A header value: as-is when it is visible ASCII with inner spaces only, otherwise Base64 in the
 * sentinel form. A tab is a control character, so a value with one anywhere is encoded too.
 */
export function encodeHeaderValue(value: string): string {
  const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !SENTINEL.test(value);
  return plain ? value : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/**
 * The `x-mcp-header` annotations of a tool's input schema, checked against the rules of
 * server/tools ("x-mcp-header"). Returns the list, or the reason the tool must be rejected.
 */
export function headerParamsOf(inputSchema: Record<string, unknown>): HeaderParam[] | { invalid: string } {
  const params: HeaderParam[] = [];
  const seen = new Set<string>();
  let problem: string | undefined;
  const walk = (schema: Record<string, unknown>, path: string[]): void => {
    const properties = schema.properties;
    if (typeof properties !== "object" || properties === null) return;
    for (const [key, raw] of Object.entries(properties as Record<string, unknown>)) {
      if (typeof raw !== "object" || raw === null) continue;
      const property = raw as Record<string, unknown>;
      const annotation = property["x-mcp-header"];
      if (annotation !== undefined) {
        const where = [...path, key].join(".");
        if (typeof annotation !== "string" || !TOKEN.test(annotation)) problem ??= `"${where}" has an x-mcp-header that is not an HTTP token`;
        else if (seen.has(annotation.toLowerCase())) problem ??= `x-mcp-header "${annotation}" is used twice`;
        else if (!["string", "integer", "boolean"].includes(property.type as string)) {
          problem ??= `"${where}" has x-mcp-header but is not a string, integer or boolean`;
        } else {
          seen.add(annotation.toLowerCase());
          params.push({ name: annotation, path: [...path, key] });
        }
      }
      // The chain is one of `properties` keys, whatever the `type` beside them says.
      walk(property, [...path, key]);
    }
  };
  walk(inputSchema, []);
  if (!problem && countAnnotations(inputSchema) !== params.length) {
    problem = "an x-mcp-header is not reachable through properties alone (inside items, a composition or a $ref)";
  }
  return problem ? { invalid: problem } : params;
}

function countAnnotations(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countAnnotations(item), 0);
  if (typeof value !== "object" || value === null) return 0;
  let count = 0;
  for (const [key, item] of Object.entries(value)) count += (key === "x-mcp-header" ? 1 : 0) + countAnnotations(item);
  return count;
}

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
      const value = valueAt(args, param.path);
      if (typeof value === "string") headers[`Mcp-Param-${param.name}`] = encodeHeaderValue(value);
      else if (typeof value === "boolean") headers[`Mcp-Param-${param.name}`] = String(value);
      else if (typeof value === "number" && Number.isSafeInteger(value)) headers[`Mcp-Param-${param.name}`] = String(value);
    }
  }
  return headers;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
