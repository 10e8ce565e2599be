/**
 * What every OAuth flow of mcpwire shares, as an `AuthProvider`: the state kept per server
 * (discovery, credentials, the flow in flight), the headers of each request, and the ladder that
 * settles a refusal. A flow (`oauth()`'s code flow, the machine grants) says only how it obtains
 * tokens (`obtain`) and whether it fetches them before the first request (`eager`).
 *
 * A request goes with the token at hand (renewed first when it is about to expire), or with none.
 * A refusal (401, or 403 `insufficient_scope`) is settled by the first of these that this request
 * has not tried yet; the transport then sends the request again:
 *
 * 1. a DPoP nonce the resource server asks for (`WWW-Authenticate: DPoP error="use_dpop_nonce"`):
 *    the request goes once more with it;
 * 2. discovery, again on every refusal: the protected resource metadata names the authorization
 *    server, and one that changed gets a registration and tokens of its own, the old ones never
 *    shown to it;
 * 3. tokens stored for this server and issuer by an earlier run (the token store);
 * 4. a refresh (RFC 6749 §6), the rotated refresh token stored before it is used; `invalid_grant`
 *    drops the tokens; a DPoP-bound refresh token only with its own key;
 * 5. the flow's own way of obtaining tokens, for the challenge's scope or, on a 403, the union of
 *    what was asked before and what is challenged: a step-up, made only when the union adds a
 *    scope, at most `maxStepUps` times in a row: a request that goes through after its step-up,
 *    or tokens obtained on a 401, start the count again.
 *
 * Refusals that arrive while a flow runs wait for it (one flow per server); a request whose
 * refused token is no longer the current one is simply sent again. When every request that waited
 * on a flow has given up (its signal aborted: the caller's abort, or the transport closed), the
 * flow is told to give up too (a login's `authorize` hook sees its signal abort, and its
 * discovery, registration and token requests are aborted), and the next request starts a new one.
 */
import { McpTransportError } from "../errors.js";
import type { AuthProvider, AuthRefusal, AuthRequest, HttpAccess } from "../transport/http/auth-provider.js";
import { challengeOf, parseWwwAuthenticate, type AuthChallenge } from "../transport/http/www-authenticate.js";
import { abortReason, raceAbort, type AbortSignalLike } from "../util/abort.js";
import {
  canonicalResource,
  discoverAuthorizationServer,
  discoverResourceMetadata,
  legacyAuthorizationServer,
  type AuthorizationServerMetadata,
  type ResourceMetadata,
} from "./discovery.js";
import type { DpopKey } from "./dpop.js";
import { shownOAuthError, shownUrl } from "./auth-http.js";
import { initialScope, scopesOf, stepUpScope } from "./scope.js";
import { requestToken, tokenRefused } from "./token-endpoint.js";
import { memoryTokenStore, type StoredClient, type StoredCredentials, type TokenStore, type TokenStoreKey } from "./token-store.js";

/**
 * The server refused the tokens this request just obtained: PROTOCOL with the status, the
 * challenge kept, the step that obtained them and the resource server's own OAuth error code
 * (RFC 6750 §3.1, `invalid_token` when it gave none).
 */
function refusedAgain(refusal: AuthRefusal, challenge: AuthChallenge | undefined, machine: boolean): McpTransportError {
  const code = challenge?.params.error;
  return new McpTransportError("PROTOCOL", `the server refused the token just obtained (HTTP ${refusal.status}${code ? `, ${shownOAuthError(code)}` : ""})`, {
    httpStatus: refusal.status,
    authStep: machine ? "token" : "authorization",
    oauthError: code ?? "invalid_token",
    ...(refusal.wwwAuthenticate !== undefined && { httpHeaders: { "www-authenticate": refusal.wwwAuthenticate } }),
  });
}

/** A token this close to its expiry is renewed before it is sent, in ms. */
export const REFRESH_MARGIN_MS = 30_000;

/** A flow in flight for one server (discovery, a refresh, a login...), shared by the requests waiting on it. */
export interface Flight {
  readonly done: Promise<boolean>;
  /** Aborted when no request waits on the flow any more. */
  readonly abandoned: AbortController;
  /** Requests waiting on it that have not given up. */
  waiting: number;
}

/** What one provider knows of one server. */
export interface ServerState {
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
  /** The client the tokens were obtained with, when it authenticates at the token endpoint. */
  client: StoredClient | undefined;
  flight: Flight | undefined;
  /**
   * An eager flow found no resource metadata at the well-known URLs: its requests go without a
   * token until a refusal's challenge drives discovery, rather than probing again for each.
   */
  awaitingChallenge: boolean;
  /** Step-ups in a row: since the last one that let its request through, or tokens obtained on a 401. */
  stepUps: number;
  /** The DPoP key of this server's tokens, made at the first token request. */
  dpop: DpopKey | undefined;
  /** The last nonce each side asked DPoP proofs to carry. */
  authorizationServerNonce: string | undefined;
  resourceServerNonce: string | undefined;
}

export interface TokenProviderSettings {
  store?: TokenStore;
  /** The scope asked for when neither the challenge nor the resource metadata names one. */
  scope?: string;
  maxStepUps: number;
  /** Bind tokens to a key of this provider's (RFC 9449). */
  dpop?: boolean;
}

export abstract class TokenProvider implements AuthProvider {
  private readonly servers = new Map<string, ServerState>();
  protected readonly store: TokenStore;
  /**
   * Fetch a token before the first request (a machine has nothing to wait for), rather than on the
   * first refusal; only where well-known resource metadata says where (see `first`).
   */
  protected abstract readonly eager: boolean;

  constructor(protected readonly settings: TokenProviderSettings) {
    this.store = settings.store ?? memoryTokenStore();
  }

  /**
   * Obtains tokens for `scopes` into `state.credentials` (and the store), discovery done.
   * `why` says whether this is a first request's, a refusal's or a step-up's; `signal` aborts
   * when no request waits for them any more.
   */
  protected abstract obtain(
    state: ServerState,
    access: HttpAccess,
    scopes: readonly string[],
    why: "first" | "refused" | "step-up",
    signal: AbortSignal,
  ): Promise<void>;

  /** The client a refresh authenticates as, when the tokens came from an earlier run. */
  protected clientForRefresh(state: ServerState): StoredClient | undefined {
    return state.credentials.client;
  }

  /** Makes the DPoP key (on the first token request), or nothing without DPoP. */
  protected abstract dpopKey(state: ServerState): Promise<DpopKey | undefined>;

  headers(request: AuthRequest): Record<string, string> | Promise<Record<string, string>> {
    // The token goes to the configured server's origin and nowhere else.
    if (request.url.origin !== request.http.server.origin) return {};
    const state = this.stateFor(request.http.server);
    // Nobody waits for best-effort traffic: the token at hand or none, never a flow for it.
    if (request.bestEffort === true) return this.requestHeaders(state, request);
    const tokens = state.credentials.tokens;
    if (tokens === undefined) {
      if (!this.eager || state.awaitingChallenge) return {};
      return this.waitFor(state, this.flightOf(state, (signal) => this.first(state, request.http, signal)), request.signal).then(() => this.requestHeaders(state, request));
    }
    if (tokens.expires_at !== undefined && tokens.expires_at - Date.now() < REFRESH_MARGIN_MS && state.metadata !== undefined && this.renewable(state)) {
      return this.waitFor(state, this.flightOf(state, (signal) => this.renew(state, request.http, signal)), request.signal).then(() => this.requestHeaders(state, request));
    }
    return this.requestHeaders(state, request);
  }

  async challenged(refusal: AuthRefusal): Promise<boolean> {
    const state = this.stateFor(refusal.http.server);
    // One flow for all: when it failed, so does every request that waited on it (a refused
    // grant is not asked again by each of them).
    if (state.flight !== undefined) await this.waitFor(state, state.flight, refusal.signal);
    // A flow that ended since this request went out gave a token it has not tried.
    const current = this.currentAuthorization(state);
    if (current !== undefined && current !== refusal.sent.authorization) return true;
    return this.waitFor(state, this.flightOf(state, (signal) => this.settle(state, refusal, signal)), refusal.signal);
  }

  accepted(request: AuthRequest): void {
    if (request.tried.has("step-up")) this.stateFor(request.http.server).stepUps = 0;
  }

  // --- Settling a refusal

  private async settle(state: ServerState, refusal: AuthRefusal, signal: AbortSignal): Promise<boolean> {
    const challenges = parseWwwAuthenticate(refusal.wwwAuthenticate);
    const dpopChallenge = challengeOf(challenges, "dpop");
    const challenge = challengeOf(challenges, "bearer") ?? dpopChallenge ?? challenges[0];
    const access = refusal.http;
    // RFC 9449 §9: the resource server wants a nonce in the proof; one more try carries it.
    if (dpopChallenge?.params.error === "use_dpop_nonce" && state.dpop !== undefined) {
      const nonce = refusal.header("dpop-nonce");
      if (nonce === undefined || refusal.tried.has("dpop-nonce")) return false;
      refusal.tried.add("dpop-nonce");
      state.resourceServerNonce = nonce;
      return true;
    }
    await this.discover(state, access, challenge, signal);
    if (refusal.status === 403) return this.stepUp(state, access, challenge, refusal.tried, signal);

    const refused = refusal.sent.authorization;
    const current = this.currentAuthorization(state);
    // Tokens of an earlier run (or of another connection) not yet tried by this request.
    if (current !== undefined && current !== refused && !refusal.tried.has("stored")) {
      refusal.tried.add("stored");
      return true;
    }
    if (this.refreshable(state) && !refusal.tried.has("refresh")) {
      refusal.tried.add("refresh");
      if (await this.refresh(state, access, signal)) return true;
    }
    if (refusal.tried.has("obtain")) throw refusedAgain(refusal, challenge, this.eager);
    refusal.tried.add("obtain");
    state.stepUps = 0;
    await this.obtain(state, access, this.scopesFor(state, challenge), "refused", signal);
    return true;
  }

  private async stepUp(state: ServerState, access: HttpAccess, challenge: AuthChallenge | undefined, tried: Set<string>, signal: AbortSignal): Promise<boolean> {
    if (tried.has("step-up") || state.stepUps >= this.settings.maxStepUps) return false;
    const previous = (state.credentials.scopes ?? scopesOf(state.credentials.tokens?.scope)).filter((scope) => scope !== "offline_access");
    const scopes = stepUpScope(previous, challenge?.params.scope);
    // Asking again for what was asked before would be refused again: the refusal stands.
    if (state.credentials.tokens !== undefined && scopes.length === previous.length) return false;
    tried.add("step-up");
    state.stepUps++;
    await this.obtain(state, access, scopes, "step-up", signal);
    return true;
  }

  /**
   * The first request of an eager flow: discovery without a challenge, then tokens. Only resource
   * metadata at a well-known URL may send a credential before the server has spoken: a server
   * that names its metadata only in a 401's `WWW-Authenticate` (basic/authorization) would
   * otherwise be taken for a 2025-03-26 server and be sent the secret at its own `/token`. Without
   * it the request goes without a token, and the refusal's challenge leads discovery.
   */
  private async first(state: ServerState, access: HttpAccess, signal: AbortSignal): Promise<boolean> {
    if (state.metadata === undefined) {
      const resourceMetadata = await discoverResourceMetadata(access, state.server, undefined, signal);
      if (resourceMetadata === undefined) {
        state.awaitingChallenge = true;
        return false;
      }
      await this.useAuthorizationServer(state, access, resourceMetadata, signal);
    }
    if (state.credentials.tokens !== undefined) return true;
    await this.obtain(state, access, this.scopesFor(state, undefined), "first", signal);
    return true;
  }

  private scopesFor(state: ServerState, challenge: AuthChallenge | undefined): string[] {
    return initialScope({
      challenged: challenge?.params.scope,
      resourceScopes: state.resourceMetadata?.scopes_supported,
      configured: this.settings.scope,
    });
  }

  // --- Discovery

  private async discover(state: ServerState, access: HttpAccess, challenge: AuthChallenge | undefined, signal: AbortSignal): Promise<void> {
    const resourceMetadata = await discoverResourceMetadata(access, state.server, challenge?.params.resource_metadata, signal);
    await this.useAuthorizationServer(state, access, resourceMetadata, signal);
  }

  /** The authorization server the resource metadata names, or without it the 2025-03-26 fallback. */
  private async useAuthorizationServer(
    state: ServerState,
    access: HttpAccess,
    resourceMetadata: ResourceMetadata | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    let issuer: string;
    let metadata: AuthorizationServerMetadata | undefined;
    let defaultEndpoints = false;
    if (resourceMetadata !== undefined) {
      const servers = resourceMetadata.authorization_servers ?? [];
      if (servers.length === 0) {
        throw new McpTransportError("PROTOCOL", `the protected resource metadata of ${shownUrl(state.server)} names no authorization server`, { authStep: "discovery" });
      }
      issuer = servers[0]!;
      metadata = issuer === state.issuer ? state.metadata : undefined;
      metadata ??= await discoverAuthorizationServer(access, issuer, signal);
      if (metadata === undefined) {
        throw new McpTransportError("PROTOCOL", `the authorization server ${issuer} publishes no metadata at any of its well-known URLs`, {
          authStep: "discovery",
        });
      }
      state.resource = resourceMetadata.resource;
    } else {
      // A 2025-03-26 server: its origin is the authorization server.
      const legacy = await legacyAuthorizationServer(access, state.server, signal);
      metadata = legacy.metadata;
      defaultEndpoints = legacy.defaultEndpoints;
      issuer = metadata.issuer;
      state.resource = state.key;
    }
    this.checkMetadata(metadata, defaultEndpoints);
    state.resourceMetadata = resourceMetadata;
    state.defaultEndpoints = defaultEndpoints;
    if (issuer !== state.issuer) {
      // A new authorization server: what was obtained from another is never shown to this one.
      state.issuer = issuer;
      state.client = undefined;
      state.authorizationServerNonce = undefined;
      state.credentials = (await this.store.get(this.keyOf(state))) ?? {};
      // Tokens bound to a DPoP key of another run cannot be used: that key is gone.
      const jkt = state.credentials.tokens?.dpop_jkt;
      if (jkt !== undefined && jkt !== state.dpop?.thumbprint) {
        const { tokens: _unusable, ...rest } = state.credentials;
        state.credentials = rest;
      }
    }
    state.metadata = metadata;
    state.awaitingChallenge = false;
  }

  /** What the flow needs of the authorization server; the code flow needs PKCE with S256. */
  protected checkMetadata(metadata: AuthorizationServerMetadata, defaultEndpoints: boolean): void {
    void metadata;
    void defaultEndpoints;
  }

  // --- Tokens

  /** Stores what was obtained, then makes it current. */
  protected async keep(state: ServerState, credentials: StoredCredentials): Promise<void> {
    state.credentials = credentials;
    await this.store.set(this.keyOf(state), credentials);
  }

  /** The token request of a flow, with DPoP when it is on: a proof, and one more try with a nonce asked for. */
  protected async tokenRequest(state: ServerState, access: HttpAccess, request: Omit<Parameters<typeof requestToken>[1], "dpop">) {
    const key = await this.dpopKey(state);
    return requestToken(access, {
      ...request,
      dpop:
        key === undefined
          ? undefined
          : {
              key,
              nonce: state.authorizationServerNonce,
              onNonce: (nonce) => (state.authorizationServerNonce = nonce),
            },
    });
  }

  /** Whether the tokens may be refreshed: a refresh token, bound (if at all) to the key at hand. */
  private refreshable(state: ServerState): boolean {
    const tokens = state.credentials.tokens;
    if (tokens?.refresh_token === undefined) return false;
    return tokens.dpop_jkt === undefined || tokens.dpop_jkt === state.dpop?.thumbprint;
  }

  /** Whether a token about to expire can be renewed without a person: refreshed, or obtained again by a machine. */
  private renewable(state: ServerState): boolean {
    return this.refreshable(state) || this.eager;
  }

  private async renew(state: ServerState, access: HttpAccess, signal: AbortSignal): Promise<boolean> {
    if (this.refreshable(state) && (await this.refresh(state, access, signal))) return true;
    if (!this.eager) return false;
    await this.obtain(state, access, state.credentials.scopes ?? this.scopesFor(state, undefined), "first", signal);
    return true;
  }

  /** One refresh; false when the grant is gone (`invalid_grant`), after dropping the tokens. */
  private async refresh(state: ServerState, access: HttpAccess, signal: AbortSignal): Promise<boolean> {
    const tokens = state.credentials.tokens!;
    const metadata = state.metadata!;
    const answer = await this.tokenRequest(state, access, {
      metadata,
      client: state.client ?? this.clientForRefresh(state),
      grant: { grant_type: "refresh_token", refresh_token: tokens.refresh_token, resource: state.resource },
      step: "refresh",
      signal,
    });
    if (!answer.ok) {
      if (answer.error !== "invalid_grant") throw tokenRefused(answer, "refresh", metadata.token_endpoint);
      const { tokens: _dropped, ...rest } = state.credentials;
      await this.keep(state, rest);
      return false;
    }
    const renewed = this.bound(state, answer.tokens);
    // A server that does not rotate keeps the old refresh token valid (RFC 6749 §6).
    renewed.refresh_token ??= tokens.refresh_token;
    renewed.scope ??= tokens.scope;
    await this.keep(state, { ...state.credentials, tokens: renewed });
    return true;
  }

  /** Tokens of a DPoP answer remember the key they are bound to. */
  protected bound(state: ServerState, tokens: StoredCredentials["tokens"] & object): NonNullable<StoredCredentials["tokens"]> {
    if (tokens.token_type.toLowerCase() === "dpop" && state.dpop !== undefined) tokens.dpop_jkt = state.dpop.thumbprint;
    return tokens;
  }

  // --- Small parts

  /** The flow in flight for this server, or a new one started by `start`: one at a time per server. */
  private flightOf(state: ServerState, start: (signal: AbortSignal) => Promise<boolean>): Flight {
    if (state.flight === undefined) {
      const abandoned = new AbortController();
      const flight: Flight = { done: start(abandoned.signal), abandoned, waiting: 0 };
      state.flight = flight;
      void flight.done
        .finally(() => {
          if (state.flight === flight) state.flight = undefined;
        })
        .catch(() => {});
    }
    return state.flight;
  }

  /**
   * Waits for a flow on behalf of one request, until its `signal` gives up. The last request to
   * give up aborts the flow, so that a login nobody waits for does not wait on the user forever;
   * while another request waits, the flow goes on for it.
   */
  private waitFor(state: ServerState, flight: Flight, signal: AbortSignalLike): Promise<boolean> {
    const leave = () => {
      if (--flight.waiting > 0) return;
      // The next request starts a flow of its own rather than joining one being abandoned.
      if (state.flight === flight) state.flight = undefined;
      flight.abandoned.abort(abortReason(signal));
    };
    flight.waiting++;
    if (signal.aborted) {
      leave();
      return Promise.reject(abortReason(signal));
    }
    signal.addEventListener("abort", leave, { once: true });
    return raceAbort(flight.done, signal).finally(() => signal.removeEventListener("abort", leave));
  }

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
        awaitingChallenge: false,
        stepUps: 0,
        dpop: undefined,
        authorizationServerNonce: undefined,
        resourceServerNonce: undefined,
      };
      this.servers.set(key, state);
    }
    return state;
  }

  protected keyOf(state: ServerState): TokenStoreKey {
    return { resource: state.key, issuer: state.issuer! };
  }

  /** The Authorization header of the current tokens: `DPoP` for a bound token (RFC 9449 §7.1), else `Bearer`. */
  private currentAuthorization(state: ServerState): string | undefined {
    const tokens = state.credentials.tokens;
    if (tokens === undefined) return undefined;
    return `${tokens.dpop_jkt !== undefined ? "DPoP" : "Bearer"} ${tokens.access_token}`;
  }

  private requestHeaders(state: ServerState, request: AuthRequest): Record<string, string> | Promise<Record<string, string>> {
    const authorization = this.currentAuthorization(state);
    if (authorization === undefined) return {};
    const tokens = state.credentials.tokens!;
    if (tokens.dpop_jkt === undefined || state.dpop === undefined) return { authorization };
    return state.dpop
      .proof({ htm: request.method, htu: request.url, accessToken: tokens.access_token, nonce: state.resourceServerNonce })
      .then((proof) => ({ authorization, dpop: proof }));
  }
}
