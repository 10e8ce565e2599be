/**
 * The HTTP requests of an OAuth flow: metadata GETs, registration and token POSTs. They go through
 * the transport's own HTTP client (its connection handling and attempts for an unreachable host),
 * within its byte ceiling, each bounded by its read deadline, and they carry no credential of the
 * MCP server: the access token never goes here. Token and registration requests follow no
 * redirect (a redirected POST would carry a code or a secret elsewhere); metadata follows the
 * transport's redirect mode.
 *
 * Only JSON bodies are read (an HTML login page in their place is a failure, unparsed). A failure
 * names the URL's origin and path and the step, never the body or a parameter.
 */
import { McpTransportError, type McpAuthStep } from "../errors.js";
import { exchange, mediaTypeOf, readBoundedBody, type RedirectMode } from "../transport/http/endpoint-policy.js";
import type { HttpAccess } from "../transport/http/auth-provider.js";
import { RequestAbort } from "../transport/http/request-abort.js";
import type { AbortSignalLike } from "../util/abort.js";
import { shownUrl } from "../util/shown-url.js";

export interface AuthHttpRequest {
  method: "GET" | "POST";
  url: URL;
  /** Lower-case names. */
  headers?: Record<string, string>;
  /** Sent as `application/x-www-form-urlencoded`. */
  form?: Record<string, string | undefined>;
  /** Sent as `application/json`. */
  json?: unknown;
  /** What the request is, for messages: "the authorization server metadata". */
  what: string;
  step: McpAuthStep;
  signal?: AbortSignalLike;
  /** Whether a same-origin redirect may be followed (metadata); never for token or registration requests. */
  followRedirects?: boolean;
}

export interface AuthHttpResponse {
  status: number;
  header(name: string): string | undefined;
  /** The parsed JSON body, or undefined when the body was not JSON (it is then not read). */
  body: unknown;
}

// The URL as messages show it: never a query (it may carry a code or a state).
export { shownUrl };

export async function authRequest(access: HttpAccess, request: AuthHttpRequest): Promise<AuthHttpResponse> {
  const headers: Record<string, string> = { accept: "application/json", ...request.headers };
  let body: string | undefined;
  if (request.form !== undefined) {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(request.form)) if (value !== undefined) form.set(name, value);
    body = form.toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
  } else if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers["content-type"] = "application/json";
  }
  // The request's own switch: aborted by the caller's signal or by the read deadline.
  const abort = new RequestAbort();
  const onAbort = () => abort.abort(request.signal!.reason);
  if (request.signal?.aborted) abort.abort(request.signal.reason);
  request.signal?.addEventListener("abort", onAbort);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort(new McpTransportError("TIMEOUT", `${request.what} (${shownUrl(request.url)}) did not answer within ${access.readTimeoutMs} ms`, {
      authStep: request.step,
      timeoutMs: access.readTimeoutMs,
    }));
  }, access.readTimeoutMs);
  try {
    const redirect: RedirectMode = request.followRedirects === true ? access.redirect : "none";
    const { response } = await exchange(
      access.client,
      { method: request.method, url: request.url, headers, body, signal: abort },
      { redirect, userHeaders: [], what: request.what },
    );
    const type = mediaTypeOf(response.header("content-type"));
    let parsed: unknown;
    if (type === "application/json" || (type !== undefined && type.endsWith("+json"))) {
      const text = await readBoundedBody(response, access.maxBytes, "oauth");
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new McpTransportError("PROTOCOL", `${request.what} (${shownUrl(request.url)}) answered with a body that is not JSON`, {
          authStep: request.step,
          httpStatus: response.status,
        });
      }
    } else {
      response.discard();
    }
    return { status: response.status, header: (name) => response.header(name), body: parsed };
  } catch (error) {
    if (timedOut && abort.reason instanceof McpTransportError) throw abort.reason;
    if (error instanceof McpTransportError) {
      if (error.authStep !== undefined) throw error;
      throw error.with({ authStep: request.step }, `${request.what} (${shownUrl(request.url)}) failed: ${error.message}`);
    }
    throw error;
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * An OAuth `error` code as a message may show it: a code is a short token (`invalid_grant`); an
 * answer that is anything else is the server's own text, which never goes into a message. The
 * code as sent stays on `oauthError`.
 */
export function shownOAuthError(code: string | undefined): string {
  return code !== undefined && /^[A-Za-z0-9_.-]{1,64}$/.test(code) ? code : "an unreadable error code";
}
