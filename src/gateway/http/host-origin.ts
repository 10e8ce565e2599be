/**
 * Who may reach the gateway from where (basic/transports, "Security Warning"): the `Host` a
 * request names must be one the gateway serves, so a page whose name an attacker points at
 * 127.0.0.1 (DNS rebinding) is refused; an `Origin` present must be one of `allowedOrigins`
 * (403 otherwise); and CORS headers are given to those origins alone, never `*`.
 */
import type { IncomingMessage, OutgoingHttpHeaders } from "node:http";
import { isLoopbackHost } from "../../util/loopback.js";

export interface HostPolicy {
  /** Lowercased `host` or `host:port` values. */
  allowedHosts: readonly string[];
  /** Loopback names (`localhost`, `127.0.0.1`, `[::1]`) are accepted: the gateway listens on loopback. */
  loopbackNames: boolean;
}

/** Whether the request's `Host` header names the gateway. A request without one is refused. */
export function hostAllowed(request: IncomingMessage, policy: HostPolicy): boolean {
  const host = request.headers.host?.trim().toLowerCase();
  if (host === undefined || host === "") return false;
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(host);
  if (!match) return false;
  const name = match[1]!;
  if (policy.allowedHosts.includes(host) || policy.allowedHosts.includes(name)) return true;
  return policy.loopbackNames && isLoopbackHost(name);
}

/**
 * The request's `Origin`: `undefined` when it sent none (not a browser), `false` when it sent one
 * outside `allowedOrigins` (403), else the origin, to be echoed by CORS.
 */
export function checkOrigin(request: IncomingMessage, allowedOrigins: readonly string[]): string | false | undefined {
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  let normalized: string;
  try {
    normalized = new URL(origin).origin;
  } catch {
    return false;
  }
  // "null" (a sandboxed frame, a file: page) parses to the opaque origin "null": never listed.
  return normalized !== "null" && allowedOrigins.includes(normalized) ? normalized : false;
}

/** The headers a caller may send across origins (preflight), beside the `Mcp-Param-*` it asks for. */
const ALLOWED_REQUEST_HEADERS = ["Content-Type", "Accept", "Authorization", "Mcp-Session-Id", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", "Last-Event-ID"];
const TOKEN_LIST = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*,\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

/** CORS headers for a request from an allowed origin. */
export function corsHeaders(origin: string): OutgoingHttpHeaders {
  return {
    "Access-Control-Allow-Origin": origin,
    "Access-Control-Expose-Headers": "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After",
    Vary: "Origin",
  };
}

/** The answer to a preflight (OPTIONS) from an allowed origin. */
export function preflightHeaders(origin: string, request: IncomingMessage): OutgoingHttpHeaders {
  const asked = request.headers["access-control-request-headers"];
  // The Mcp-Param-* names depend on the tool; a well-formed list of names is echoed, so a
  // caller may send them, and anything else gets only the fixed list.
  const mcpParams = typeof asked === "string" && TOKEN_LIST.test(asked.trim())
    ? asked.split(",").map((name) => name.trim()).filter((name) => /^mcp-param-/i.test(name))
    : [];
  return {
    ...corsHeaders(origin),
    "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
    "Access-Control-Allow-Headers": [...ALLOWED_REQUEST_HEADERS, ...mcpParams].join(", "),
    "Access-Control-Max-Age": "600",
  };
}
