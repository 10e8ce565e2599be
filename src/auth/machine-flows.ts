/**
 * OAuth for machines (the MCP authorization extensions, modelcontextprotocol/ext-auth): an agent
 * with no browser gets its tokens from a grant it can make alone, before its first request and
 * again before they expire. A refused grant is reported as the server said it (`oauthError`, at
 * the `token` step), with no retry and no switch to another grant.
 *
 * - `clientCredentials()`: the `client_credentials` grant (SEP-1046), the client authenticated
 *   with its secret (the method chosen as for any client) or with a signed assertion
 *   (`private_key_jwt`, RFC 7523 §2.2).
 * - `workloadIdentity()`: the `jwt-bearer` grant (RFC 7523 §2.1, SEP-1933) with a JWT the platform
 *   issues the workload, such as a Kubernetes projected service-account token, read again for
 *   every token request so that a rotated file just works.
 * - `enterpriseManaged()`: the user's ID token exchanged at the enterprise identity provider for
 *   an ID-JAG (RFC 8693, SEP-990), then the `jwt-bearer` grant with it.
 *
 * Each takes `dpop: true` to bind its tokens to a key (RFC 9449).
 */
import { readFile } from "node:fs/promises";
import { McpTransportError } from "../errors.js";
import type { AuthProvider, HttpAccess } from "../transport/http/auth-provider.js";
import { authRequest, shownOAuthError, shownUrl } from "./auth-http.js";
import { privateKeyAssertion, type PrivateKeyInput } from "./client-assertion.js";
import { DpopKey } from "./dpop.js";
import {
  checkClientCredentialsOptions,
  checkEnterpriseManagedOptions,
  checkWorkloadIdentityOptions,
  type ClientCredentialsOptions,
  type EnterpriseManagedOptions,
  type StringSource,
  type WorkloadIdentityOptions,
} from "./machine-options.js";
import { clientAuthentication, tokenRefused, type ClientAssertion, type TokenRequest } from "./token-endpoint.js";
import type { StoredClient } from "./token-store.js";
import { TokenProvider, type ServerState, type TokenProviderSettings } from "./token-provider.js";
import { checkAuthorizationServerUrl } from "./url-rules.js";

export type { ClientCredentialsOptions, EnterpriseManagedOptions, WorkloadIdentityOptions } from "./machine-options.js";

export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
export const ID_JAG_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id-jag";
export const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";

export function clientCredentials(options: ClientCredentialsOptions): AuthProvider {
  const checked = checkClientCredentialsOptions(options);
  return new GrantProvider(checked, async (provider, state, _access, scopes, signal) => {
    const request: TokenRequest = {
      metadata: state.metadata!,
      grant: { grant_type: "client_credentials", scope: joined(scopes), resource: state.resource },
      ...provider.clientOf(state, checked.clientId, checked.clientSecret, checked.privateKey, checked.signingAlgorithm),
      step: "token",
      signal,
    };
    return request;
  });
}

export function workloadIdentity(options: WorkloadIdentityOptions): AuthProvider {
  const checked = checkWorkloadIdentityOptions(options);
  return new GrantProvider(checked, async (_provider, state, _access, scopes, signal) => ({
    metadata: state.metadata!,
    grant: {
      grant_type: JWT_BEARER_GRANT,
      assertion: await readSource(checked.assertion, "the workload identity assertion"),
      scope: joined(scopes),
      resource: state.resource,
      client_id: checked.clientId,
    },
    client: undefined,
    step: "token",
    signal,
  }));
}

export function enterpriseManaged(options: EnterpriseManagedOptions): AuthProvider {
  const checked = checkEnterpriseManagedOptions(options);
  return new GrantProvider(checked, async (provider, state, access, scopes, signal) => {
    const idJag = await exchangeIdToken(access, checked, state, scopes, signal);
    return {
      metadata: state.metadata!,
      grant: { grant_type: JWT_BEARER_GRANT, assertion: idJag, scope: joined(scopes), resource: state.resource },
      ...provider.clientOf(state, checked.clientId, checked.clientSecret, undefined, undefined),
      step: "token",
      signal,
    };
  });
}

/**
 * Builds the token request of one grant, discovery done. `signal` aborts when no request waits
 * for the tokens any more: every HTTP request of the grant carries it, so that an abandoned one
 * stops at once rather than at its read deadline.
 */
type GrantRequest = (provider: GrantProvider, state: ServerState, access: HttpAccess, scopes: readonly string[], signal: AbortSignal) => Promise<TokenRequest>;

class GrantProvider extends TokenProvider {
  protected readonly eager = true;

  constructor(
    settings: TokenProviderSettings,
    private readonly grant: GrantRequest,
  ) {
    super(settings);
  }

  protected override async dpopKey(state: ServerState): Promise<DpopKey | undefined> {
    if (this.settings.dpop !== true) return undefined;
    state.dpop ??= await DpopKey.create(state.metadata?.dpop_signing_alg_values_supported);
    return state.dpop;
  }

  protected override async obtain(state: ServerState, access: HttpAccess, scopes: readonly string[], _why: string, signal: AbortSignal): Promise<void> {
    const request = await this.grant(this, state, access, scopes, signal);
    const answer = await this.tokenRequest(state, access, request);
    if (!answer.ok) throw tokenRefused(answer, "token", request.endpoint ?? state.metadata!.token_endpoint);
    const tokens = this.bound(state, answer.tokens);
    if (tokens.scope === undefined && scopes.length > 0) tokens.scope = scopes.join(" ");
    state.client = request.client;
    await this.keep(state, { ...state.credentials, tokens, scopes: [...scopes] });
  }

  /** How the client authenticates: a signed assertion with a key, else its id and secret. */
  clientOf(
    state: ServerState,
    clientId: string,
    clientSecret: string | undefined,
    privateKey: PrivateKeyInput | undefined,
    signingAlgorithm: string | undefined,
  ): { client: StoredClient | undefined; assertion?: ClientAssertion } {
    if (privateKey !== undefined) {
      const assertion = privateKeyAssertion(clientId, privateKey, {
        signingAlgorithm,
        supported: () => state.metadata?.token_endpoint_auth_signing_alg_values_supported,
      });
      return { client: undefined, assertion };
    }
    return { client: { client_id: clientId, ...(clientSecret !== undefined && { client_secret: clientSecret }) } };
  }
}

/**
 * RFC 8693 at the identity provider: the user's ID token for an ID-JAG whose audience is the
 * authorization server and whose resource is the MCP server (SEP-990).
 */
async function exchangeIdToken(
  access: HttpAccess,
  options: EnterpriseManagedOptions,
  state: ServerState,
  scopes: readonly string[],
  signal: AbortSignal,
): Promise<string> {
  const url = checkAuthorizationServerUrl(options.idpTokenEndpoint, "the identity provider's token endpoint");
  const client: StoredClient = { client_id: options.idpClientId, ...(options.idpClientSecret !== undefined && { client_secret: options.idpClientSecret }) };
  const auth = clientAuthentication(options.idpClientSecret !== undefined ? "client_secret_basic" : "none", client);
  const response = await authRequest(access, {
    method: "POST",
    url,
    headers: auth.headers,
    form: {
      grant_type: TOKEN_EXCHANGE_GRANT,
      requested_token_type: ID_JAG_TOKEN_TYPE,
      audience: state.metadata!.issuer,
      resource: state.resource,
      scope: joined(scopes),
      subject_token: await readSource(options.idToken, "the ID token"),
      subject_token_type: ID_TOKEN_TYPE,
      ...auth.form,
    },
    what: "the token exchange at the identity provider",
    step: "token",
    signal,
  });
  const body = response.body as Record<string, unknown> | undefined;
  if (response.status >= 500) {
    throw new McpTransportError("UNAVAILABLE", `the identity provider's token endpoint ${shownUrl(url)} answered HTTP ${response.status}; try again later`, {
      authStep: "token",
      httpStatus: response.status,
    });
  }
  if (response.status < 200 || response.status >= 300) {
    const error = typeof body?.error === "string" ? body.error : undefined;
    throw new McpTransportError("PROTOCOL", `the identity provider refused the token exchange${error ? `: ${shownOAuthError(error)}` : ` (HTTP ${response.status})`}`, {
      authStep: "token",
      oauthError: error,
      httpStatus: response.status,
    });
  }
  if (typeof body?.access_token !== "string" || body.access_token === "") {
    throw new McpTransportError("PROTOCOL", "the identity provider's token exchange answered without a token", { authStep: "token" });
  }
  if (body.issued_token_type !== undefined && body.issued_token_type !== ID_JAG_TOKEN_TYPE) {
    throw new McpTransportError("PROTOCOL", "the identity provider's token exchange answered with another token type than an ID-JAG", { authStep: "token" });
  }
  return body.access_token;
}

/** A string, a function giving one, or a file read now (a rotated token is read anew each time). */
async function readSource(source: StringSource, what: string): Promise<string> {
  let value: unknown;
  try {
    if (typeof source === "string") value = source;
    else if (typeof source === "function") value = await source();
    else value = (await readFile(source.file, "utf8")).trim();
  } catch (cause) {
    const where = typeof source === "object" ? ` from ${source.file}` : "";
    throw new McpTransportError("UNAVAILABLE", `${what} could not be read${where}`, { authStep: "token", cause: new Error((cause as Error).name) });
  }
  if (typeof value !== "string" || value === "") throw new McpTransportError("PROTOCOL", `${what} is empty`, { authStep: "token" });
  return value;
}

function joined(scopes: readonly string[]): string | undefined {
  return scopes.length === 0 ? undefined : scopes.join(" ");
}
