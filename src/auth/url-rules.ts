/**
 * The URL rules of an OAuth flow (basic/authorization, "Communication Security"): authorization
 * server URLs are https, except on the loopback interface, where a development server runs
 * without TLS; redirect URIs are loopback only, since the CLI and the library receive the
 * callback on this machine (RFC 8252 §7.3).
 */
import { McpTransportError } from "../errors.js";
import { isLoopbackHost } from "../util/loopback.js";

/** An authorization-server URL (issuer, endpoint) as a URL, refused unless https or loopback http. */
export function checkAuthorizationServerUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new McpTransportError("PROTOCOL", `${what} is not a URL`, { authStep: "discovery" });
  }
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return url;
  throw new McpTransportError("PROTOCOL", `${what} (${url.origin}) must use https (plain http is allowed on loopback only)`, {
    authStep: "discovery",
  });
}

/** A redirect URI the user gave: http on a loopback address, as RFC 8252 native apps use. */
export function checkRedirectUri(value: string, where: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${where}: "redirectUri" must be a URL such as "http://127.0.0.1:8765/callback"`);
  }
  if (url.protocol !== "http:" || !isLoopbackHost(url.hostname) || url.hash !== "") {
    throw new TypeError(`${where}: "redirectUri" must be an http URL on a loopback address (127.0.0.1, [::1] or localhost), without a fragment`);
  }
  return url;
}
