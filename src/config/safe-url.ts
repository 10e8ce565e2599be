/**
 * A URL as mcpwire shows it in its own messages (errors, `--verbose`, a connection's
 * description): scheme, host and path only. The user's and password of a URL and its query
 * string may carry a secret (`?api_key=…`), and a message is no place for one.
 */
export function safeUrl(text: string | URL): string {
  try {
    const url = new URL(text);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return "(a URL)";
  }
}
