/**
 * The seam between the HTTP transports and whatever authorizes their requests (basic/authorization).
 *
 * A transport given an `AuthProvider` asks it for the headers of every HTTP request it sends
 * (POST, GET and DELETE alike) and tells it of every refusal that asks for credentials: a 401, or
 * a 403 whose challenge says `insufficient_scope`. The provider settles the refusal (finds the
 * authorization server, gets or refreshes a token, steps up its scope) and the transport sends
 * the same request once more, in the same session. What OAuth is stays above this file:
 * `oauth()` in src/auth/ is one provider, and anything else with these two methods is another.
 *
 * The provider gets the transport's own HTTP client, byte ceiling and read deadline with each
 * call, so that its discovery and token requests are bound as the transport's are.
 */
import type { RedirectMode } from "./endpoint-policy.js";
import type { HttpClient, HttpMethod } from "./http-client.js";
import type { AbortSignalLike } from "../../util/abort.js";

/** The transport's HTTP means, lent to the provider for its own requests. */
export interface HttpAccess {
  /** The MCP server's URL as configured: the resource a token is for. */
  readonly server: URL;
  readonly client: HttpClient;
  /** The largest body read, in bytes (the transport's `maxMessageBytes`). */
  readonly maxBytes: number;
  /** How long a response may take to arrive and to be read, in ms (the transport's `readTimeoutMs`). */
  readonly readTimeoutMs: number;
  /** The transport's redirect mode, for requests that may follow one (metadata). */
  readonly redirect: RedirectMode;
  /**
   * Tells the connection that the flow waits for the user (a browser login), from `true` to the
   * matching `false`: the session's deadlines stand still meanwhile.
   */
  waitingForUser(waiting: boolean): void;
}

/** One HTTP request to the MCP server, about to be sent. */
export interface AuthRequest {
  readonly method: HttpMethod;
  /** The URL it goes to: the MCP endpoint (or the legacy transport's message URL). */
  readonly url: URL;
  /** Aborted when the request is. */
  readonly signal: AbortSignalLike;
  readonly http: HttpAccess;
  /**
   * What the provider already tried for this one request (a refresh, an authorization...), in
   * its own words: a new set per request, shared by its rounds, for the provider to add to.
   */
  readonly tried: Set<string>;
  /**
   * Best-effort traffic (the cancel notice, the DELETE at close, the GET stream of server
   * messages, the GET that checks the endpoint is still there): nobody waits for it, so the
   * provider gives the headers it has at once, without starting or waiting on a flow (a renewal,
   * a login), and the transport does not hand it a refusal of it: the request is dropped (the
   * GET stream opens again once a request is accepted with other credentials; to the liveness
   * check a refusal is an answer, so the endpoint is there).
   */
  readonly bestEffort?: boolean;
}

/** The server refused a request for want of credentials. */
export interface AuthRefusal extends AuthRequest {
  /** 401, or 403 with `error="insufficient_scope"`. */
  readonly status: number;
  /** The response's `WWW-Authenticate`, as sent. */
  readonly wwwAuthenticate: string | undefined;
  /** The headers the provider gave for the refused request, to tell a stale token from the current one. */
  readonly sent: Readonly<Record<string, string>>;
  /** A header of the refusal by lower-case name (`dpop-nonce`, say). */
  header(name: string): string | undefined;
}

export interface AuthProvider {
  /**
   * The headers that authorize this request, e.g. `{ authorization: "Bearer …" }`; names in
   * lower case. Called for every request, so it answers at once while its token is good.
   */
  headers(request: AuthRequest): Record<string, string> | Promise<Record<string, string>>;
  /**
   * Settles a refusal: resolves true when the request may be sent again with new headers, false
   * when there is nothing new to try (the refusal is then reported as it is: PROTOCOL with its
   * `httpStatus`), and rejects with an `McpTransportError` when its own flow failed. Concurrent
   * refusals should share one flow.
   */
  challenged(refusal: AuthRefusal): Promise<boolean>;
  /**
   * Optional: the request was answered (2xx) after the provider settled a refusal of it, in the
   * same `tried` set it added to; never called for a request that was not refused. A provider
   * that counts its attempts in a row (OAuth's step-ups) starts counting again here.
   */
  accepted?(request: AuthRequest): void;
}

/** Whether a value can serve as an `AuthProvider`. */
export function isAuthProvider(value: unknown): value is AuthProvider {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as AuthProvider).headers === "function" &&
    typeof (value as AuthProvider).challenged === "function"
  );
}

/**
 * The same provider, told that the requests are for `server`: the legacy HTTP+SSE transport that
 * the automatic fallback tries at another path of the same origin (`<url>/sse`) authorizes for
 * the URL the user gave, so its tokens are the ones the Streamable HTTP attempt obtained.
 */
export function forServer(auth: AuthProvider, server: URL): AuthProvider {
  const moved = <T extends AuthRequest>(request: T): T => ({ ...request, http: { ...request.http, server } });
  return {
    headers: (request) => auth.headers(moved(request)),
    challenged: (refusal) => auth.challenged(moved(refusal)),
    accepted: (request) => auth.accepted?.(moved(request)),
  };
}
