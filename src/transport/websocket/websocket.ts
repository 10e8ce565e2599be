/**
 * WebSocket transport: `ws://` and `wss://` targets, the subprotocol `mcp`, one JSON-RPC message
 * per text frame.
 *
 * Built on the `ws` package rather than the platform's WebSocket because it sends headers on
 * the upgrade request (an `Authorization` header, say), which the browser API cannot.
 *
 * What each failure becomes:
 * - refused, unreachable, DNS or TLS failure before the upgrade: UNAVAILABLE;
 * - the upgrade answered with a status instead of 101: 5xx UNAVAILABLE, anything else PROTOCOL,
 *   with `httpStatus` (and `www-authenticate`, `retry-after`, `location` on `httpHeaders`);
 * - the upgrade not finished within `upgradeTimeoutMs`: TIMEOUT;
 * - the subprotocol `mcp` not accepted, or an answer that breaks RFC 6455: PROTOCOL;
 * - a binary frame, or a text frame that is not one JSON-RPC message: PROTOCOL;
 * - a message past `maxMessageBytes` (read or written): LIMIT;
 * - the server closing the socket, the socket dropping, a ping left unanswered: DISCONNECTED,
 *   with the close code on the cause (`WebSocketCloseError`) and the server's close reason text
 *   on `serverMessage`, never in `message`.
 *
 * Each `open()` makes one connection and one only; calling `open()` again on the same transport
 * after a connection ended makes a new one (the client's reconnect does exactly that).
 */
import type { ClientRequest, IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type WebSocket from "ws";
import type { ClientOptions } from "ws";
import { McpTransportError } from "../../errors.js";
import { abortReason, raceAbort } from "../../util/abort.js";
import { resolveKeepAlive, type KeepAliveOptions, type KeepAliveSettings } from "./ping-keepalive.js";
import { describeValue, type Limits } from "../limits.js";
import type { ConnectionEvents, McpConnection, McpTransport, OpenOptions } from "../transport.js";
import { WebSocketConnection } from "./websocket-connection.js";
import { didYouMean } from "../../util/option-names.js";
import { checkWholeNumber } from "../../util/whole-number.js";
import { hasRefusedHeaderChar, isHeaderName } from "../../util/header-syntax.js";
import { proxyRules, type ProxyOption, type ProxyRules } from "../net/proxy-rules.js";
import { TLS_OPTION_NAMES, checkTlsFiles, checkTlsOptions, loadTls, type TlsOptions, type TlsSettings } from "../net/tls-options.js";
import { connectFailure } from "../net/network-failures.js";
import { notHttpAnswerIn } from "../common/not-http-answer.js";
import { tunnelConnection } from "./tunnel-connection.js";
import { shownUrl } from "../../util/shown-url.js";

export {
  DEFAULT_KEEPALIVE_INTERVAL_MS,
  DEFAULT_KEEPALIVE_TIMEOUT_MS,
  type KeepAliveOptions,
} from "./ping-keepalive.js";
export { WebSocketCloseError } from "./websocket-connection.js";

/** The subprotocol offered on the upgrade; a server that does not select it is refused. */
export const WEBSOCKET_SUBPROTOCOL = "mcp";

/**
 * How long, in ms, opening may take: the headers function, the TCP connection, the TLS handshake
 * and the HTTP upgrade together.
 * The default matches the 30 s connect deadline MCP clients commonly use; the caller's `signal`
 * (the client's `timeoutMs`) bounds it as well.
 */
export const DEFAULT_UPGRADE_TIMEOUT_MS = 30_000;

/**
 * How long, in ms, `close()` waits for the server to answer the close frame before the socket is
 * destroyed. A live server answers at once; a dead one never will, and close() must still end.
 */
export const DEFAULT_CLOSE_TIMEOUT_MS = 5_000;

const KIND = "websocket";
const PEER = "the WebSocket server";

/** Headers of the upgrade request, by name. */
export type WebSocketHeaders = Record<string, string>;

/** What a headers function is told about the connection attempt it is asked for. */
export interface WebSocketHeadersContext {
  /** The URL being connected to, as given to the transport. */
  url: string;
  /** 1 for the first `open()` of this transport, 2 for the next (a reconnect), and so on. */
  attempt: number;
}

export interface WebSocketOptions extends TlsOptions {
  /**
   * Headers sent on the upgrade request: an object, or a function called once per connection
   * attempt (so a credential can be refreshed before each reconnect). The handshake's own
   * headers (`Connection`, `Upgrade`, `Sec-WebSocket-*`) are not allowed here.
   */
  headers?: WebSocketHeaders | ((context: WebSocketHeadersContext) => WebSocketHeaders | Promise<WebSocketHeaders>);
  /**
   * Ping/pong keepalive, so a half-dead connection ends with DISCONNECTED instead of a hang.
   * @default { intervalMs: 30_000, timeoutMs: 10_000 }; `intervalMs: 0` turns it off.
   */
  keepAlive?: KeepAliveOptions;
  /**
   * Deadline, in ms, for opening: the headers function, TCP, TLS and the upgrade. Past it, TIMEOUT.
   * @default 30_000 (DEFAULT_UPGRADE_TIMEOUT_MS)
   */
  upgradeTimeoutMs?: number;
  /**
   * Deadline, in ms, for the server to answer `close()`'s close frame before the socket is destroyed.
   * @default 5_000 (DEFAULT_CLOSE_TIMEOUT_MS)
   */
  closeTimeoutMs?: number;
  /**
   * The proxy to connect through (an http: or https: URL; credentials in it are sent as
   * `Proxy-Authorization`), or `false` for none. By default `HTTPS_PROXY` for wss:, `HTTP_PROXY`
   * for ws:, and `NO_PROXY`, as for every network wire. The upgrade goes through a CONNECT tunnel.
   */
  proxy?: ProxyOption;
}

/** Every option `WebSocketTransport` takes. */
export const WEBSOCKET_OPTION_NAMES = [
  "headers",
  "keepAlive",
  "upgradeTimeoutMs",
  "closeTimeoutMs",
  "proxy",
  ...TLS_OPTION_NAMES,
] as const satisfies readonly (keyof WebSocketOptions)[];
const OPTION_KEYS: readonly string[] = WEBSOCKET_OPTION_NAMES;

/** Headers that belong to the WebSocket handshake itself; `ws` sets them. */
const HANDSHAKE_HEADERS: ReadonlySet<string> = new Set([
  "connection",
  "upgrade",
  "sec-websocket-key",
  "sec-websocket-version",
  "sec-websocket-protocol",
  "sec-websocket-extensions",
  "sec-websocket-accept",
]);

/** Headers of a refused upgrade worth keeping on the error. */
const KEPT_RESPONSE_HEADERS = ["www-authenticate", "retry-after", "location"] as const;

export class WebSocketTransport implements McpTransport {
  readonly kind = KIND;
  readonly description: string;
  private readonly url: string;
  /** The URL as shown in messages and `description`. */
  private readonly shownUrl: string;
  private readonly headers: WebSocketOptions["headers"];
  private readonly keepAlive: KeepAliveSettings;
  private readonly upgradeTimeoutMs: number;
  private readonly closeTimeoutMs: number;
  private readonly proxy: ProxyRules;
  private readonly tls: TlsSettings | undefined;
  private attempts = 0;

  constructor(url: string | URL, options: WebSocketOptions = {}) {
    const target = checkUrl(url);
    checkOptionKeys(options);
    this.url = target.href;
    // No userinfo and no query in what is shown: either may carry a credential.
    this.shownUrl = shownUrl(target);
    this.description = `${KIND}: ${this.shownUrl}`;
    this.headers = typeof options.headers === "function" ? options.headers : checkHeaders(options.headers, "options.headers");
    this.keepAlive = resolveKeepAlive(options.keepAlive, "WebSocketTransport options");
    this.upgradeTimeoutMs = checkDeadline("upgradeTimeoutMs", options.upgradeTimeoutMs, DEFAULT_UPGRADE_TIMEOUT_MS);
    this.closeTimeoutMs = checkDeadline("closeTimeoutMs", options.closeTimeoutMs, DEFAULT_CLOSE_TIMEOUT_MS);
    this.proxy = proxyRules(options.proxy, "WebSocketTransport:");
    this.tls = checkTlsOptions(options, "WebSocketTransport");
    checkTlsFiles(this.tls, "WebSocketTransport");
  }

  async open(events: ConnectionEvents, options: OpenOptions): Promise<McpConnection> {
    const { signal, limits } = options;
    if (signal?.aborted) throw abortReason(signal);
    const attempt = ++this.attempts;
    // One stop for the whole opening (headers function, TCP, TLS, upgrade): the caller's signal
    // or the upgrade deadline, whichever comes first.
    const stop = new AbortController();
    const onAbort = () => stop.abort(abortReason(signal!));
    signal?.addEventListener("abort", onAbort, { once: true });
    const deadline = setTimeout(
      () =>
        stop.abort(
          new McpTransportError(
            "TIMEOUT",
            `the WebSocket upgrade to ${this.shownUrl} did not complete within ${this.upgradeTimeoutMs} ms (upgradeTimeoutMs)`,
            { timeoutMs: this.upgradeTimeoutMs },
          ),
        ),
      this.upgradeTimeoutMs,
    );
    try {
      const headers = await raceAbort(this.headersFor(attempt), stop.signal);
      return await this.upgrade(await this.connect(headers, limits, stop.signal), events, limits, stop.signal);
    } finally {
      clearTimeout(deadline);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Starts the TCP connection and the upgrade request. `ws` is loaded here, on first use, rather
   * than when mcpwire is imported.
   */
  private async connect(headers: WebSocketHeaders, limits: Limits, stop: AbortSignal): Promise<WebSocket> {
    const { default: WebSocketClient } = await import("ws");
    // Read at each connection: a rotated certificate file is read anew.
    const tls = await raceAbort(loadTls(this.tls), stop);
    const target = new URL(this.url);
    const route = this.proxy.routeFor(target);
    try {
      return new WebSocketClient(this.url, [WEBSOCKET_SUBPROTOCOL], {
        ...tls,
        ...(route === undefined ? {} : { createConnection: tunnelConnection({ route, target, tls, signal: stop }) as unknown as ClientOptions["createConnection"] }),
        headers,
        // ws checks each frame and the whole message against this, before it buffers the payload.
        maxPayload: limits.maxMessageBytes,
        // Redirects are not followed: the headers (credentials) must not travel to another origin.
        followRedirects: false,
        // No compression: it buys little for JSON-RPC and costs zlib memory per connection.
        perMessageDeflate: false,
      });
    } catch (cause) {
      throw new McpTransportError("UNAVAILABLE", `could not start a WebSocket connection to ${this.shownUrl}`, { cause });
    }
  }

  private async headersFor(attempt: number): Promise<WebSocketHeaders> {
    const source = this.headers;
    if (typeof source !== "function") return { ...source };
    let given: unknown;
    try {
      given = await source({ url: this.url, attempt });
    } catch (cause) {
      throw new McpTransportError(
        "UNAVAILABLE",
        `the headers function of the WebSocket transport to ${this.shownUrl} failed, so no connection was attempted`,
        { cause },
      );
    }
    return checkHeaders(given, "the value returned by options.headers()");
  }

  /**
   * Waits for the upgrade until `stop` aborts; on any failure the socket is destroyed, and the
   * promise rejects once it is closed, so nothing is left running.
   */
  private upgrade(socket: WebSocket, events: ConnectionEvents, limits: Limits, stop: AbortSignal): Promise<McpConnection> {
    return new Promise<McpConnection>((resolve, reject) => {
      let failure: unknown;
      const giveUp = (error: unknown) => {
        if (failure !== undefined) return;
        failure = error;
        socket.terminate();
      };
      const onStop = () => giveUp(abortReason(stop));
      const onError = (error: Error) => giveUp(this.upgradeFailure(error));
      const onResponse = (_request: ClientRequest, response: IncomingMessage) => giveUp(this.refusal(response));
      const onClose = () => {
        cleanUp();
        reject(
          failure ??
            new McpTransportError("UNAVAILABLE", `${PEER} at ${this.shownUrl} closed the connection during the upgrade`),
        );
      };
      // The stream under the WebSocket: its bytes, not only whole messages, show the server is not silent.
      let wire: Duplex | undefined;
      const onUpgrade = (response: IncomingMessage) => (wire = response.socket);
      const onOpen = () => {
        cleanUp();
        // Listeners are attached now, in this tick: frames that came with the upgrade answer are not lost.
        resolve(new WebSocketConnection(socket, events, limits, this.keepAlive, this.closeTimeoutMs, wire));
      };
      const cleanUp = () => {
        stop.removeEventListener("abort", onStop);
        socket.off("open", onOpen);
        socket.off("error", onError);
        socket.off("close", onClose);
        socket.off("unexpected-response", onResponse);
        socket.off("upgrade", onUpgrade);
      };
      socket.on("upgrade", onUpgrade);
      socket.on("open", onOpen);
      socket.on("error", onError);
      socket.on("close", onClose);
      socket.on("unexpected-response", onResponse);
      if (stop.aborted) onStop();
      else stop.addEventListener("abort", onStop, { once: true });
    });
  }

  /** A failure before the upgrade completed. */
  private upgradeFailure(error: Error): McpTransportError {
    // The proxy's refusals and a TLS failure through its tunnel come named already.
    if (error instanceof McpTransportError) return error;
    const notHttp = notHttpAnswerIn(error, `${PEER} at ${this.shownUrl}`);
    if (notHttp !== undefined) return notHttp;
    const code = (error as NodeJS.ErrnoException).code;
    // Errors from the network, DNS and TLS carry a code; ws's own checks of the 101 answer do not.
    if (typeof code === "string") {
      const failure = connectFailure(error, {
        server: `${PEER} at ${this.shownUrl}`,
        secure: this.url.startsWith("wss:"),
        clientCertificate: this.tls?.cert !== undefined,
      });
      return failure.kind === "tls_handshake" ? failure : new McpTransportError("UNAVAILABLE", `${PEER} at ${this.shownUrl} could not be reached (${code})`, { cause: error });
    }
    if (/subprotocol/i.test(error.message)) {
      return new McpTransportError(
        "PROTOCOL",
        `${PEER} at ${this.shownUrl} did not accept the subprotocol "${WEBSOCKET_SUBPROTOCOL}"; ` +
          "it is not an MCP server, or it does not speak MCP over WebSocket",
        { cause: error },
      );
    }
    return new McpTransportError(
      "PROTOCOL",
      `${PEER} at ${this.shownUrl} answered the upgrade in a way RFC 6455 does not allow; check that the URL is a WebSocket endpoint`,
      { cause: error },
    );
  }

  /** The upgrade was answered with an HTTP status instead of 101 Switching Protocols. */
  private refusal(response: IncomingMessage): McpTransportError {
    const status = response.statusCode ?? 0;
    const httpHeaders: Record<string, string> = {};
    for (const name of KEPT_RESPONSE_HEADERS) {
      const value = response.headers[name];
      if (typeof value === "string") httpHeaders[name] = value;
    }
    const details = { httpStatus: status, ...(Object.keys(httpHeaders).length > 0 ? { httpHeaders } : {}) };
    const where = `${this.shownUrl} answered the WebSocket upgrade with HTTP ${status}`;
    if (status >= 500) {
      return new McpTransportError("UNAVAILABLE", `${where}; the server is failing or overloaded, try again later`, details);
    }
    return new McpTransportError("PROTOCOL", `${where}; ${refusalAdvice(status)}`, details);
  }
}

function refusalAdvice(status: number): string {
  if (status === 401 || status === 403) return "check the credentials given in options.headers";
  if (status === 404) return "check the URL's path";
  if (status >= 300 && status < 400) {
    return "redirects are not followed (headers must not reach another origin); use the target URL if it is the intended server";
  }
  if (status >= 400) return "the server refused the connection";
  return "the URL is not a WebSocket endpoint";
}

function checkUrl(url: unknown): URL {
  let target: URL;
  try {
    target = new URL(url instanceof URL ? url.href : String(url));
  } catch {
    // The text itself is not shown: a URL may carry a credential.
    throw new TypeError("WebSocketTransport: the URL cannot be parsed; give an absolute ws:// or wss:// URL");
  }
  if (target.protocol !== "ws:" && target.protocol !== "wss:") {
    throw new TypeError(
      `WebSocketTransport: the URL's scheme is "${target.protocol}"; the schemes allowed are "ws:" and "wss:"` +
        (target.protocol === "http:" || target.protocol === "https:" ? " (an http(s) URL is for the Streamable HTTP transport)" : ""),
    );
  }
  if (target.hash) throw new TypeError("WebSocketTransport: a WebSocket URL cannot have a fragment (#...); remove it");
  return target;
}

function checkOptionKeys(options: unknown): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(`WebSocketTransport: options must be an object, got ${describeValue(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) {
      throw new TypeError(`WebSocketTransport: "${key}" is not an option${didYouMean(key, OPTION_KEYS)}; the options are ${OPTION_KEYS.join(", ")}`);
    }
  }
}

function checkDeadline(name: keyof WebSocketOptions, value: unknown, fallback: number): number {
  return value === undefined ? fallback : checkWholeNumber(value, name, "WebSocketTransport options", { min: 1, defaultValue: fallback });
}

/**
 * Checks headers given by the user and returns a copy. Values are never shown in messages: a
 * header value is often a credential.
 */
function checkHeaders(value: unknown, where: string): WebSocketHeaders {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`WebSocketTransport: ${where} must be an object of header names to string values, got ${describeValue(value)}`);
  }
  const headers: WebSocketHeaders = {};
  const seen = new Set<string>();
  for (const [name, headerValue] of Object.entries(value)) {
    if (!isHeaderName(name)) {
      throw new TypeError(`WebSocketTransport: ${where} has a header name that is not an HTTP token: ${JSON.stringify(name)}`);
    }
    const lower = name.toLowerCase();
    if (HANDSHAKE_HEADERS.has(lower)) {
      throw new TypeError(
        `WebSocketTransport: ${where} sets "${name}", a header of the WebSocket handshake itself; the transport sets it`,
      );
    }
    if (seen.has(lower)) throw new TypeError(`WebSocketTransport: ${where} sets "${name}" twice (header names ignore case)`);
    seen.add(lower);
    if (typeof headerValue !== "string") {
      const got = headerValue === null ? "null" : Array.isArray(headerValue) ? "an array" : `a ${typeof headerValue}`;
      throw new TypeError(`WebSocketTransport: ${where}: the value of "${name}" must be a string, got ${got}`);
    }
    if (hasRefusedHeaderChar(headerValue)) {
      throw new TypeError(`WebSocketTransport: ${where}: the value of "${name}" has a character not allowed in a header (CR, LF or another control character)`);
    }
    headers[name] = headerValue;
  }
  return headers;
}
