/**
 * One HTTP exchange with the MCP server under an `AuthProvider` (http/auth-provider.ts): the
 * provider's headers go on the request; a refusal that asks for credentials (401, or 403 with
 * `insufficient_scope`) is handed to the provider, and the same request goes again with the
 * headers it gives then, at most `MAX_AUTH_ROUNDS` times. The provider decides whether a round
 * is worth it (OAuth tries one refresh, one authorization and one step-up per request); when it
 * has nothing new to try, the refusal is reported as the endpoint policy reports any status; a
 * request answered after a refusal is reported to the provider (`accepted`).
 * Best-effort traffic (`bestEffort`: the cancel notice) is never handed to the provider on a
 * refusal: it would wait on a login nobody else waits for, or start one, and keep it going.
 * Without a provider this is the plain exchange, with nothing added to the path of a call.
 */
import { parseWwwAuthenticate } from "./www-authenticate.js";
import { McpTransportError } from "../../errors.js";
import { exchange, type Exchange, type ExchangeOptions } from "./endpoint-policy.js";
import type { AuthProvider, AuthRequest, HttpAccess } from "./auth-provider.js";
import type { HttpRequest, HttpResponse } from "./http-client.js";

/** The endpoint policy's options, and whether the request is best-effort (`AuthRequest.bestEffort`). */
export interface AuthorizedExchangeOptions extends ExchangeOptions {
  /** @default false */
  bestEffort?: boolean;
}

/** The exchange, and the `Authorization` header its last attempt carried (none without a provider, or when it gave none). */
export interface AuthorizedExchangeResult extends Exchange {
  authorization?: string;
}

export function authorizedExchange(
  auth: AuthProvider | undefined,
  access: HttpAccess,
  request: HttpRequest,
  options: AuthorizedExchangeOptions,
): Promise<AuthorizedExchangeResult> {
  if (auth === undefined) return exchange(access.client, request, options);
  return exchangeWithAuth(auth, access, request, options);
}

/** Refusals of one request handed to the provider before the next one is reported as it is. */
export const MAX_AUTH_ROUNDS = 4;

async function exchangeWithAuth(auth: AuthProvider, access: HttpAccess, request: HttpRequest, options: AuthorizedExchangeOptions): Promise<AuthorizedExchangeResult> {
  const bestEffort = options.bestEffort === true;
  const asked: AuthRequest = { method: request.method, url: request.url, signal: request.signal, http: access, tried: new Set(), bestEffort };
  for (let round = 1; ; round++) {
    const sent = await headersOf(auth, asked);
    const result = await exchange(access.client, withHeaders(request, sent), options);
    if (round > MAX_AUTH_ROUNDS || !asksForCredentials(result.response)) {
      if (round > 1) acceptedAfterRefusal(auth, asked, result.response.status);
      return sent.authorization === undefined ? result : { ...result, authorization: sent.authorization };
    }
    const refused = result.response;
    const status = refused.status;
    const wwwAuthenticate = refused.header("www-authenticate");
    refused.discard();
    if (bestEffort) throw stillRefused(status, wwwAuthenticate, options.what, "it is best-effort, so it is dropped rather than wait for an authorization");
    const header = (name: string) => refused.header(name);
    if (!(await auth.challenged({ ...asked, status, wwwAuthenticate, sent, header }))) throw stillRefused(status, wwwAuthenticate, options.what);
  }
}

/** Tells the provider that a refused request went through at last; its own failure is not the request's. */
function acceptedAfterRefusal(auth: AuthProvider, request: AuthRequest, status: number): void {
  if (auth.accepted === undefined || status < 200 || status >= 300) return;
  try {
    auth.accepted(request);
  } catch {
    // The answer is the request's; a provider's bookkeeping cannot undo it.
  }
}

/** A refusal the provider had nothing more to try for (or was not asked, `because`): PROTOCOL with the status and challenge kept. */
function stillRefused(status: number, wwwAuthenticate: string | undefined, what: string, because?: string): McpTransportError {
  const why =
    because ??
    (status === 403
      ? "the authorization granted does not cover it, and asking for more scope would not change that"
      : "the credentials obtained were refused too");
  return new McpTransportError("PROTOCOL", `the endpoint refused ${what} with HTTP ${status}: ${why}`, {
    httpStatus: status,
    ...(wwwAuthenticate !== undefined && { httpHeaders: { "www-authenticate": wwwAuthenticate } }),
  });
}

/**
 * The request with the provider's headers and no more: for a request that must not start a flow
 * (the best-effort DELETE at close, which a browser login must not hold up; the GET stream of
 * Streamable HTTP, which must not keep one going that no request waits for, and its liveness
 * check, whose answer any status gives).
 */
export async function withAuthHeaders(auth: AuthProvider | undefined, access: HttpAccess, request: HttpRequest): Promise<HttpRequest> {
  if (auth === undefined) return request;
  const asked: AuthRequest = { method: request.method, url: request.url, signal: request.signal, http: access, tried: new Set(), bestEffort: true };
  return withHeaders(request, await headersOf(auth, asked));
}

/** 401, or 403 whose challenge names `insufficient_scope` (RFC 6750 §3.1): a refusal a token can settle. */
export function asksForCredentials(response: HttpResponse): boolean {
  if (response.status === 401) return true;
  if (response.status !== 403) return false;
  return parseWwwAuthenticate(response.header("www-authenticate")).some((challenge) => challenge.params.error === "insufficient_scope");
}

async function headersOf(auth: AuthProvider, request: AuthRequest): Promise<Record<string, string>> {
  let given: unknown;
  try {
    given = await auth.headers(request);
  } catch (error) {
    if (error instanceof McpTransportError) throw error;
    throw new McpTransportError("UNAVAILABLE", "the auth provider failed to give the request's headers", { cause: error });
  }
  if (typeof given !== "object" || given === null) {
    throw new McpTransportError("PROTOCOL", "the auth provider's headers must be an object of header names to values");
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given as Record<string, unknown>)) {
    if (typeof value !== "string" || /[\r\n\0]/.test(value) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new McpTransportError("PROTOCOL", `the auth provider gave an unusable header ${JSON.stringify(name)}`);
    }
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

function withHeaders(request: HttpRequest, extra: Record<string, string>): HttpRequest {
  return { ...request, headers: { ...request.headers, ...extra } };
}
