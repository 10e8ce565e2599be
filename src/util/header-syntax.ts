/**
 * The syntax of HTTP header fields, checked wherever a user gives headers: the HTTP transports'
 * and the WebSocket transport's `headers`, the command's `--header`, the bridge's header file and
 * variable. One place, so that they agree, and without `node:http` (whose validators would load
 * its client and server with mcpwire).
 */

/** An RFC 9110 token (§5.6.2), the form of a field name (§5.1). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Whether `name` is a valid header field name. */
export function isHeaderName(name: string): boolean {
  return TOKEN.test(name);
}

/** Whether `value` holds a CR, LF or NUL: a line break would smuggle another header (RFC 9110 §5.5). */
export function breaksHeaderLine(value: string): boolean {
  return /[\r\n\0]/.test(value);
}

/**
 * Whether `value` holds a character Node's HTTP client refuses in a header: any control character
 * but HTAB, DEL, or a character above U+00FF (the rule of `http.validateHeaderValue`).
 */
export function hasRefusedHeaderChar(value: string): boolean {
  return /[^\t\x20-\x7e\x80-\xff]/.test(value);
}
