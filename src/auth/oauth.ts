/**
 * `oauth()`: the OAuth 2.1 authorization code flow as an `AuthProvider` (basic/authorization).
 *
 * A request goes with the token at hand (refreshed first when it is about to expire), or with
 * none. A refusal (401, or 403 `insufficient_scope`) is settled by the first of these that this
 * request has not tried yet, then the transport sends the request again:
 *
 * 1. discovery, again on every refusal: the protected resource metadata names the authorization
 *    server, and one that changed gets a registration and tokens of its own, the old ones never
 *    shown to it;
 * 2. tokens stored for this server and issuer by an earlier run (the token store);
 * 3. a refresh (RFC 6749 §6), the rotated refresh token stored before it is used; `invalid_grant`
 *    drops the tokens;
 * 4. an authorization (client identity, code flow with PKCE), for the challenge's scope or, on a
 *    403, the union of what was asked before and what is challenged: a step-up, made only when
 *    the union adds a scope, at most `maxStepUps` times between two authorizations on a 401.
 *
 * Refusals that arrive while a flow runs wait for it (one flow per server); a request whose
 * refused token is no longer the current one is simply sent again.
 */
import { McpTransportError } from "../errors.js";
import type { AuthProvider, AuthRefusal, AuthRequest, HttpAccess } from "../transport/http/auth-provider.js";
import { challengeOf, parseWwwAuthenticate, type AuthChallenge } from "../transport/http/www-authenticate.js";
import { raceAbort } from "../util/abort.js";
import { runCodeFlow } from "./authorization-code.js";
import { chooseClient } from "./client-identity.js";
import {
  canonicalResource,
  checkPkceSupport,
  discoverAuthorizationServer,
  discoverResourceMetadata,
  legacyAuthorizationServer,
  type AuthorizationServerMetadata,
  type ResourceMetadata,
} from "./discovery.js";
import { checkOAuthOptions, DEFAULT_REDIRECT_URI, type CheckedOAuthOptions, type OAuthOptions } from "./oauth-options.js";
import { initialScope, scopesOf, stepUpScope, withOfflineAccess } from "./scope.js";
import { requestToken, tokenRefused } from "./token-endpoint.js";
import { memoryTokenStore, type StoredClient, type StoredCredentials, type TokenStore, type TokenStoreKey } from "./token-store.js";
import { checkRedirectUri } from "./url-rules.js";

export type { OAuthOptions } from "./oauth-options.js";

/** A token this close to its expiry is refreshed before it is sent, in ms. */
export const REFRESH_MARGIN_MS = 30_000;

/** What one provider knows of one server. */
interface ServerState {
  /** The server's canonical URI: the token store's key. */
  readonly key: string;
  readonly server: URL;
  /** The `resource` sent to the authorization server: the metadata's, verbatim, else `key`. */
  resource: string;
  resourceMetadata: ResourceMetadata | undefined;
  metadata: AuthorizationServerMetadata | undefined;
  defaultEndpoints: boolean;
  issuer: string | undefined;
  credentials: StoredCredentials;
  /** The client the tokens were obtained with. */
  client: StoredClient | undefined;
  flight: Promise<boolean> | undefined;
  /** Step-ups since the last authorization on a 401. */
  stepUps: number;
}

export function oauth(options: OAuthOptions): AuthProvider {
  return new OAuthProvider(checkOAuthOptions(options));
}

class OAuthProvider implements AuthProvider {
  private readonly servers = new Map<string, ServerState>();
  private readonly store: TokenStore;

  constructor(private readonly options: CheckedOAuthOptions) {
    this.store = options.store ?? memoryTokenStore();
  }

  headers(request: AuthRequest): Record<string, string> | Promise<Record<string, string>> {
    // The token goes to the configured server's origin and nowhere else.
    if (request.url.origin !== request.http.server.origin) return {};
    const state = this.stateFor(request.http.server);
    const tokens = state.credentials.tokens;
    if (tokens === undefined) return {};
    if (tokens.expires_at !== undefined && tokens.expires_at - Date.now() < REFRESH_MARGIN_MS && tokens.refresh_token !== undefined && state.metadata !== undefined) {
      return raceAbort(this.refreshSoon(state, request.http), request.signal).then(() => this.authorizationOf(state));
    }
    return this.authorizationOf(state);
  }

  async challenged(refusal: AuthRefusal): Promise<boolean> {
    const state = this.stateFor(refusal.http.server);
    if (state.flight !== undefined) {
      await raceAbort(state.flight.catch(() => false), refusal.signal);
    }
    // A flow that ended since this request went out gave a token it has not tried.
    if (this.currentAuthorization(state) !== refusal.sent.authorization && this.currentAuthorization(state) !== undefined) return true;
    return raceAbort(this.flightOf(state, () => this.settle(state, refusal)), refusal.signal);
  }

  // --- Settling a refusal

  private async settle(state: ServerState, refusal: AuthRefusal): Promise<boolean> {
    const challenges = parseWwwAuthenticate(refusal.wwwAuthenticate);
    const challenge = challengeOf(challenges, "bearer") ?? challenges[0];
    const access = refusal.http;
    await this.discover(state, access, challenge);
    if (refusal.status === 403) return this.stepUp(state, access, challenge, refusal.tried);

    const refused = refusal.sent.authorization;
    const current = this.currentAuthorization(state);
    // Tokens of an earlier run (or of another connection) not yet tried by this request.
    if (current !== undefined && current !== refused && !refusal.tried.has("stored")) {
      refusal.tried.add("stored");
      return true;
    }
    if (state.credentials.tokens?.refresh_token !== undefined && !refusal.tried.has("refresh")) {
      refusal.tried.add("refresh");
      if (await this.refresh(state, access)) return true;
    }
    if (refusal.tried.has("authorization")) return false;
    refusal.tried.add("authorization");
    const scopes = initialScope({
      challenged: challenge?.params.scope,
      resourceScopes: state.resourceMetadata?.scopes_supported,
      configured: this.options.scope,
    });
    state.stepUps = 0;
    await this.authorize(state, access, scopes);
    return true;
  }

  private async stepUp(state: ServerState, access: HttpAccess, challenge: AuthChallenge | undefined, tried: Set<string>): Promise<boolean> {
    if (tried.has("step-up") || state.stepUps >= this.options.maxStepUps) return false;
    const previous = (state.credentials.scopes ?? scopesOf(state.credentials.tokens?.scope)).filter((scope) => scope !== "offline_access");
    const scopes = stepUpScope(previous, challenge?.params.scope);
    // Asking again for what was asked before would be refused again: the refusal stands.
    if (state.credentials.tokens !== undefined && scopes.length === previous.length) return false;
    tried.add("step-up");
    state.stepUps++;
    await this.authorize(state, access, scopes);
    return true;
  }

  // --- Discovery

  private async discover(state: ServerState, access: HttpAccess, challenge: AuthChallenge | undefined): Promise<void> {
    const resourceMetadata = await discoverResourceMetadata(access, state.server, challenge?.params.resource_metadata);
    let issuer: string;
    let metadata: AuthorizationServerMetadata | undefined;
    let defaultEndpoints = false;
    if (resourceMetadata !== undefined) {
      const servers = resourceMetadata.authorization_servers ?? [];
      if (servers.length === 0) {
        throw new McpTransportError("PROTOCOL", `the protected resource metadata of ${state.key} names no authorization server`, { authStep: "discovery" });
      }
      issuer = servers[0]!;
      metadata = issuer === state.issuer ? state.metadata : undefined;
      metadata ??= await discoverAuthorizationServer(access, issuer);
      if (metadata === undefined) {
        throw new McpTransportError("PROTOCOL", `the authorization server ${issuer} publishes no metadata at any of its well-known URLs`, {
          authStep: "discovery",
        });
      }
      state.resource = resourceMetadata.resource;
    } else {
      // A 2025-03-26 server: its origin is the authorization server.
      const legacy = await legacyAuthorizationServer(access, state.server);
      metadata = legacy.metadata;
      defaultEndpoints = legacy.defaultEndpoints;
      issuer = metadata.issuer;
      state.resource = state.key;
    }
    checkPkceSupport(metadata, defaultEndpoints);
    state.resourceMetadata = resourceMetadata;
    state.defaultEndpoints = defaultEndpoints;
    if (issuer !== state.issuer) {
      // A new authorization server: what was obtained from another is never shown to this one.
      state.issuer = issuer;
      state.client = undefined;
      state.credentials = (await this.store.get(this.keyOf(state))) ?? {};
    }
    state.metadata = metadata;
  }

  // --- Tokens

  private async authorize(state: ServerState, access: HttpAccess, requested: readonly string[]): Promise<void> {
    const metadata = state.metadata!;
    const scopes = withOfflineAccess(requested, metadata.scopes_supported);
    const redirectUri = await this.redirectUri(state.credentials.client?.redirect_uris);
    const choice = await chooseClient(access, metadata, this.options, state.credentials.client, redirectUri);
    if (choice.registered) {
      // Stored before it is used, so that a crash mid-login does not register again.
      state.credentials = { ...state.credentials, client: choice.client };
      await this.store.set(this.keyOf(state), state.credentials);
    }
    const controller = new AbortController();
    const tokens = await runCodeFlow(access, {
      metadata,
      client: choice.client,
      redirectUri,
      resource: state.resource,
      scopes,
      authorize: this.options.authorize,
      signal: controller.signal,
    });
    state.client = choice.client;
    state.credentials = { ...state.credentials, tokens, scopes: scopes.filter((scope) => scope !== "offline_access") };
    await this.store.set(this.keyOf(state), state.credentials);
  }

  /** One refresh; false when the grant is gone (`invalid_grant`), after dropping the tokens. */
  private async refresh(state: ServerState, access: HttpAccess): Promise<boolean> {
    const tokens = state.credentials.tokens!;
    const metadata = state.metadata!;
    const client = state.client ?? this.clientForRefresh(state);
    const answer = await requestToken(access, {
      metadata,
      client,
      grant: { grant_type: "refresh_token", refresh_token: tokens.refresh_token, resource: state.resource },
      step: "refresh",
    });
    if (!answer.ok) {
      if (answer.error !== "invalid_grant") throw tokenRefused(answer, "refresh", metadata.token_endpoint);
      const { tokens: _dropped, ...rest } = state.credentials;
      state.credentials = rest;
      await this.store.set(this.keyOf(state), state.credentials);
      return false;
    }
    const renewed = answer.tokens;
    // A server that does not rotate keeps the old refresh token valid (RFC 6749 §6).
    renewed.refresh_token ??= tokens.refresh_token;
    renewed.scope ??= tokens.scope;
    state.credentials = { ...state.credentials, tokens: renewed };
    await this.store.set(this.keyOf(state), state.credentials);
    return true;
  }

  /** A refresh before expiry, shared by the requests that see the token about to expire. */
  private refreshSoon(state: ServerState, access: HttpAccess): Promise<boolean> {
    return this.flightOf(state, () => this.refresh(state, access));
  }

  /** The flow in flight for this server, or a new one started by `start`: one at a time per server. */
  private flightOf(state: ServerState, start: () => Promise<boolean>): Promise<boolean> {
    if (state.flight === undefined) {
      const flight = start();
      state.flight = flight;
      void flight
        .finally(() => {
          if (state.flight === flight) state.flight = undefined;
        })
        .catch(() => {});
    }
    return state.flight;
  }

  private clientForRefresh(state: ServerState): StoredClient | undefined {
    if (this.options.clientId !== undefined) {
      return { client_id: this.options.clientId, ...(this.options.clientSecret !== undefined && { client_secret: this.options.clientSecret }) };
    }
    if (this.options.clientMetadataUrl !== undefined && state.metadata?.client_id_metadata_document_supported === true) {
      return { client_id: this.options.clientMetadataUrl, token_endpoint_auth_method: "none" };
    }
    return state.credentials.client;
  }

  // --- Small parts

  private stateFor(server: URL): ServerState {
    const key = canonicalResource(server);
    let state = this.servers.get(key);
    if (state === undefined) {
      state = {
        key,
        server,
        resource: key,
        resourceMetadata: undefined,
        metadata: undefined,
        defaultEndpoints: false,
        issuer: undefined,
        credentials: {},
        client: undefined,
        flight: undefined,
        stepUps: 0,
      };
      this.servers.set(key, state);
    }
    return state;
  }

  private keyOf(state: ServerState): TokenStoreKey {
    return { resource: state.key, issuer: state.issuer! };
  }

  private currentAuthorization(state: ServerState): string | undefined {
    const tokens = state.credentials.tokens;
    return tokens === undefined ? undefined : `Bearer ${tokens.access_token}`;
  }

  private authorizationOf(state: ServerState): Record<string, string> {
    const authorization = this.currentAuthorization(state);
    return authorization === undefined ? {} : { authorization };
  }

  private async redirectUri(registered: readonly string[] | undefined): Promise<string> {
    const option = this.options.redirectUri ?? DEFAULT_REDIRECT_URI;
    if (typeof option === "string") return option;
    const chosen = await option(registered);
    return checkRedirectUri(String(chosen), "oauth(): the redirectUri function's result").href;
  }
}
