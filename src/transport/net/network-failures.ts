/**
 * What a failed connection becomes, for every network wire: a proxy that cannot be reached or
 * refuses is UNAVAILABLE naming the proxy (kind `proxy_unavailable`), a TLS handshake that fails
 * is UNAVAILABLE naming the server and the cause in plain words (kind `tls_handshake`), and any
 * other failure to connect is UNAVAILABLE naming the server. Messages never carry a proxy's
 * credentials, nor the text of a peer.
 */
import { McpTransportError } from "../../errors.js";
import type { ProxyRoute } from "./proxy-rules.js";

/** Certificate checks that fail because no trusted CA signed the chain. */
const UNTRUSTED = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_SIGNATURE_FAILURE",
  "CERT_UNTRUSTED",
]);

/** Alerts a server sends when it wants a client certificate, or does not accept the one given. */
const CLIENT_CERTIFICATE_ALERTS = new Set([
  "ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED",
  "ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE",
  "ERR_SSL_TLSV1_ALERT_UNKNOWN_CA",
  "ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN",
  "ERR_SSL_TLSV1_ALERT_ACCESS_DENIED",
  "ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE",
]);

/** The TLS cause of a failed handshake in plain words, or undefined when `code` is not a TLS one. */
export function tlsProblem(code: string | undefined, clientCertificateGiven: boolean): string | undefined {
  if (code === undefined) return undefined;
  if (UNTRUSTED.has(code)) return "the server's certificate is not trusted: give its CA with `ca` (or in NODE_EXTRA_CA_CERTS)";
  if (code === "CERT_HAS_EXPIRED") return "the server's certificate has expired";
  if (code === "CERT_NOT_YET_VALID") return "the server's certificate is not valid yet (check this machine's clock)";
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID" || code === "HOSTNAME_MISMATCH") {
    return "the server's certificate is for another host name than the URL's";
  }
  if (CLIENT_CERTIFICATE_ALERTS.has(code)) {
    return clientCertificateGiven
      ? "the server did not accept the client certificate given in `cert`"
      : "the server asks for a client certificate: give `cert` and `key`";
  }
  if (code === "ERR_SSL_WRONG_VERSION_NUMBER" || code === "ERR_SSL_PACKET_LENGTH_TOO_LONG") {
    return "the server does not speak TLS on that port (is the URL http:// or ws://?)";
  }
  if (code.startsWith("ERR_SSL_") || code.startsWith("ERR_TLS_") || code.startsWith("CERT_")) return `the TLS handshake failed (${code})`;
  return undefined;
}

/** How the connection was being made, for the message. */
export interface ConnectAttempt {
  /** The server as messages name it: its origin (`https://api.example:443`). */
  server: string;
  /** The proxy on the way, if any. */
  proxy?: ProxyRoute;
  /** Whether a client certificate was offered (changes what a handshake alert means). */
  clientCertificate: boolean;
  /** Whether the connection to the server itself was made over TLS. */
  secure: boolean;
}

/**
 * A failure while connecting to the server (directly, or through the tunnel once the proxy said
 * yes), as UNAVAILABLE. A TLS failure says its cause; another names its system code only.
 */
export function connectFailure(error: unknown, attempt: ConnectAttempt): McpTransportError {
  if (error instanceof McpTransportError) return error;
  const code = codeOf(error);
  const cause = new Error(code ?? "connection failed");
  const problem = attempt.secure ? tlsProblem(code, attempt.clientCertificate) : undefined;
  const via = attempt.proxy === undefined ? "" : ` (through the proxy ${attempt.proxy.shown})`;
  if (problem !== undefined) {
    return new McpTransportError("UNAVAILABLE", `the TLS connection to ${attempt.server}${via} failed: ${problem}`, {
      kind: "tls_handshake",
      cause,
    });
  }
  return new McpTransportError("UNAVAILABLE", `${attempt.server}${via} could not be reached (${code ?? "connection failed"})`, { cause });
}

/** The proxy could not be reached, or dropped the connection before it answered CONNECT. */
export function proxyUnreachable(error: unknown, proxy: ProxyRoute): McpTransportError {
  const code = codeOf(error) ?? "connection failed";
  return new McpTransportError("UNAVAILABLE", `the proxy ${proxy.shown} could not be reached (${code})`, {
    kind: "proxy_unavailable",
    cause: new Error(code),
  });
}

/** The proxy answered with another status than 2xx: to CONNECT, or 407 to a plain request. */
export function proxyRefused(status: number, proxy: ProxyRoute, target: string): McpTransportError {
  const advice =
    status === 407
      ? proxy.authorization === undefined
        ? "it asks for credentials: give them in the proxy URL, http://user:password@host:port"
        : "it did not accept the credentials in the proxy URL"
      : status === 403
        ? `it does not allow connections to ${target}`
        : status >= 500
          ? `it could not reach ${target}, or is failing`
          : `it refused the connection to ${target}`;
  return new McpTransportError("UNAVAILABLE", `the proxy ${proxy.shown} answered HTTP ${status}: ${advice}`, {
    kind: "proxy_unavailable",
    httpStatus: status,
  });
}

/** The proxy took too long to answer CONNECT. */
export function proxyTimedOut(timeoutMs: number, proxy: ProxyRoute, target: string): McpTransportError {
  return new McpTransportError("UNAVAILABLE", `the proxy ${proxy.shown} did not open a tunnel to ${target} within ${timeoutMs} ms`, {
    kind: "proxy_unavailable",
    timeoutMs,
  });
}

/**
 * TLS failures that came after the handshake. In TLS 1.3 a server checks the client certificate
 * once the client has finished its side, so "certificate required" arrives as an error of a socket
 * already handed to the HTTP client, which may then report the closed socket instead (undici's
 * "other side closed", naming the socket's addresses). The dispatcher records here, by the
 * socket's local address and port, what the alert meant; a few are kept, the latest.
 */
const lateTlsFailures = new Map<string, McpTransportError>();
const LATE_TLS_FAILURES_KEPT = 16;

interface SocketAddresses {
  localAddress?: string;
  localPort?: number;
}

const addressKey = (socket: SocketAddresses): string => `${socket.localAddress}:${socket.localPort}`;

/** Watches a connected TLS socket for an alert that fails the handshake late (see above). */
export function watchLateTlsFailure(
  socket: SocketAddresses & { once(event: "error", listener: (error: Error) => void): unknown },
  attempt: ConnectAttempt,
): void {
  // Read now: a destroyed socket no longer knows its addresses.
  const key = addressKey(socket);
  socket.once("error", (error: Error) => {
    const failure = connectFailure(error, attempt);
    if (failure.kind !== "tls_handshake") return;
    lateTlsFailures.delete(key);
    lateTlsFailures.set(key, failure);
    if (lateTlsFailures.size > LATE_TLS_FAILURES_KEPT) lateTlsFailures.delete(lateTlsFailures.keys().next().value!);
  });
}

/** The late TLS failure behind a closed-socket error of undici, if one was recorded. */
function lateTlsFailureOf(error: object): McpTransportError | undefined {
  const socket = (error as { code?: unknown; socket?: unknown }).socket;
  if ((error as { code?: unknown }).code !== "UND_ERR_SOCKET" || typeof socket !== "object" || socket === null) return undefined;
  return lateTlsFailures.get(addressKey(socket as SocketAddresses));
}

/** A failure of the kinds this module makes, anywhere in a chain of causes. */
export function networkFailureIn(error: unknown): McpTransportError | undefined {
  for (let current = error, depth = 0; typeof current === "object" && current !== null && depth < 8; depth++) {
    if (current instanceof McpTransportError && (current.kind === "proxy_unavailable" || current.kind === "tls_handshake")) return current;
    const late = lateTlsFailureOf(current);
    if (late !== undefined) return late;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === "EPROTO" && isWrongVersionRecord(error)) return "ERR_SSL_WRONG_VERSION_NUMBER";
  return typeof code === "string" ? code : undefined;
}

/**
 * A TLS socket made by `node:https` (under the WebSocket upgrade) reports a peer that answered in
 * plain text as "write EPROTO ... wrong version number": OpenSSL's reason is in the message only,
 * where `tls.connect` alone gives the code ERR_SSL_WRONG_VERSION_NUMBER. The text is OpenSSL's,
 * never the peer's, and is read only to name the cause.
 */
function isWrongVersionRecord(error: unknown): boolean {
  const message = (error as { message?: unknown }).message;
  return typeof message === "string" && /:wrong version number:/.test(message);
}

/**
 * A failure that trying again at once will not change: a TLS failure (the certificate is what it
 * is), or a proxy that answered with a refusal (4xx). A proxy that could not be reached, or
 * answered 5xx, may recover.
 */
export function isLasting(failure: McpTransportError): boolean {
  if (failure.kind === "tls_handshake") return true;
  return failure.kind === "proxy_unavailable" && failure.httpStatus !== undefined && failure.httpStatus < 500;
}
