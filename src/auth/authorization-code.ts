/**
 * The authorization code flow with PKCE (OAuth 2.1 §4.1): the authorization URL, the user-agent
 * step (the user's `authorize` function), the callback's checks, and the code's exchange.
 *
 * The callback is checked before anything in it is used:
 * - it must come to the redirect URI that was sent (same origin and path);
 * - its `state` must be the one sent, compared in constant time;
 * - RFC 9207: a present `iss` must equal the recorded issuer as a plain string (no case folding,
 *   no trailing-slash or port normalization); an absent one is refused when the server
 *   advertises `authorization_response_iss_parameter_supported`.
 * A callback that fails a check is discarded unread: its `error`, `error_description` and code
 * are neither used nor shown. Only then is an `error` reported (its code, on `oauthError`).
 *
 * The same `resource` (RFC 8707) goes in the authorization request and the token request.
 */
import { McpTransportError } from "../errors.js";
import type { HttpAccess } from "../transport/http/auth-provider.js";
import { shownOAuthError } from "./auth-http.js";
import type { AuthorizationServerMetadata } from "./discovery.js";
import { constantTimeEqual, newPkce, randomToken } from "./pkce.js";
import { tokenRefused, type TokenAnswer, type TokenRequest } from "./token-endpoint.js";
import type { StoredClient, StoredTokens } from "./token-store.js";
import { checkAuthorizationServerUrl } from "./url-rules.js";

/** The user-agent step: open `authorizationUrl`, resolve with the URL the browser was sent back to. */
export type AuthorizeFunction = (authorizationUrl: URL, context: { redirectUri: string; signal: AbortSignal }) => Promise<string | URL>;

export interface CodeFlowRequest {
  /** Sends the token request (with DPoP, when the provider binds its tokens). */
  tokenRequest(request: TokenRequest): Promise<TokenAnswer>;
  metadata: AuthorizationServerMetadata;
  client: StoredClient;
  redirectUri: string;
  resource: string;
  scopes: readonly string[];
  authorize: AuthorizeFunction;
  signal: AbortSignal;
}

/** The authorization URL and what must be kept beside it until the callback. */
export function authorizationRequest(request: Omit<CodeFlowRequest, "authorize" | "signal" | "tokenRequest">): {
  url: URL;
  state: string;
  verifier: string;
} {
  if (request.metadata.authorization_endpoint === undefined) {
    throw new McpTransportError("PROTOCOL", `the authorization server ${request.metadata.issuer} has no authorization_endpoint`, {
      authStep: "authorization",
    });
  }
  const url = checkAuthorizationServerUrl(request.metadata.authorization_endpoint, "the authorization endpoint");
  const pkce = newPkce();
  const state = randomToken();
  const params = url.searchParams;
  params.set("response_type", "code");
  params.set("client_id", request.client.client_id);
  params.set("redirect_uri", request.redirectUri);
  params.set("code_challenge", pkce.challenge);
  params.set("code_challenge_method", pkce.method);
  params.set("state", state);
  if (request.scopes.length > 0) params.set("scope", request.scopes.join(" "));
  params.set("resource", request.resource);
  return { url, state, verifier: pkce.verifier };
}

/**
 * The code of a callback, once every check passed. Throws PROTOCOL (authStep "authorization")
 * otherwise, without a word of the callback's own parameters unless they passed the checks.
 */
export function codeFromCallback(
  callback: string | URL,
  expected: { redirectUri: string; state: string; issuer: string; issAdvertised: boolean },
): string {
  const refuse = (why: string, oauthError?: string) =>
    new McpTransportError("PROTOCOL", `the authorization callback was refused: ${why}`, { authStep: "authorization", oauthError });
  let url: URL;
  try {
    url = new URL(String(callback));
  } catch {
    throw refuse("it is not a URL");
  }
  const redirect = new URL(expected.redirectUri);
  if (url.origin !== redirect.origin || url.pathname !== redirect.pathname) throw refuse("it did not come to the redirect URI");
  const params = url.searchParams;
  const state = params.get("state");
  if (state === null || !constantTimeEqual(state, expected.state)) throw refuse("its state is not the one sent (a forged or stale callback)");
  const iss = params.get("iss");
  if (iss !== null) {
    if (iss !== expected.issuer) throw refuse(`its iss is not the issuer the request was sent to (${expected.issuer})`);
  } else if (expected.issAdvertised) {
    throw refuse("it has no iss, which this authorization server says it always sends (RFC 9207)");
  }
  const error = params.get("error");
  if (error !== null) {
    // Arriving through a browser, the code is kept only when it reads as one.
    const code = /^[\x20-\x7e]{1,64}$/.test(error) ? error : "unreadable";
    throw refuse(code === "access_denied" ? "the user or the server denied access (access_denied)" : `the server answered ${shownOAuthError(code)}`, code);
  }
  const code = params.get("code");
  if (code === null || code === "") throw refuse("it carries no code");
  return code;
}

/** The whole flow: authorization URL, user-agent step, callback checks, code exchange. */
export async function runCodeFlow(access: HttpAccess, request: CodeFlowRequest): Promise<StoredTokens> {
  const { url, state, verifier } = authorizationRequest(request);
  let callback: string | URL;
  access.waitingForUser(true);
  try {
    callback = await request.authorize(url, { redirectUri: request.redirectUri, signal: request.signal });
  } catch (error) {
    if (error instanceof McpTransportError) throw error;
    if (request.signal.aborted) throw request.signal.reason;
    throw new McpTransportError("PROTOCOL", "the authorize function failed: no authorization code was obtained", {
      authStep: "authorization",
      cause: error,
    });
  } finally {
    access.waitingForUser(false);
  }
  const code = codeFromCallback(callback, {
    redirectUri: request.redirectUri,
    state,
    issuer: request.metadata.issuer,
    issAdvertised: request.metadata.authorization_response_iss_parameter_supported === true,
  });
  const answer = await request.tokenRequest({
    metadata: request.metadata,
    client: request.client,
    grant: {
      grant_type: "authorization_code",
      code,
      redirect_uri: request.redirectUri,
      code_verifier: verifier,
      resource: request.resource,
    },
    step: "token",
    signal: request.signal,
  });
  if (!answer.ok) throw tokenRefused(answer, "token", request.metadata.token_endpoint);
  if (answer.tokens.scope === undefined && request.scopes.length > 0) answer.tokens.scope = request.scopes.join(" ");
  return answer.tokens;
}
