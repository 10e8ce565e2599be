/**
 * The options of `oauth()`, checked when it is called: a wrong one fails where it was written,
 * never in the middle of a login.
 */
import { didYouMean, firstUnknownKey } from "../util/option-names.js";
import { checkWholeNumber, describeValue } from "../util/whole-number.js";
import type { AuthorizeFunction } from "./authorization-code.js";
import type { TokenStore } from "./token-store.js";
import { checkRedirectUri } from "./url-rules.js";

/** A fixed redirect URI, or a function that picks one (the CLI's listener), given the registered ones. */
export type RedirectUriOption = string | ((registered: readonly string[] | undefined) => string | Promise<string>);

export interface OAuthOptions {
  /** A client registered beforehand at the authorization server. */
  clientId?: string;
  /** Its secret, for a confidential client. */
  clientSecret?: string;
  /** The https URL of this client's metadata document, used as its id where the server supports them. */
  clientMetadataUrl?: string;
  /** The name a dynamic registration gives. @default "mcpwire" */
  clientName?: string;
  /** The scope to ask for when neither the server's challenge nor its metadata names one. */
  scope?: string;
  /** Where the authorization server sends the browser back: a loopback URL. @default "http://127.0.0.1/callback" */
  redirectUri?: RedirectUriOption;
  /** Where registrations and tokens are kept. @default memoryTokenStore() */
  store?: TokenStore;
  /** The user-agent step: open the URL, resolve with the callback URL the browser came back to. */
  authorize: AuthorizeFunction;
  /** How many times in a row a 403 `insufficient_scope` may start a new authorization. @default 2 */
  maxStepUps?: number;
  /** Bind the tokens to a key of this client's with DPoP (RFC 9449). @default false */
  dpop?: boolean;
}

export const OAUTH_OPTION_NAMES = [
  "clientId",
  "clientSecret",
  "clientMetadataUrl",
  "clientName",
  "scope",
  "redirectUri",
  "store",
  "authorize",
  "maxStepUps",
  "dpop",
] as const satisfies readonly (keyof OAuthOptions)[];

export const DEFAULT_REDIRECT_URI = "http://127.0.0.1/callback";
export const DEFAULT_MAX_STEP_UPS = 2;

export interface CheckedOAuthOptions extends OAuthOptions {
  maxStepUps: number;
}

export function checkOAuthOptions(options: OAuthOptions): CheckedOAuthOptions {
  const where = "oauth()";
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(`${where}: options must be an object with at least \`authorize\`, got ${describeValue(options)}`);
  }
  const unknown = firstUnknownKey(options, OAUTH_OPTION_NAMES);
  if (unknown !== undefined) {
    throw new TypeError(`${where}: "${unknown}" is not an option${didYouMean(unknown, OAUTH_OPTION_NAMES)}; the options are ${OAUTH_OPTION_NAMES.join(", ")}`);
  }
  if (typeof options.authorize !== "function") {
    throw new TypeError(`${where}: "authorize" must be a function (authorizationUrl, { redirectUri, signal }) => callback URL`);
  }
  for (const name of ["clientId", "clientSecret", "clientMetadataUrl", "clientName", "scope"] as const) {
    const value = options[name];
    if (value !== undefined && (typeof value !== "string" || value === "")) {
      throw new TypeError(`${where}: "${name}" must be a non-empty string`);
    }
  }
  if (options.clientSecret !== undefined && options.clientId === undefined) {
    throw new TypeError(`${where}: "clientSecret" needs the "clientId" it belongs to`);
  }
  if (options.clientMetadataUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(options.clientMetadataUrl);
    } catch {
      url = undefined;
    }
    if (url === undefined || url.protocol !== "https:" || url.pathname === "/" || url.hash !== "") {
      throw new TypeError(`${where}: "clientMetadataUrl" must be an https URL with a path, e.g. "https://example.com/client.json"`);
    }
  }
  if (typeof options.redirectUri === "string") checkRedirectUri(options.redirectUri, where);
  else if (options.redirectUri !== undefined && typeof options.redirectUri !== "function") {
    throw new TypeError(`${where}: "redirectUri" must be a loopback URL or a function returning one`);
  }
  const store = options.store;
  if (store !== undefined && (typeof store !== "object" || store === null || typeof store.get !== "function" || typeof store.set !== "function" || typeof store.delete !== "function")) {
    throw new TypeError(`${where}: "store" must be a TokenStore (get, set, delete), e.g. fileTokenStore()`);
  }
  if (options.dpop !== undefined && typeof options.dpop !== "boolean") throw new TypeError(`${where}: "dpop" must be true or false, got ${describeValue(options.dpop)}`);
  const maxStepUps = options.maxStepUps === undefined ? DEFAULT_MAX_STEP_UPS : checkWholeNumber(options.maxStepUps, "maxStepUps", where, { min: 0, max: 10, defaultValue: DEFAULT_MAX_STEP_UPS });
  return { ...options, maxStepUps };
}
