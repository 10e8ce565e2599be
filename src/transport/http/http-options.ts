/**
 * What every HTTP transport (Streamable HTTP, the legacy HTTP+SSE) takes from its user and how
 * it is checked: the endpoint URL, the headers (fixed, or computed per request), the `fetch` to
 * use instead of the built-in undici client, and the redirect mode. Checked in the constructor, so a wrong
 * option fails where it was written rather than at the first request.
 */
import { McpTransportError } from "../../errors.js";
import type { JsonRpcMessage } from "../../protocol/jsonrpc.js";
import type { RedirectMode } from "./endpoint-policy.js";
import { FetchHttpClient } from "./fetch-http-client.js";
import type { FetchLike, HttpClient } from "./http-client.js";
import { CONNECT_TIMEOUT_MS, UndiciHttpClient } from "./undici-http-client.js";
import { describeValue } from "../limits.js";
import { didYouMean, firstUnknownKey } from "../../util/option-names.js";
import { isAuthProvider, type AuthProvider } from "./auth-provider.js";
import { proxyRules, type ProxyOption, type ProxyRules } from "../net/proxy-rules.js";
import { TLS_OPTION_NAMES, checkTlsFiles, checkTlsOptions, loadTls, type TlsOptions, type TlsSettings } from "../net/tls-options.js";
import { netDispatcher } from "../net/dispatcher.js";
import { breaksHeaderLine, hasRefusedHeaderChar, isHeaderName } from "../../util/header-syntax.js";

/** Headers sent on every request: a fixed set, or a function called per request (rotating tokens). */
export type HeadersOption =
  | Record<string, string>
  | (() => Record<string, string> | Promise<Record<string, string>>);

/** The options every HTTP transport shares. */
export interface HttpEndpointOptions extends TlsOptions {
  /**
   * Headers passed through on every HTTP request. A function is called for each request, so a
   * token can rotate. The headers the transport owns (`Accept`, `Content-Type`, and the
   * protocol's own) override these.
   */
  headers?: HeadersOption;
  /**
   * The `fetch` to use instead of the default keep-alive undici client: for tests, instrumentation,
   * or runtimes without Node's networking. It is called with `redirect: "manual"`. A `fetch` owns
   * its network, so `proxy` and the TLS options are refused beside it: give them to the `fetch`.
   */
  fetch?: FetchLike;
  /**
   * The proxy for every request of this server (an http: or https: URL; credentials in it are
   * sent as `Proxy-Authorization`, never shown), or `false` for none. By default `HTTPS_PROXY`
   * for https:, `HTTP_PROXY` for http:, and `NO_PROXY`; the OAuth requests follow the same rules.
   */
  proxy?: ProxyOption;
  /**
   * Which redirects are followed. `"same-origin"`: a 307/308 to the same origin, or http to https
   * on the same host; `"none"`: none. Any other redirect fails naming its target.
   * @default "same-origin"
   */
  redirect?: RedirectMode;
  /**
   * Authorizes every request and settles the server's 401 and 403 `insufficient_scope`
   * refusals: `oauth({...})`, or any `AuthProvider`. Not together with an `Authorization` header.
   */
  auth?: AuthProvider;
}

/** The same options, checked, with their defaults. */
export interface ResolvedHttpOptions {
  redirect: RedirectMode;
  auth: AuthProvider | undefined;
  fetch: FetchLike | undefined;
  /** Which proxy each request goes through (read once, from `proxy` and the environment). */
  proxy: ProxyRules;
  /** The TLS options, checked; their files are read when a connection opens. */
  tls: TlsSettings | undefined;
  /** Fixed headers are checked (and their names lower-cased) once, here; a function per request. */
  headers: ResolvedHeaders;
}

/** Fixed headers already checked, or the user's function, whose result is checked per request. */
export type ResolvedHeaders = Readonly<Record<string, string>> | (() => Record<string, string> | Promise<Record<string, string>>);

/**
 * Headers of the connection and its framing: the HTTP client sets them (undici refuses most of
 * them outright), so a user's header of these names is refused where it is given.
 */
const CONNECTION_HEADERS: ReadonlySet<string> = new Set(["content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "expect"]);
const NO_HEADERS: readonly string[] = Object.freeze([]);

/**
 * The endpoint as a URL: http or https, without credentials (they belong in `headers`, where
 * they are never sent to another origin) and without a fragment.
 */
export function checkEndpointUrl(url: string | URL, transportName: string, example: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`${transportName}: ${JSON.stringify(String(url))} is not a URL; give the endpoint, e.g. "${example}"`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new TypeError(`${transportName}: the endpoint must be an http: or https: URL, got ${parsed.protocol}`);
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw new TypeError(`${transportName}: put credentials in the \`headers\` option, not in the URL`);
  }
  parsed.hash = "";
  return parsed;
}

/** The options every HTTP transport takes. */
export const HTTP_ENDPOINT_OPTION_NAMES = [
  "headers",
  "fetch",
  "redirect",
  "auth",
  "proxy",
  ...TLS_OPTION_NAMES,
] as const satisfies readonly (keyof HttpEndpointOptions)[];

/**
 * Checks the shared options and applies their defaults; a wrong one is a TypeError naming it, and
 * so is a key that is not in `optionNames` (the transport's own list).
 */
export function resolveHttpOptions(
  options: HttpEndpointOptions,
  transportName: string,
  optionNames: readonly string[] = HTTP_ENDPOINT_OPTION_NAMES,
): ResolvedHttpOptions {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(`${transportName}: options must be an object, got ${describeValue(options)}`);
  }
  const unknown = firstUnknownKey(options, optionNames);
  if (unknown !== undefined) {
    throw new TypeError(
      `${transportName}: "${unknown}" is not an option${didYouMean(unknown, optionNames)}; the options are ${optionNames.join(", ")}` +
        " (limits such as timeoutMs and maxMessageBytes are options of the client or session)",
    );
  }
  const redirect = options.redirect ?? "same-origin";
  if (redirect !== "same-origin" && redirect !== "none") {
    throw new TypeError(`${transportName}: "redirect" must be "same-origin" or "none", got ${String(redirect)}`);
  }
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    throw new TypeError(`${transportName}: "fetch" must be a function, got a ${typeof options.fetch}`);
  }
  if (options.fetch !== undefined) {
    const network = (["proxy", ...TLS_OPTION_NAMES] as const).filter((name) => options[name] !== undefined);
    if (network.length > 0) {
      throw new TypeError(
        `${transportName}: ${network.map((name) => `"${name}"`).join(", ")} cannot be given beside "fetch": a fetch owns its own network; configure ${network.length > 1 ? "them" : "it"} in that fetch, or leave "fetch" out`,
      );
    }
  }
  if (options.auth !== undefined && !isAuthProvider(options.auth)) {
    throw new TypeError(`${transportName}: "auth" must be an AuthProvider (headers, challenged), e.g. oauth({ authorize })`);
  }
  const given = options.headers ?? {};
  const headers =
    typeof given === "function" ? given : checkHeaders(given, `${transportName}: "headers"`, (message) => new TypeError(message));
  if (options.auth !== undefined && typeof headers !== "function" && "authorization" in headers) {
    throw new TypeError(
      `${transportName}: "auth" and an Authorization header both authorize the requests; give one of them (the auth provider sets Authorization itself)`,
    );
  }
  const checked = options.auth === undefined || typeof headers !== "function" ? headers : refusingAuthorization(headers);
  const proxy = proxyRules(options.proxy, `${transportName}:`);
  const tls = checkTlsOptions(options, transportName);
  checkTlsFiles(tls, transportName);
  return { redirect, fetch: options.fetch, headers: checked, auth: options.auth, proxy, tls };
}

/** A headers function whose result may not carry Authorization, since the auth provider sets it. */
function refusingAuthorization(option: () => Record<string, string> | Promise<Record<string, string>>): () => Promise<Record<string, string>> {
  return async () => {
    const given = await option();
    if (typeof given === "object" && given !== null && Object.keys(given).some((name) => name.toLowerCase() === "authorization")) {
      throw new McpTransportError("PROTOCOL", `the headers function returned an Authorization header beside the "auth" option; give one of them`);
    }
    return given;
  };
}

/**
 * Connections to one origin beyond `maxInFlight`. Each request in flight holds at most one
 * connection (its POST and reply stream, or the GET that resumes it), so `maxInFlight` of them
 * can all be long-lived streams at once. The spares keep the rest moving then: the standalone
 * GET stream, and the short POSTs that must never wait behind a stream (the answer to a
 * server's question asked on one of those streams, a cancellation, a token request to an
 * authorization server of the same origin).
 */
export const SPARE_CONNECTIONS = 4;

/**
 * The HTTP client of one connection: the user's `fetch` (which owns its connections), or a
 * keep-alive undici client of its own, on the dispatcher of transport/net/ (the proxy rules,
 * the TLS options with their files read now, and failures named by proxy or TLS cause), with
 * at most `maxInFlight` + `SPARE_CONNECTIONS` connections to one origin.
 */
export async function httpClientFor(options: ResolvedHttpOptions, maxInFlight: number): Promise<HttpClient> {
  if (options.fetch) return new FetchHttpClient(options.fetch);
  const tls = await loadTls(options.tls);
  return new UndiciHttpClient(
    netDispatcher({ proxy: options.proxy, tls, connectTimeoutMs: CONNECT_TIMEOUT_MS, connections: maxInFlight + SPARE_CONNECTIONS }),
  );
}

/**
 * Header names are HTTP tokens and values have no line breaks, nor a character the HTTP client
 * refuses (another control character, or one above U+00FF); names come back in lower case.
 */
export function checkHeaders(
  headers: unknown,
  where: string,
  failure: (message: string) => Error,
): Record<string, string> {
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) {
    throw failure(`${where} must be an object of header names to string values`);
  }
  const checked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    if (!isHeaderName(name)) throw failure(`${where}: ${JSON.stringify(name)} is not a valid header name`);
    if (isReservedHeader(name)) {
      throw failure(`${where}: "${name}" is a header the protocol sets itself (Mcp-*, MCP-Protocol-Version, Accept, Content-Type, Last-Event-ID); remove it`);
    }
    if (CONNECTION_HEADERS.has(name.toLowerCase())) {
      throw failure(`${where}: "${name}" is a header of the HTTP connection, which the HTTP client sets itself; remove it`);
    }
    if (typeof value !== "string" || breaksHeaderLine(value)) {
      throw failure(`${where}: the value of "${name}" must be a string without line breaks`);
    }
    // The HTTP client refuses such a value only when the request is built, and then the failure
    // reads as a lost connection; refused here, it is named as the bad header it is.
    if (hasRefusedHeaderChar(value)) {
      throw failure(`${where}: the value of "${name}" holds a control character or a character outside Latin-1; write it in printable ASCII`);
    }
    checked[name.toLowerCase()] = value;
  }
  return checked;
}

/**
 * Headers the protocol layers set: every `Mcp-*` name (session id, protocol version, and the
 * modern era's `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), and the framing of the exchange. A user's
 * header never replaces one of them, so they are refused where headers are given.
 */
export function isReservedHeader(name: string): boolean {
  return /^(mcp-.*|accept|content-type|last-event-id)$/i.test(name);
}

/** The headers of one request, and the names of the user's own (dropped on a change of origin). */
export interface RequestHeaders {
  headers: Record<string, string>;
  userHeaders: readonly string[];
}

/**
 * The headers of one request: the user's, then the message's own (`Mcp-Method`...), then the
 * transport's, which win. Fixed headers were checked when the transport was made; a headers
 * function's result is checked here, and one that throws or returns something unusable fails
 * the request, never the process.
 *
 * With fixed headers (or none) they are built at once, not in a promise: on the path of every
 * call, a promise here was one more async step than the request needs. Only a headers function
 * gives a promise.
 */
export function requestHeaders(
  option: ResolvedHeaders,
  own: Record<string, string>,
  messageHeaders?: Record<string, string>,
): RequestHeaders | Promise<RequestHeaders> {
  if (typeof option === "function") return computedHeaders(option).then((user) => combineHeaders(user, own, messageHeaders));
  return combineHeaders(option, own, messageHeaders);
}

function combineHeaders(
  user: Readonly<Record<string, string>>,
  own: Record<string, string>,
  messageHeaders: Record<string, string> | undefined,
): RequestHeaders {
  // Built by assignment only: `delete` would turn the object into a slow dictionary, for us and
  // for the HTTP client, which walks it again.
  const headers: Record<string, string> = {};
  let userHeaders: string[] | undefined;
  for (const name in user) {
    headers[name] = user[name]!;
    (userHeaders ??= []).push(name);
  }
  if (messageHeaders) {
    for (const name in messageHeaders) headers[name.toLowerCase()] = messageHeaders[name]!;
  }
  for (const name in own) headers[name] = own[name]!;
  return { headers, userHeaders: userHeaders ?? NO_HEADERS };
}

async function computedHeaders(option: () => Record<string, string> | Promise<Record<string, string>>): Promise<Record<string, string>> {
  let given: unknown;
  try {
    given = await option();
  } catch (cause) {
    if (cause instanceof McpTransportError) throw cause;
    throw new McpTransportError("UNAVAILABLE", `the headers function failed`, { cause });
  }
  return checkHeaders(given, "the headers function's result", (message) => new McpTransportError("PROTOCOL", `${message}`));
}

/** What a message is, for error messages: `request "tools/call"`, `notification "..."`, "a response". */
export function whatOf(message: JsonRpcMessage): string {
  if ("method" in message) return `${"id" in message ? "request" : "notification"} "${message.method}"`;
  return "a response";
}
