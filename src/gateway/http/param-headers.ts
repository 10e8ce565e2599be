/**
 * The server's check of a `tools/call`'s `Mcp-Param-{Name}` headers against its arguments
 * (basic/transports/streamable-http, "Server Behavior for Custom Headers", "Server Validation"),
 * for the parameters the tool's schema annotates with `x-mcp-header` (tool-header-catalog.ts):
 * - a value in the body and no header: rejected (the client is not conforming);
 * - a header with characters a header may not carry, or a Base64 sentinel that does not decode:
 *   rejected;
 * - a header whose value, decoded, differs from the body's: rejected; integers are compared as
 *   numbers (`42.0` equals `42`), booleans as `true`/`false`;
 * - a parameter that is `null` or absent in the body: no header is expected; one that is sent
 *   anyway names a value the body does not hold, and is rejected, since a router reading it and
 *   the child reading the body would disagree.
 * Headers of parameters the schema does not annotate are not recognized: they are left alone.
 */
import type { IncomingMessage } from "node:http";
import { argumentAt, decodeHeaderValue, type HeaderParam } from "../../protocol/header-values.js";

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** `undefined` when every recognized header matches the arguments, else what does not (for the -32020 message). */
export function paramHeaderMismatch(params: readonly HeaderParam[], args: unknown, request: IncomingMessage): string | undefined {
  for (const param of params) {
    const header = `Mcp-Param-${param.name}`;
    const raw = request.headers[header.toLowerCase()];
    // Node joins repeated headers of unknown names with ", "; an array only for set-cookie.
    const sent = Array.isArray(raw) ? raw.join(", ") : raw;
    const value = argumentAt(args, param.path);
    const inBody = value !== undefined && value !== null;
    if (sent === undefined) {
      if (inBody) return `the ${header} header is missing, and the arguments hold a value for it`;
      continue;
    }
    const decoded = decodeHeaderValue(sent);
    if (decoded === undefined) return `the ${header} header holds characters a header may not carry, or a malformed Base64 value`;
    if (!inBody) return `the ${header} header is sent, and the arguments hold no value for it`;
    if (!sameValue(decoded, value)) return `the ${header} header does not match the arguments`;
  }
  return undefined;
}

function sameValue(header: string, value: unknown): boolean {
  if (typeof value === "string") return header === value;
  if (typeof value === "boolean") return header === String(value);
  if (typeof value === "number") return NUMBER.test(header) && Number(header) === value;
  // An object or an array cannot be mirrored into a header.
  return false;
}
