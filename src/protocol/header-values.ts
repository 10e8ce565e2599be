/**
 * The values of the 2026-07-28 request headers over Streamable HTTP, as pure functions both
 * sides need (basic/transports/streamable-http, "Custom Headers from Tool Parameters", "Value
 * Encoding"): which tool arguments a schema mirrors into `Mcp-Param-{Name}` (`x-mcp-header`,
 * server/tools), the Base64 sentinel form `=?base64?...?=` a client encodes and a server decodes,
 * and the argument at a property path. The client (client/modern-headers.ts) writes headers with
 * them; the gateway (gateway/http/) checks a caller's headers against its body with them.
 */

/** One argument mirrored into a header: the header's name part and the property path to read. */
export interface HeaderParam {
  name: string;
  path: readonly string[];
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A plain value that looks like the sentinel form is encoded too, so that it is never taken for one. */
const SENTINEL = /^=\?base64\?.*\?=$/s;
/** The sentinel form as a server reads it: strict Base64 between the markers. */
const STRICT_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
/** Visible ASCII with inner spaces and tabs (RFC 9110 field values), nothing else. */
const FIELD_VALUE = /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/;

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

/**
 * A header value as it was before encoding: the sentinel form decoded; `undefined` when the value
 * holds characters a header may not carry, or Base64 that does not round-trip (not what a client
 * encoded).
 */
export function decodeHeaderValue(value: string): string | undefined {
  // A client encodes every value of the sentinel's shape, so one that is not strict Base64 is malformed.
  if (!SENTINEL.test(value)) return FIELD_VALUE.test(value) ? value : undefined;
  const sentinel = STRICT_SENTINEL.exec(value);
  if (sentinel) {
    const decoded = Buffer.from(sentinel[1]!, "base64");
    if (decoded.toString("base64") !== sentinel[1]) return undefined;
    try {
      return STRICT_UTF8.decode(decoded);
    } catch {
      // Not UTF-8: not what a client encoded either.
      return undefined;
    }
  }
  return undefined;
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The argument at a property path (a chain of `properties` keys); `undefined` when absent. */
export function argumentAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
