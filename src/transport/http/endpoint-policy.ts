/**
 * The endpoint policy every HTTP transport keeps (Streamable HTTP and the legacy HTTP+SSE):
 *
 * | What                        | Policy                                                                  |
 * | --------------------------- | ----------------------------------------------------------------------- |
 * | Redirect                    | 307/308 to the same origin, or http to https on the same host; any     |
 * |                             | other fails (PROTOCOL) naming the target. `redirect: "none"`: none.     |
 * | Credentials                 | never sent to another origin (dropped on the http to https upgrade).   |
 * | Content type                | `application/json` or `text/event-stream` only; else PROTOCOL, unread. |
 * | 4xx                         | PROTOCOL with `httpStatus` (401/403 keep `WWW-Authenticate`).          |
 * | 5xx                         | UNAVAILABLE with `httpStatus` (retryable), for that request only.      |
 * | Unreachable                 | three attempts in all, jittered backoff, then one UNAVAILABLE.         |
 * | Body past `maxMessageBytes` | LIMIT, early when `Content-Length` says so.                            |
 *
 * A server's text (an HTTP body, a reason phrase) never goes into an error message. Messages do
 * not name the endpoint: the session adds the transport's description to every failure.
 */
import { StringDecoder } from "node:string_decoder";
import { isLasting, networkFailureIn } from "../net/network-failures.js";
import { McpTransportError } from "../../errors.js";
import { messageTooLarge } from "../limits.js";
import { abortReason, delay } from "../../util/abort.js";
import { backoffDelay, type BackoffSchedule } from "./backoff.js";
import { asBuffer } from "../common/bytes.js";
import type { HttpClient, HttpRequest, HttpResponse } from "./http-client.js";
import { shownUrl } from "../../util/shown-url.js";

export type RedirectMode = "same-origin" | "none";

export const JSON_MEDIA_TYPE = "application/json";
export const SSE_MEDIA_TYPE = "text/event-stream";
export type McpMediaType = typeof JSON_MEDIA_TYPE | typeof SSE_MEDIA_TYPE;

/** Attempts to reach an endpoint that refuses, cannot be resolved or fails TLS, before giving up. */
export const UNREACHABLE_ATTEMPTS = 3;

/** The waits between those attempts: about 200 ms, then about 400 ms (jittered). */
export const UNREACHABLE_BACKOFF: BackoffSchedule = { baseMs: 200, maxMs: 2_000 };

/** Same-origin redirects followed for one request before it fails; a loop ends here. */
export const MAX_REDIRECTS = 5;

/** Headers that carry credentials even when the user did not name them. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/** The media type of a Content-Type header, lower case and without parameters. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  // What MCP servers send nearly always, checked before any string is cut or copied.
  if (contentType === JSON_MEDIA_TYPE || contentType === SSE_MEDIA_TYPE) return contentType;
  const type = contentType.split(";", 1)[0]!.trim().toLowerCase();
  return type === "" ? undefined : type;
}

/** A value from the server shown in our message only when it looks like what it should be. */
function shown(value: string | undefined, pattern: RegExp): string {
  if (value === undefined) return "none";
  return value.length <= 100 && pattern.test(value) ? `"${value}"` : "(unreadable)";
}

/**
 * The media type of a response, which must be one of `allowed`; anything else (an intercepting
 * proxy's HTML page, say) fails with PROTOCOL and is never parsed. The caller discards the body.
 */
export function checkContentType(
  response: HttpResponse,
  allowed: readonly McpMediaType[],
  context: { what: string },
): McpMediaType {
  const type = mediaTypeOf(response.header("content-type"));
  if (type !== undefined && (allowed as readonly string[]).includes(type)) return type as McpMediaType;
  throw new McpTransportError(
    "PROTOCOL",
    `the endpoint answered ${context.what} with content type ${shown(type, /^[\w.+-]+\/[\w.+-]+$/)}, ` +
      `not ${allowed.join(" or ")}: it is not an MCP endpoint, or a proxy answered in its place`,
    { kind: "content_type", httpStatus: response.status },
  );
}

/** A 2xx status. */
export function isSuccessStatus(status: number): boolean {
  return status >= 200 && status < 300;
}

/**
 * The failure an HTTP status means, or undefined for 2xx. A 4xx is PROTOCOL (the request was
 * refused and will be again), a 5xx is UNAVAILABLE (the server may recover).
 */
export function failureForStatus(
  response: Pick<HttpResponse, "status" | "header">,
  context: { what: string },
): McpTransportError | undefined {
  const status = response.status;
  if (isSuccessStatus(status)) return undefined;
  if (status >= 500 && status < 600) {
    return new McpTransportError(
      "UNAVAILABLE",
      `the endpoint answered ${context.what} with HTTP ${status}: the server is failing or overloaded; try again later`,
      { httpStatus: status },
    );
  }
  const details: { httpStatus: number; httpHeaders?: Record<string, string> } = { httpStatus: status };
  if (status === 401 || status === 403) {
    const challenge = response.header("www-authenticate");
    if (challenge !== undefined) details.httpHeaders = { "www-authenticate": challenge };
  }
  const hint =
    status === 401 || status === 403
      ? ": the endpoint wants credentials; give them with the `auth` option (e.g. oauth()) or the `headers` option"
      : status >= 400 && status < 500
        ? ""
        : ": not a status MCP uses here";
  return new McpTransportError(
    "PROTOCOL",
    `the endpoint refused ${context.what} with HTTP ${status}${hint}`,
    details,
  );
}

/**
 * The most of an error body read for its JSON-RPC error, in bytes. A server that says why it
 * refused says it briefly; anything longer is not read.
 * @default 65_536
 */
export const ERROR_BODY_MAX_BYTES = 64 * 1024;

/**
 * How long an error body may take to arrive, in ms, before the failure is reported without it.
 * @default 2_000
 */
export const ERROR_BODY_TIMEOUT_MS = 2_000;

/**
 * The failure a non-2xx status means (see `failureForStatus`), with the JSON-RPC error of its
 * body when the body is a small JSON-RPC error response: its `code` on `code`, its text on
 * `serverMessage` and its `data` on `serverData`, never in the message. A modern server says
 * why it refused a request this way (e.g. 400 with an unsupported-version error). The body is
 * always released.
 */
export async function statusFailure(
  response: HttpResponse,
  context: { what: string },
): Promise<McpTransportError | undefined> {
  const failure = failureForStatus(response, context);
  if (!failure) return undefined;
  if (mediaTypeOf(response.header("content-type")) !== JSON_MEDIA_TYPE) {
    response.discard();
    return failure;
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    const body = await Promise.race([
      readBoundedBody(response, ERROR_BODY_MAX_BYTES, "HTTP"),
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ERROR_BODY_TIMEOUT_MS))),
    ]);
    const error = body === undefined ? undefined : (JSON.parse(body) as { error?: unknown }).error;
    if (typeof error !== "object" || error === null || typeof (error as { code?: unknown }).code !== "number") return failure;
    const { code, message, data } = error as { code: number; message?: unknown; data?: unknown };
    return failure.with({
      kind: "server_error",
      code,
      ...(typeof message === "string" ? { serverMessage: message } : {}),
      ...(data === undefined ? {} : { serverData: data }),
    });
  } catch {
    return failure; // an unreadable body changes nothing: the status already says what happened
  } finally {
    clearTimeout(timer);
    response.discard();
  }
}

/** What to do with a redirect: follow it to `url`, dropping credentials when the origin changes. */
export interface RedirectDecision {
  url: URL;
  sameOrigin: boolean;
}

/**
 * Whether a redirect from `from` is followed. By default only a 307/308 (which keep the method
 * and body) to the same origin, or from http to https on the same host and default ports, is;
 * anything else fails with a message that names the target, so that the user can configure it
 * if it is the intended server. `mode: "none"` refuses every redirect.
 */
export function decideRedirect(
  from: URL,
  status: number,
  location: string | undefined,
  mode: RedirectMode,
): RedirectDecision {
  let target: URL | undefined;
  try {
    target = location === undefined ? undefined : new URL(location, from);
  } catch {
    target = undefined;
  }
  if (status === 0) {
    throw new McpTransportError(
      "PROTOCOL",
      `the endpoint answered with a redirect whose target this fetch implementation hides; redirects are not followed: configure the final URL as the endpoint`,
    );
  }
  if (!target) {
    throw new McpTransportError(
      "PROTOCOL",
      `the endpoint answered with HTTP ${status} and no usable Location: it is not an MCP endpoint`,
      { httpStatus: status },
    );
  }
  target.hash = "";
  const sameOrigin = target.origin === from.origin;
  const upgrade =
    from.protocol === "http:" &&
    target.protocol === "https:" &&
    target.hostname === from.hostname &&
    from.port === "" &&
    target.port === "";
  const followable = mode === "same-origin" && (status === 307 || status === 308) && (sameOrigin || upgrade);
  if (!followable) {
    const why = mode === "none" ? 'redirects are refused (redirect: "none")' : "only a 307/308 to the same origin is followed";
    const named = namedTarget(target);
    throw new McpTransportError(
      "PROTOCOL",
      `the endpoint redirected to ${named} (HTTP ${status}), which is not followed: ${why}; ` +
        `configure ${named} as the endpoint if it is the intended server`,
      { httpStatus: status },
    );
  }
  return { url: target, sameOrigin };
}

/**
 * A redirect's target as an error message may show it: scheme, host and path. Its query (which
 * often repeats the endpoint's own, an API key say) and any user:password are left out, as the
 * transport's description leaves them out of the endpoint; "?…" says a query was there.
 */
function namedTarget(target: URL): string {
  return `${shownUrl(target)}${target.search === "" ? "" : "?…"}`;
}

/**
 * What the last failed attempt said, for the one line a user reads: our own connect failure names
 * the endpoint and the system's code ("http://127.0.0.1:9 could not be reached (ECONNREFUSED)").
 * Anything else (an engine's own error) is not shown there; it stays the cause.
 */
function unreachableWhy(error: unknown): string {
  return error instanceof McpTransportError ? error.message : "the endpoint could not be reached";
}

/** The failures of `exchange` that mean the endpoint could not be reached at all. */
const unreachableFailures = new WeakSet<McpTransportError>();

/**
 * True when `error` says the endpoint could not be reached at all (every attempt failed to
 * connect), as opposed to a server that answered, even with a 5xx.
 */
export function isUnreachable(error: unknown): boolean {
  return error instanceof McpTransportError && unreachableFailures.has(error);
}

export interface ExchangeOptions {
  redirect: RedirectMode;
  /** Names (lower case) of the user's own headers: dropped, with cookies and authorization, when the origin changes. */
  userHeaders: readonly string[];
  /**
   * The origin the user configured, for a request whose URL came from elsewhere (the legacy
   * transport's message endpoint, on the origin its stream was redirected to): a request to
   * another origin goes without the user's headers and credentials, as a redirect to one does.
   * @default the request's own origin (only a redirect changes it)
   */
  configuredOrigin?: string;
  /** What is being sent, for error messages: "request \"tools/call\"", "the event stream". */
  what: string;
  /** @default UNREACHABLE_ATTEMPTS */
  attempts?: number;
  /** @default UNREACHABLE_BACKOFF */
  backoff?: BackoffSchedule;
}

export interface Exchange {
  response: HttpResponse;
  /** The URL that answered. */
  url: URL;
  /** Set when every redirect on the way was a permanent (308) one to the same origin: use it from now on. */
  movedTo?: URL;
}

/**
 * One HTTP exchange under the policy: the request is made, an unreachable endpoint is tried
 * `attempts` times in all with jittered backoff, and redirects are followed or refused. The
 * response's status and content type are left to the caller, which knows what it expects.
 */
export async function exchange(client: HttpClient, request: HttpRequest, options: ExchangeOptions): Promise<Exchange> {
  if (request.signal.aborted) throw abortReason(request.signal);
  if (options.configuredOrigin !== undefined && request.url.origin !== options.configuredOrigin) {
    request = { ...request, headers: withoutCredentials(request.headers, options.userHeaders) };
  }
  let first: Attempt;
  try {
    const response = await client.request(request);
    if (!isRedirect(response.status)) return { response, url: request.url };
    first = { response };
  } catch (error) {
    first = { error };
  }
  // A failed attempt or a redirect goes on here.
  return exchangeFurther(client, request, options, first);
}

/** How an attempt ended: answered, or failed before any answer. */
type Attempt = { response: HttpResponse } | { error: unknown };

/** The rest of an exchange whose first attempt failed or was redirected. */
async function exchangeFurther(client: HttpClient, request: HttpRequest, options: ExchangeOptions, first: Attempt): Promise<Exchange> {
  const attempts = options.attempts ?? UNREACHABLE_ATTEMPTS;
  const schedule = options.backoff ?? UNREACHABLE_BACKOFF;
  let url = request.url;
  let headers = request.headers;
  let redirects = 0;
  let permanent = true;
  let outcome = first;
  for (let attempt = 1; ; ) {
    if ("error" in outcome) {
      const error = outcome.error;
      if (request.signal.aborted) throw abortReason(request.signal);
      const unreachable = !(error instanceof McpTransportError) || error.reason === "UNAVAILABLE";
      // A proxy or TLS failure names its case; a refusal or an untrusted certificate stays so.
      const named = networkFailureIn(error);
      if (unreachable && attempt < attempts && !(named && isLasting(named))) {
        await delay(backoffDelay(attempt, schedule), request.signal);
        attempt++;
        outcome = await attemptAt(client, request, url, headers);
        continue;
      }
      throw unreachable ? unreachableFailure(error, named, attempt, options.what) : failureOf(error as McpTransportError, options.what);
    }
    const response = outcome.response;
    if (!isRedirect(response.status)) {
      const moved = redirects > 0 && permanent ? url : undefined;
      return moved ? { response, url, movedTo: moved } : { response, url };
    }
    response.discard();
    const decision = decideRedirect(url, response.status, response.header("location"), options.redirect);
    if (++redirects > MAX_REDIRECTS) {
      throw new McpTransportError(
        "PROTOCOL",
        `the endpoint redirected ${options.what} more than ${MAX_REDIRECTS} times`,
        { httpStatus: response.status },
      );
    }
    if (!decision.sameOrigin) {
      headers = withoutCredentials(headers, options.userHeaders);
      permanent = false;
    }
    if (response.status !== 308) permanent = false;
    url = decision.url;
    outcome = await attemptAt(client, request, url, headers);
  }
}

/** The failure of an exchange whose endpoint could not be reached in `attempts` tries, saying why. */
function unreachableFailure(error: unknown, named: McpTransportError | undefined, attempts: number, what: string): McpTransportError {
  const tried = `${attempts} attempt${attempts === 1 ? "" : "s"}`;
  const failure = named
    ? named.with({ cause: error }, `${named.message} (${what}, ${tried})`)
    : new McpTransportError("UNAVAILABLE", `${unreachableWhy(error)}, for ${what} after ${tried}`, { cause: error });
  unreachableFailures.add(failure);
  return failure;
}

/** The failure of an exchange that reached its endpoint, naming the request it was. */
function failureOf(error: McpTransportError, what: string): McpTransportError {
  // An answer that was not HTTP says so (transport/common/not-http-answer.ts); only a lost connection reads as one.
  if (error.reason !== "DISCONNECTED") return error.with({ cause: error }, `${error.message} (${what})`);
  return new McpTransportError(error.reason, `the connection was lost while ${what} waited for its answer`, { cause: error });
}

/** One more attempt, to `url` with `headers`; a failure is an outcome, an abort before it a rejection. */
function attemptAt(client: HttpClient, request: HttpRequest, url: URL, headers: Record<string, string>): Promise<Attempt> {
  if (request.signal.aborted) return Promise.reject(abortReason(request.signal));
  // The caller's request as it is until a redirect changes where it goes.
  const current = url === request.url && headers === request.headers ? request : { ...request, url, headers };
  return client.request(current).then(
    (response) => ({ response }),
    (error: unknown) => ({ error }),
  );
}

function isRedirect(status: number): boolean {
  return status === 0 || (status >= 300 && status < 400 && status !== 304);
}

/**
 * The headers a request may carry to an origin other than the one the user configured (an
 * http→https upgrade is another origin): none of the user's own, and no Authorization, Cookie or
 * Proxy-Authorization. The one rule for both ways a request gets there: a redirect, and a legacy
 * message endpoint on the origin its stream was redirected to.
 */
function withoutCredentials(headers: Record<string, string>, userHeaders: readonly string[]): Record<string, string> {
  const kept = { ...headers };
  for (const name of [...CREDENTIAL_HEADERS, ...userHeaders]) delete kept[name];
  return kept;
}

/**
 * Reads a whole (JSON) body under `maxBytes`: a `Content-Length` above it fails before reading,
 * and a body that grows past it fails as soon as it does, with LIMIT. `onChunk` hears every chunk
 * (a read-stall watch counts them as activity). The body is discarded on failure.
 */
export function readBoundedBody(
  response: HttpResponse,
  maxBytes: number,
  transportName: string,
  onChunk?: () => void,
): Promise<string> {
  const declared = Number(response.header("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.discard();
    return Promise.reject(messageTooLarge(maxBytes, "received", transportName));
  }
  // A body of one chunk (most replies) is decoded once, at its end, without a streaming decoder.
  // From a second chunk on, the chunks are decoded as they arrive, so that a long body's bytes
  // are not held beside its text; the pieces are joined (flattened) once, by JSON.parse.
  let first: Uint8Array | undefined;
  let decoder: StringDecoder | undefined;
  let text = "";
  let total = 0;
  return response
    .read((chunk) => {
      onChunk?.();
      total += chunk.byteLength;
      if (total > maxBytes) throw messageTooLarge(maxBytes, "received", transportName);
      if (decoder !== undefined) {
        text += decoder.write(chunk);
      } else if (first === undefined) {
        first = chunk;
      } else {
        decoder = new StringDecoder("utf8");
        text = decoder.write(first) + decoder.write(chunk);
        first = undefined;
      }
    })
    .then(
      // Malformed bytes become U+FFFD either way, as with a streaming decoder.
      () => (decoder !== undefined ? text + decoder.end() : first === undefined ? "" : asBuffer(first).toString("utf8")),
      (error: unknown) => {
        response.discard();
        throw error;
      },
    );
}

