/**
 * `oauth()`: the OAuth 2.1 authorization code flow as an `AuthProvider` (basic/authorization), for
 * a person at a browser. The ladder that settles a refusal, discovery and refresh are shared with
 * the machine flows (auth/token-provider.ts); this file is how a login obtains tokens: a client
 * identity (pre-registered, metadata document, stored or new registration), then the code flow
 * with PKCE through the user's `authorize` step. It waits for the first refusal: a server that
 * needs no login never sees a login.
 */
import type { AuthProvider, HttpAccess } from "../transport/http/auth-provider.js";
import { runCodeFlow } from "./authorization-code.js";
import { chooseClient } from "./client-identity.js";
import { checkPkceSupport, type AuthorizationServerMetadata } from "./discovery.js";
import { DpopKey } from "./dpop.js";
import { checkOAuthOptions, DEFAULT_REDIRECT_URI, type CheckedOAuthOptions, type OAuthOptions } from "./oauth-options.js";
import { withOfflineAccess } from "./scope.js";
import type { StoredClient } from "./token-store.js";
import { TokenProvider, type ServerState } from "./token-provider.js";
import { checkRedirectUri } from "./url-rules.js";

export type { OAuthOptions } from "./oauth-options.js";
export { REFRESH_MARGIN_MS } from "./token-provider.js";

export function oauth(options: OAuthOptions): AuthProvider {
  return new OAuthProvider(checkOAuthOptions(options));
}

class OAuthProvider extends TokenProvider {
  protected readonly eager = false;

  constructor(private readonly options: CheckedOAuthOptions) {
    super(options);
  }

  protected override checkMetadata(metadata: AuthorizationServerMetadata, defaultEndpoints: boolean): void {
    checkPkceSupport(metadata, defaultEndpoints);
  }

  protected override async dpopKey(state: ServerState): Promise<DpopKey | undefined> {
    if (this.options.dpop !== true) return undefined;
    state.dpop ??= await DpopKey.create(state.metadata?.dpop_signing_alg_values_supported);
    return state.dpop;
  }

  protected override async obtain(state: ServerState, access: HttpAccess, requested: readonly string[], _why: string, signal: AbortSignal): Promise<void> {
    const metadata = state.metadata!;
    const scopes = withOfflineAccess(requested, metadata.scopes_supported);
    const redirectUri = await this.redirectUri(state.credentials.client?.redirect_uris);
    const choice = await chooseClient(access, metadata, this.options, state.credentials.client, redirectUri, signal);
    if (choice.registered) {
      // Stored before it is used, so that a crash mid-login does not register again.
      await this.keep(state, { ...state.credentials, client: choice.client });
    }
    const tokens = await runCodeFlow(access, {
      tokenRequest: (request) => this.tokenRequest(state, access, request),
      metadata,
      client: choice.client,
      redirectUri,
      resource: state.resource,
      scopes,
      authorize: this.options.authorize,
      // Aborted when no request waits for this login any more: the authorize hook may stop waiting.
      signal,
    });
    state.client = choice.client;
    await this.keep(state, { ...state.credentials, tokens: this.bound(state, tokens), scopes: scopes.filter((scope) => scope !== "offline_access") });
  }

  protected override clientForRefresh(state: ServerState): StoredClient | undefined {
    if (this.options.clientId !== undefined) {
      return { client_id: this.options.clientId, ...(this.options.clientSecret !== undefined && { client_secret: this.options.clientSecret }) };
    }
    if (this.options.clientMetadataUrl !== undefined && state.metadata?.client_id_metadata_document_supported === true) {
      return { client_id: this.options.clientMetadataUrl, token_endpoint_auth_method: "none" };
    }
    return state.credentials.client;
  }

  private async redirectUri(registered: readonly string[] | undefined): Promise<string> {
    const option = this.options.redirectUri ?? DEFAULT_REDIRECT_URI;
    if (typeof option === "string") return option;
    const chosen = await option(registered);
    return checkRedirectUri(String(chosen), "oauth(): the redirectUri function's result").href;
  }
}
