/**
 * The options of the machine flows (`clientCredentials()`, `workloadIdentity()`,
 * `enterpriseManaged()`), checked when the flow is made: a missing or mistyped one fails there,
 * never at the first token request.
 */
import { didYouMean, firstUnknownKey } from "../util/option-names.js";
import { checkWholeNumber, describeValue } from "../util/whole-number.js";
import type { PrivateKeyInput } from "./client-assertion.js";
import { DEFAULT_MAX_STEP_UPS } from "./oauth-options.js";
import type { TokenStore } from "./token-store.js";
import type { TokenProviderSettings } from "./token-provider.js";

/** A secret given as it is, by a function called when a new one is needed, or as a file read again each time. */
export type StringSource = string | (() => string | Promise<string>) | { file: string };

interface CommonOptions {
  /** The scope to ask for when the resource metadata names none. */
  scope?: string;
  /** Where tokens are kept. @default memoryTokenStore() */
  store?: TokenStore;
  /** Bind the tokens to a key of this client's with DPoP (RFC 9449). @default false */
  dpop?: boolean;
  /** How many times in a row a 403 `insufficient_scope` may ask for more scope. @default 2 */
  maxStepUps?: number;
}

export interface ClientCredentialsOptions extends CommonOptions {
  clientId: string;
  /** The client secret (`client_secret_basic`, else `client_secret_post`, as the server lists). */
  clientSecret?: string;
  /** Or a private key, to sign a client assertion (`private_key_jwt`): PKCS#8 PEM, or a JWK. */
  privateKey?: PrivateKeyInput;
  /** The assertion's algorithm. @default the first the server lists that fits the key */
  signingAlgorithm?: string;
}

export interface WorkloadIdentityOptions extends CommonOptions {
  /** The client id, when the authorization server wants one beside the assertion. */
  clientId?: string;
  /** The workload's JWT: a string, a function, or `{ file }` (a projected token, read at each token request). */
  assertion: StringSource;
}

export interface EnterpriseManagedOptions extends CommonOptions {
  /** The user's ID token from the enterprise identity provider; a function is called, a file read, when a new one is needed. */
  idToken: StringSource;
  /** The identity provider's token endpoint, where the ID token is exchanged for an ID-JAG. */
  idpTokenEndpoint: string;
  idpClientId: string;
  idpClientSecret?: string;
  /** This client at the MCP server's authorization server. */
  clientId: string;
  clientSecret?: string;
}

const COMMON = ["scope", "store", "dpop", "maxStepUps"] as const;
export const CLIENT_CREDENTIALS_OPTION_NAMES = ["clientId", "clientSecret", "privateKey", "signingAlgorithm", ...COMMON] as const;
export const WORKLOAD_IDENTITY_OPTION_NAMES = ["clientId", "assertion", ...COMMON] as const;
export const ENTERPRISE_MANAGED_OPTION_NAMES = ["idToken", "idpTokenEndpoint", "idpClientId", "idpClientSecret", "clientId", "clientSecret", ...COMMON] as const;

type Checked<T> = T & TokenProviderSettings;

export function checkClientCredentialsOptions(options: ClientCredentialsOptions): Checked<ClientCredentialsOptions> {
  const where = "clientCredentials()";
  const checked = checkCommon(options, where, CLIENT_CREDENTIALS_OPTION_NAMES);
  requireString(options, "clientId", where);
  optionalString(options, "clientSecret", where);
  optionalString(options, "signingAlgorithm", where);
  const key = options.privateKey;
  if (key !== undefined && (typeof key !== "string" || !key.includes("PRIVATE KEY")) && (typeof key !== "object" || key === null || typeof key.kty !== "string")) {
    throw new TypeError(`${where}: "privateKey" must be a PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----...") or a private JWK object`);
  }
  if ((options.clientSecret === undefined) === (key === undefined)) {
    throw new TypeError(`${where}: give exactly one of "clientSecret" and "privateKey"`);
  }
  if (options.signingAlgorithm !== undefined && key === undefined) throw new TypeError(`${where}: "signingAlgorithm" goes with "privateKey"`);
  return checked;
}

export function checkWorkloadIdentityOptions(options: WorkloadIdentityOptions): Checked<WorkloadIdentityOptions> {
  const where = "workloadIdentity()";
  const checked = checkCommon(options, where, WORKLOAD_IDENTITY_OPTION_NAMES);
  optionalString(options, "clientId", where);
  checkSource(options.assertion, "assertion", where, true);
  return checked;
}

export function checkEnterpriseManagedOptions(options: EnterpriseManagedOptions): Checked<EnterpriseManagedOptions> {
  const where = "enterpriseManaged()";
  const checked = checkCommon(options, where, ENTERPRISE_MANAGED_OPTION_NAMES);
  checkSource(options.idToken, "idToken", where, true);
  requireString(options, "idpTokenEndpoint", where);
  try {
    new URL(options.idpTokenEndpoint);
  } catch {
    throw new TypeError(`${where}: "idpTokenEndpoint" must be a URL`);
  }
  requireString(options, "idpClientId", where);
  optionalString(options, "idpClientSecret", where);
  requireString(options, "clientId", where);
  optionalString(options, "clientSecret", where);
  return checked;
}

function checkCommon<T extends CommonOptions>(options: T, where: string, names: readonly string[]): Checked<T> {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(`${where}: options must be an object, got ${describeValue(options)}`);
  }
  const unknown = firstUnknownKey(options, names);
  if (unknown !== undefined) throw new TypeError(`${where}: "${unknown}" is not an option${didYouMean(unknown, names)}; the options are ${names.join(", ")}`);
  optionalString(options, "scope", where);
  if (options.dpop !== undefined && typeof options.dpop !== "boolean") throw new TypeError(`${where}: "dpop" must be true or false`);
  const store = options.store;
  if (store !== undefined && (typeof store !== "object" || store === null || typeof store.get !== "function" || typeof store.set !== "function" || typeof store.delete !== "function")) {
    throw new TypeError(`${where}: "store" must be a TokenStore (get, set, delete)`);
  }
  const maxStepUps = options.maxStepUps === undefined ? DEFAULT_MAX_STEP_UPS : checkWholeNumber(options.maxStepUps, "maxStepUps", where, { min: 0, max: 10 });
  return { ...options, maxStepUps };
}

function requireString(options: object, name: string, where: string): void {
  const value = (options as Record<string, unknown>)[name];
  if (typeof value !== "string" || value === "") throw new TypeError(`${where}: "${name}" must be a non-empty string, got ${describeValue(value)}`);
}

function optionalString(options: object, name: string, where: string): void {
  if ((options as Record<string, unknown>)[name] !== undefined) requireString(options, name, where);
}

function checkSource(value: unknown, name: string, where: string, file: boolean): void {
  if (typeof value === "string" && value !== "") return;
  if (typeof value === "function") return;
  if (file && typeof value === "object" && value !== null && typeof (value as { file?: unknown }).file === "string" && (value as { file: string }).file !== "") {
    if (Object.keys(value).length !== 1) throw new TypeError(`${where}: "${name}" as a file is { file: "<path>" } and nothing else`);
    return;
  }
  throw new TypeError(`${where}: "${name}" must be a non-empty string, a function${file ? ", or { file: \"<path>\" }" : ""}, got ${describeValue(value)}`);
}
