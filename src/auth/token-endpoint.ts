/**
 * Requests to an authorization server's token endpoint (OAuth 2.1 §3.2, RFC 6749 §5): how the
 * client authenticates itself, the request, and the answer read into tokens or an OAuth error.
 *
 * Client authentication (basic/authorization; RFC 8414 `token_endpoint_auth_methods_supported`):
 * the method the registration names, when the server supports it; else, with a secret,
 * `client_secret_basic`, then `client_secret_post`; else `none` (a public client sends its id
 * only). A server that lists no methods supports `client_secret_basic` (RFC 8414 §2's default).
 *
 * An OAuth error answer keeps its `error` code on `oauthError`; its `error_description` and
 * `error_uri` are the server's text and are never kept.
 */
import { McpTransportError, type McpAuthStep } from "../errors.js";
import type { HttpAccess } from "../transport/http/auth-provider.js";
import type { AbortSignalLike } from "../util/abort.js";
import { authRequest, shownOAuthError, shownUrl } from "./auth-http.js";
import type { AuthorizationServerMetadata } from "./discovery.js";
import type { DpopKey } from "./dpop.js";
import type { StoredClient, StoredTokens } from "./token-store.js";

export type TokenEndpointAuthMethod = "client_secret_basic" | "client_secret_post" | "none";

const KNOWN_METHODS: readonly string[] = ["client_secret_basic", "client_secret_post", "none"];

/** The method the client authenticates with at this server's token endpoint. */
export function chooseAuthMethod(metadata: Pick<AuthorizationServerMetadata, "token_endpoint_auth_methods_supported">, client: StoredClient): TokenEndpointAuthMethod {
  const supported = metadata.token_endpoint_auth_methods_supported ?? ["client_secret_basic"];
  const registered = client.token_endpoint_auth_method;
  if (registered !== undefined && KNOWN_METHODS.includes(registered) && supported.includes(registered)) {
    if (registered === "none" || client.client_secret !== undefined) return registered as TokenEndpointAuthMethod;
  }
  if (client.client_secret !== undefined) {
    if (supported.includes("client_secret_basic")) return "client_secret_basic";
    if (supported.includes("client_secret_post")) return "client_secret_post";
  }
  return "none";
}

/** `application/x-www-form-urlencoded` of one value (RFC 6749 §2.3.1 and Appendix B: a space is "+"), as Basic wants it. */
function formEncode(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");
}

/** The headers and form fields that authenticate the client by `method`. */
export function clientAuthentication(
  method: TokenEndpointAuthMethod,
  client: StoredClient,
): { headers: Record<string, string>; form: Record<string, string> } {
  if (method === "client_secret_basic") {
    const credentials = Buffer.from(`${formEncode(client.client_id)}:${formEncode(client.client_secret ?? "")}`, "utf8").toString("base64");
    return { headers: { authorization: `Basic ${credentials}` }, form: {} };
  }
  if (method === "client_secret_post") {
    return { headers: {}, form: { client_id: client.client_id, client_secret: client.client_secret ?? "" } };
  }
  return { headers: {}, form: { client_id: client.client_id } };
}

export interface TokenRequest {
  metadata: AuthorizationServerMetadata;
  /** The grant's fields: `grant_type` and what it needs. */
  grant: Record<string, string | undefined>;
  /** How the client authenticates with its id (and secret); undefined for a grant that authenticates otherwise. */
  client: StoredClient | undefined;
  /** A signed client assertion instead (`private_key_jwt`, RFC 7523 §2.2), for this audience. */
  assertion?: ClientAssertion;
  step: McpAuthStep;
  signal?: AbortSignalLike;
  /** The token endpoint to use, when it is not the metadata's (an identity provider's). */
  endpoint?: string;
  /** DPoP: a proof on the request, and one more try when the server asks for a nonce (RFC 9449 §8). */
  dpop?: { key: DpopKey; nonce: string | undefined; onNonce(nonce: string): void };
}

/** A client that authenticates with a JWT it signs. */
export interface ClientAssertion {
  clientId: string;
  /** A new assertion for this audience (the authorization server's issuer). */
  sign(audience: string): Promise<string>;
}

export const CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/** The token endpoint's answer, read. */
export type TokenAnswer =
  | { ok: true; tokens: StoredTokens; response: { header(name: string): string | undefined } }
  | { ok: false; error: string; status: number; response: { header(name: string): string | undefined } };

/**
 * Sends a token request; an OAuth error answer is returned (the caller decides), anything else
 * unusable fails. With DPoP, a `use_dpop_nonce` answer is tried once more with the nonce, and a
 * nonce the server sends with any answer is kept for the next proof.
 */
export async function requestToken(access: HttpAccess, request: TokenRequest, now: number = Date.now()): Promise<TokenAnswer> {
  let answer = await sendTokenRequest(access, request, request.dpop?.nonce, now);
  const dpop = request.dpop;
  if (dpop !== undefined) {
    const nonce = answer.response.header("dpop-nonce");
    if (nonce !== undefined) dpop.onNonce(nonce);
    if (!answer.ok && answer.error === "use_dpop_nonce" && nonce !== undefined) {
      answer = await sendTokenRequest(access, request, nonce, now);
      const next = answer.response.header("dpop-nonce");
      if (next !== undefined) dpop.onNonce(next);
    }
  }
  return answer;
}

async function sendTokenRequest(access: HttpAccess, request: TokenRequest, nonce: string | undefined, now: number): Promise<TokenAnswer> {
  const url = new URL(request.endpoint ?? request.metadata.token_endpoint);
  const auth =
    request.assertion !== undefined
      ? {
          headers: {},
          form: {
            client_id: request.assertion.clientId,
            client_assertion_type: CLIENT_ASSERTION_TYPE,
            client_assertion: await request.assertion.sign(request.metadata.issuer),
          },
        }
      : request.client === undefined
        ? { headers: {}, form: {} }
        : clientAuthentication(chooseAuthMethod(request.metadata, request.client), request.client);
  const headers: Record<string, string> = { ...auth.headers };
  if (request.dpop !== undefined) headers.dpop = await request.dpop.key.proof({ htm: "POST", htu: url, nonce });
  const response = await authRequest(access, {
    method: "POST",
    url,
    headers,
    form: { ...request.grant, ...auth.form },
    what: "the token request",
    step: request.step,
    signal: request.signal,
  });
  if (response.status >= 500) {
    throw new McpTransportError("UNAVAILABLE", `the token endpoint ${shownUrl(url)} answered HTTP ${response.status}; try again later`, {
      authStep: request.step,
      httpStatus: response.status,
    });
  }
  const body = response.body as Record<string, unknown> | undefined;
  if (response.status < 200 || response.status >= 300) {
    if (typeof body === "object" && body !== null && typeof body.error === "string") {
      return { ok: false, error: body.error, status: response.status, response };
    }
    throw new McpTransportError("PROTOCOL", `the token endpoint ${shownUrl(url)} refused the request with HTTP ${response.status}`, {
      authStep: request.step,
      httpStatus: response.status,
    });
  }
  return { ok: true, tokens: readTokens(body, url, request.step, now), response };
}

/** The failure an OAuth error answer means, for a step that cannot go on without a token. */
export function tokenRefused(answer: Extract<TokenAnswer, { ok: false }>, step: McpAuthStep, url: string): McpTransportError {
  return new McpTransportError("PROTOCOL", `the token endpoint ${shownUrl(new URL(url))} refused the request: ${shownOAuthError(answer.error)}`, {
    authStep: step,
    oauthError: answer.error,
    httpStatus: answer.status,
  });
}

function readTokens(body: Record<string, unknown> | undefined, url: URL, step: McpAuthStep, now: number): StoredTokens {
  const unusable = (what: string) =>
    new McpTransportError("PROTOCOL", `the token endpoint ${shownUrl(url)} answered without ${what}`, { authStep: step });
  if (typeof body !== "object" || body === null) throw unusable("a JSON token response");
  if (typeof body.access_token !== "string" || body.access_token === "") throw unusable("an access_token");
  if (typeof body.token_type !== "string") throw unusable("a token_type");
  const tokens: StoredTokens = { access_token: body.access_token, token_type: body.token_type };
  const expiresIn = typeof body.expires_in === "string" ? Number(body.expires_in) : body.expires_in;
  if (typeof expiresIn === "number" && Number.isFinite(expiresIn) && expiresIn > 0) tokens.expires_at = now + expiresIn * 1000;
  if (typeof body.refresh_token === "string" && body.refresh_token !== "") tokens.refresh_token = body.refresh_token;
  if (typeof body.scope === "string") tokens.scope = body.scope;
  return tokens;
}
