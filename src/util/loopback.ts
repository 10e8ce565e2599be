/**
 * Whether a URL's host is this machine's loopback interface: `localhost`, `127.0.0.0/8` or
 * `[::1]`. Plain http is allowed there only (a development server runs without TLS), for
 * authorization servers and for the URLs of elicitations alike.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}
