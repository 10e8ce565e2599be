/**
 * Where a server's authorization server is, and what it offers (basic/authorization, "Authorization
 * Server Discovery"):
 *
 * 1. Protected resource metadata (RFC 9728): the challenge's `resource_metadata` first, else
 *    `/.well-known/oauth-protected-resource` with the server's path inserted, then at the root.
 *    Its `resource` must be the server's URL or a prefix of it in whole path segments, on the same
 *    origin (a `resource` with a query: identical to the server's URL, RFC 9728 §3.3); otherwise nothing more is asked of anyone (a server cannot send a client's login to
 *    another resource's authorization server).
 * 2. Authorization server metadata (RFC 8414, OpenID Connect Discovery), at the URLs the
 *    specification lists for the issuer, in its order; the document's `issuer` must be the issuer
 *    the URL was built from, as a plain string, and it must support PKCE with S256.
 * 3. A 2025-03-26 server without resource metadata: its origin is the authorization server, and
 *    without metadata there, `/authorize`, `/token` and `/register` at that origin.
 *
 * A 404 (or another 4xx) moves on to the next URL; a 5xx or an unreachable host stops with
 * UNAVAILABLE, since the next URL would not say more.
 */
import { McpTransportError } from "../errors.js";
import type { HttpAccess } from "../transport/http/auth-provider.js";
import type { AbortSignalLike } from "../util/abort.js";
import { authRequest, shownUrl, type AuthHttpResponse } from "./auth-http.js";
import { checkAuthorizationServerUrl } from "./url-rules.js";

export interface ResourceMetadata {
  /** The resource identifier the metadata names. */
  resource: string;
  authorization_servers?: string[];
  scopes_supported?: string[];
  [field: string]: unknown;
}

export interface AuthorizationServerMetadata {
  issuer: string;
  authorization_endpoint?: string;
  token_endpoint: string;
  registration_endpoint?: string;
  scopes_supported?: string[];
  response_types_supported?: string[];
  grant_types_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  token_endpoint_auth_signing_alg_values_supported?: string[];
  code_challenge_methods_supported?: string[];
  client_id_metadata_document_supported?: boolean;
  authorization_response_iss_parameter_supported?: boolean;
  dpop_signing_alg_values_supported?: string[];
  [field: string]: unknown;
}

/** What discovery found for one server. */
export interface Discovered {
  /** The resource metadata, or undefined for a 2025-03-26 server without it. */
  resourceMetadata: ResourceMetadata | undefined;
  /** The `resource` sent in authorization and token requests (RFC 8707). */
  resource: string;
  authorizationServer: AuthorizationServerMetadata;
  /** True when the metadata came from no document at all (2025-03-26 default endpoints). */
  defaultEndpoints: boolean;
}

/**
 * The canonical URI of an MCP server (RFC 8707 §2, basic/authorization "Canonical Server URI"):
 * lower-case scheme and host (the URL parser does that), no fragment, and no path when it is only
 * "/". A path's own trailing slash is kept: it may name another resource. So is a query: it may
 * name the server (a tenant, which RFC 8707 §2 allows for), and as the token store's key it keeps
 * two servers that differ only in it from sharing tokens.
 */
export function canonicalResource(server: URL): string {
  const path = server.pathname === "/" ? "" : server.pathname;
  return `${server.protocol}//${server.host}${path}${server.search}`;
}

/** The resource metadata URLs to try, in order: the challenge's, then path-aware, then root. */
export function resourceMetadataUrls(server: URL, fromChallenge: string | undefined): URL[] {
  const urls: URL[] = [];
  if (fromChallenge !== undefined) {
    try {
      urls.push(new URL(fromChallenge, server));
    } catch {
      // An unusable URL in the challenge: the well-known ones remain.
    }
  }
  // RFC 9728 §3.1: the well-known path goes between the host and the path and query.
  const path = server.pathname.replace(/\/$/, "");
  if (path !== "" || server.search !== "") urls.push(new URL(`/.well-known/oauth-protected-resource${path}${server.search}`, server.origin));
  urls.push(new URL("/.well-known/oauth-protected-resource", server.origin));
  return dedupe(urls);
}

/** The authorization server metadata URLs of an issuer, in the specification's order. */
export function authorizationServerMetadataUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, "");
  if (path === "") {
    return [new URL("/.well-known/oauth-authorization-server", url.origin), new URL("/.well-known/openid-configuration", url.origin)];
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, url.origin),
    new URL(`/.well-known/openid-configuration${path}`, url.origin),
    new URL(`${path}/.well-known/openid-configuration`, url.origin),
  ];
}

/**
 * Whether resource metadata may speak for this server: the same origin, and a path equal to the
 * server's or a prefix of it that ends at a segment boundary (`/api` covers `/api/mcp`, not `/apix`).
 * A resource with a query speaks only for the very URL it names: RFC 9728 §3.3 wants it identical
 * to the URL the well-known URL was built from, query and all (§3.1), and no prefix rule exists
 * for queries.
 */
export function resourceCovers(resource: string, server: URL): boolean {
  let named: URL;
  try {
    named = new URL(resource);
  } catch {
    return false;
  }
  if (named.origin !== server.origin || named.hash !== "") return false;
  if (named.search !== "") return named.pathname === server.pathname && named.search === server.search;
  const prefix = named.pathname.replace(/\/$/, "");
  const path = server.pathname.replace(/\/$/, "");
  return prefix === "" || path === prefix || path.startsWith(`${prefix}/`);
}

/** Fetches and checks the protected resource metadata; undefined when no URL has it. */
export async function discoverResourceMetadata(
  access: HttpAccess,
  server: URL,
  fromChallenge: string | undefined,
  signal?: AbortSignalLike,
): Promise<ResourceMetadata | undefined> {
  for (const url of resourceMetadataUrls(server, fromChallenge)) {
    const response = await metadataRequest(access, url, "the protected resource metadata", signal);
    if (response === undefined) continue;
    const metadata = response.body as ResourceMetadata;
    if (typeof metadata.resource !== "string") {
      throw discoveryFailure(`the protected resource metadata at ${shownUrl(url)} has no "resource"`);
    }
    if (!resourceCovers(metadata.resource, server)) {
      throw discoveryFailure(
        `the protected resource metadata at ${shownUrl(url)} is for another resource, not ${shownUrl(server)}: ` +
          "no authorization server was contacted",
      );
    }
    if (metadata.authorization_servers !== undefined && !isStringList(metadata.authorization_servers)) {
      throw discoveryFailure(`the protected resource metadata at ${shownUrl(url)} has an "authorization_servers" that is not a list of URLs`);
    }
    if (metadata.scopes_supported !== undefined && !isStringList(metadata.scopes_supported)) delete metadata.scopes_supported;
    return metadata;
  }
  return undefined;
}

/** Fetches and checks an issuer's metadata; undefined when none of its URLs has it. */
export async function discoverAuthorizationServer(
  access: HttpAccess,
  issuer: string,
  signal?: AbortSignalLike,
): Promise<AuthorizationServerMetadata | undefined> {
  checkAuthorizationServerUrl(issuer, "the authorization server");
  for (const url of authorizationServerMetadataUrls(issuer)) {
    const response = await metadataRequest(access, url, "the authorization server metadata", signal);
    if (response === undefined) continue;
    return checkAuthorizationServerMetadata(response.body as AuthorizationServerMetadata, issuer, url);
  }
  return undefined;
}

export function checkAuthorizationServerMetadata(
  metadata: AuthorizationServerMetadata,
  issuer: string,
  from: URL,
): AuthorizationServerMetadata {
  // RFC 8414 §3.3: identical, as strings; a document that names another issuer is not used.
  if (metadata.issuer !== issuer) {
    throw discoveryFailure(
      `the authorization server metadata at ${shownUrl(from)} names another issuer than ${issuer}: it is not used`,
    );
  }
  if (typeof metadata.token_endpoint !== "string") {
    throw discoveryFailure(`the authorization server metadata of ${issuer} has no token_endpoint`);
  }
  checkAuthorizationServerUrl(metadata.token_endpoint, "the token endpoint");
  if (metadata.authorization_endpoint !== undefined) checkAuthorizationServerUrl(metadata.authorization_endpoint, "the authorization endpoint");
  if (metadata.registration_endpoint !== undefined) checkAuthorizationServerUrl(metadata.registration_endpoint, "the registration endpoint");
  for (const list of ["scopes_supported", "token_endpoint_auth_methods_supported", "code_challenge_methods_supported", "grant_types_supported"] as const) {
    if (metadata[list] !== undefined && !isStringList(metadata[list])) delete metadata[list];
  }
  return metadata;
}

/** A code flow needs PKCE with S256; a server that does not list it is not used (basic/authorization). */
export function checkPkceSupport(metadata: AuthorizationServerMetadata, defaultEndpoints: boolean): void {
  if (defaultEndpoints) return;
  if (metadata.code_challenge_methods_supported?.includes("S256") !== true) {
    throw discoveryFailure(
      `the authorization server ${metadata.issuer} does not list PKCE with S256 in code_challenge_methods_supported, ` +
        "which MCP requires: no authorization was attempted",
    );
  }
}

/**
 * The 2025-03-26 fallback: with no resource metadata, the authorization server is the server's
 * origin; its RFC 8414 metadata when it has some, else the default endpoints there.
 */
export async function legacyAuthorizationServer(
  access: HttpAccess,
  server: URL,
  signal?: AbortSignalLike,
): Promise<{ metadata: AuthorizationServerMetadata; defaultEndpoints: boolean }> {
  const issuer = server.origin;
  checkAuthorizationServerUrl(issuer, "the authorization server");
  const url = new URL("/.well-known/oauth-authorization-server", issuer);
  const response = await metadataRequest(access, url, "the authorization server metadata", signal);
  if (response !== undefined) {
    const metadata = response.body as AuthorizationServerMetadata;
    // That revision found the authorization server by the origin, not by an issuer, and its
    // servers often named an issuer with a path or a trailing slash: any issuer on this origin
    // is taken, and it is the one a callback's `iss` is compared with.
    const named = typeof metadata.issuer === "string" && sameOrigin(metadata.issuer, server) ? metadata.issuer : issuer;
    return { metadata: checkAuthorizationServerMetadata(metadata, named, url), defaultEndpoints: false };
  }
  return {
    metadata: {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      registration_endpoint: `${issuer}/register`,
      code_challenge_methods_supported: ["S256"],
    },
    defaultEndpoints: true,
  };
}

/** One metadata GET: the document, or undefined for a 4xx (try the next URL). */
async function metadataRequest(
  access: HttpAccess,
  url: URL,
  what: string,
  signal: AbortSignalLike | undefined,
): Promise<AuthHttpResponse | undefined> {
  const response = await authRequest(access, { method: "GET", url, what, step: "discovery", signal, followRedirects: true });
  if (response.status >= 500) {
    throw new McpTransportError("UNAVAILABLE", `${what} at ${shownUrl(url)} answered HTTP ${response.status}; try again later`, {
      authStep: "discovery",
      httpStatus: response.status,
    });
  }
  if (response.status < 200 || response.status >= 300) return undefined;
  if (typeof response.body !== "object" || response.body === null || Array.isArray(response.body)) {
    throw discoveryFailure(`${what} at ${shownUrl(url)} is not a JSON object`, response.status);
  }
  return response;
}

function discoveryFailure(message: string, httpStatus?: number): McpTransportError {
  return new McpTransportError("PROTOCOL", message, { authStep: "discovery", httpStatus });
}

function sameOrigin(value: string, server: URL): boolean {
  try {
    return new URL(value).origin === server.origin;
  } catch {
    return false;
  }
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function dedupe(urls: URL[]): URL[] {
  const seen = new Set<string>();
  return urls.filter((url) => !seen.has(url.href) && (seen.add(url.href), true));
}
