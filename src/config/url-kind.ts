/** Which transport a URL asks for: the auto-detection table of the README. */
import type { TransportName } from "./server-config.js";

/**
 * `ws://` and `wss://` are WebSocket; an http(s) URL whose path ends in `/sse` is the legacy
 * HTTP+SSE transport; any other http(s) URL is Streamable HTTP (with fallback to legacy SSE).
 * A string that is not a URL is "http" here; validation then refuses it with a clear message.
 */
export function transportForUrl(text: string): Exclude<TransportName, "stdio"> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "http";
  }
  if (url.protocol === "ws:" || url.protocol === "wss:") return "websocket";
  return /\/sse\/?$/.test(url.pathname) ? "sse" : "http";
}

/** True for a string that is meant as a URL (a scheme mcpwire speaks), not a command line. */
export function looksLikeUrl(text: string): boolean {
  return /^(https?|wss?):\/\//i.test(text.trim());
}
