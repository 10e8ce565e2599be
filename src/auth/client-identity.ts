/**
 * Which client id the client presents to an authorization server, in the specification's order
 * (basic/authorization, "Client Registration"):
 *
 * 1. a pre-registered client (`clientId`, and `clientSecret` for a confidential one);
 * 2. a client ID metadata document (`clientMetadataUrl`), when the server says it supports them;
 * 3. a registration made before at this same issuer, if its redirect URI is still the one in use;
 * 4. dynamic client registration (RFC 7591), when the server has a registration endpoint;
 * 5. else nothing works without the user: the error says to pre-register a client.
 *
 * A registration is made for a native application (`application_type: "native"`, loopback
 * redirect URIs) and asks for the `authorization_code` and `refresh_token` grants.
 */
import { McpTransportError } from "../errors.js";
import type { HttpAccess } from "../transport/http/auth-provider.js";
import type { AbortSignalLike } from "../util/abort.js";
import { authRequest, shownOAuthError, shownUrl } from "./auth-http.js";
import type { AuthorizationServerMetadata } from "./discovery.js";
import type { StoredClient } from "./token-store.js";

export interface ClientIdentityOptions {
  clientId?: string;
  clientSecret?: string;
  clientMetadataUrl?: string;
  clientName?: string;
}

export interface ClientChoice {
  client: StoredClient;
  /** True when this client came from a new registration, to be stored. */
  registered: boolean;
  how: "pre-registered" | "metadata-document" | "stored-registration" | "dynamic-registration";
}

export async function chooseClient(
  access: HttpAccess,
  metadata: AuthorizationServerMetadata,
  options: ClientIdentityOptions,
  stored: StoredClient | undefined,
  redirectUri: string,
  signal?: AbortSignalLike,
): Promise<ClientChoice> {
  if (options.clientId !== undefined) {
    const client: StoredClient = { client_id: options.clientId, redirect_uris: [redirectUri] };
    if (options.clientSecret !== undefined) client.client_secret = options.clientSecret;
    return { client, registered: false, how: "pre-registered" };
  }
  if (options.clientMetadataUrl !== undefined && metadata.client_id_metadata_document_supported === true) {
    return { client: { client_id: options.clientMetadataUrl, token_endpoint_auth_method: "none" }, registered: false, how: "metadata-document" };
  }
  if (stored !== undefined && stored.redirect_uris?.includes(redirectUri) === true && !secretExpired(stored)) {
    return { client: stored, registered: false, how: "stored-registration" };
  }
  if (metadata.registration_endpoint !== undefined) {
    return { client: await register(access, metadata, options, redirectUri, signal), registered: true, how: "dynamic-registration" };
  }
  throw new McpTransportError(
    "PROTOCOL",
    `the authorization server ${metadata.issuer} offers no way to register this client` +
      (options.clientMetadataUrl !== undefined ? " (it does not support client ID metadata documents)" : "") +
      ": register a client there and give its id as `clientId` (and `clientSecret`, if it has one)",
    { authStep: "registration" },
  );
}

function secretExpired(client: StoredClient, now = Date.now()): boolean {
  const expires = client.client_secret_expires_at;
  return expires !== undefined && expires !== 0 && expires * 1000 <= now;
}

/** The method a new registration asks for: `none` when the server takes it, else a secret method it lists. */
function registrationAuthMethod(metadata: AuthorizationServerMetadata): string {
  const supported = metadata.token_endpoint_auth_methods_supported;
  if (supported === undefined || supported.includes("none")) return "none";
  return supported.find((method) => method === "client_secret_basic" || method === "client_secret_post") ?? "none";
}

async function register(
  access: HttpAccess,
  metadata: AuthorizationServerMetadata,
  options: ClientIdentityOptions,
  redirectUri: string,
  signal: AbortSignalLike | undefined,
): Promise<StoredClient> {
  const url = new URL(metadata.registration_endpoint!);
  const response = await authRequest(access, {
    method: "POST",
    url,
    json: {
      client_name: options.clientName ?? "mcpwire",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: registrationAuthMethod(metadata),
      application_type: "native",
    },
    what: "the client registration",
    step: "registration",
    signal,
  });
  const body = response.body as Record<string, unknown> | undefined;
  if (response.status >= 500) {
    throw new McpTransportError("UNAVAILABLE", `the registration endpoint ${shownUrl(url)} answered HTTP ${response.status}; try again later`, {
      authStep: "registration",
      httpStatus: response.status,
    });
  }
  if (response.status < 200 || response.status >= 300) {
    const error = typeof body === "object" && body !== null && typeof body.error === "string" ? body.error : undefined;
    throw new McpTransportError(
      "PROTOCOL",
      `the registration endpoint ${shownUrl(url)} refused to register this client` + (error ? `: ${shownOAuthError(error)}` : ` (HTTP ${response.status})`) +
        "; register a client there and give its id as `clientId`",
      { authStep: "registration", oauthError: error, httpStatus: response.status },
    );
  }
  if (typeof body !== "object" || body === null || typeof body.client_id !== "string" || body.client_id === "") {
    throw new McpTransportError("PROTOCOL", `the registration endpoint ${shownUrl(url)} answered without a client_id`, { authStep: "registration" });
  }
  const client: StoredClient = { client_id: body.client_id, redirect_uris: [redirectUri] };
  if (typeof body.client_secret === "string") client.client_secret = body.client_secret;
  if (typeof body.client_secret_expires_at === "number") client.client_secret_expires_at = body.client_secret_expires_at;
  if (typeof body.token_endpoint_auth_method === "string") client.token_endpoint_auth_method = body.token_endpoint_auth_method;
  else client.token_endpoint_auth_method = client.client_secret === undefined ? "none" : registrationAuthMethod(metadata);
  return client;
}
