/**
 * A URL as mcpwire shows it in its own messages, descriptions and logs: scheme, host and path.
 * A URL's user and password, and its query string, may carry a secret (`?api_key=…`, an
 * authorization code), and a message is no place for one. A string that is not a URL is not
 * repeated either.
 */
export function shownUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = typeof url === "string" ? new URL(url) : url;
  } catch {
    return "(a URL)";
  }
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}
