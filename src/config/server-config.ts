/**
 * The declaration of one server: which transport, and for stdio an argv, for the others an
 * endpoint URL, plus the four ceilings and the data options of its transport (the child's graces
 * and stderr tail, the WebSocket keepalive and deadlines, the HTTP redirect mode, fallback and GET
 * stream). What is code (a `fetch`, a stderr stream, headers computed per request) is given to
 * `connect()` or `transportFor()` beside the declaration instead.
 *
 * Validated when read, never at the first call: a stdio server without an argv, a remote server
 * given one, an unknown key (a typo must not pass silently), a key of another transport, a bad
 * URL or value are all refused with a message that names the server and where it was declared.
 */
import { resolveKeepAlive, type KeepAliveOptions } from "../transport/websocket/ping-keepalive.js";
import { LIMIT_NAMES, checkLimit, type Limits } from "../transport/limits.js";
import type { NonProtocolLines } from "../transport/stdio/stdio.js";
import { ENV_VAR_NAME_RULE, isEnvVarName } from "../transport/stdio/child-env.js";
import { didYouMean } from "../util/option-names.js";
import { isHeaderName } from "../util/header-syntax.js";
import { checkWholeNumber, describeValue } from "../util/whole-number.js";
import { proxyRoute } from "../transport/net/proxy-rules.js";
import { checkTlsOptions, type PemSource } from "../transport/net/tls-options.js";
import { COMMON_KEYS, TRANSPORT_NAMES, isBuiltInTransport, type TransportName } from "./builtin-names.js";
import { registeredTransport, unknownTransport, type TransportFactory, type TransportFactoryContext } from "./transport-registry.js";

export { TRANSPORT_NAMES, type TransportName };

export type RedirectPolicy = "same-origin" | "none";

export interface McpServerConfig extends Partial<Limits> {
  /** How the server is named in files, environment overrides and messages. */
  name: string;
  /**
   * `stdio` (a child process), `http` (Streamable HTTP), `sse` (legacy HTTP+SSE), `websocket`, or
   * the name of a transport given to `registerTransport` (its keys are then the factory's: type
   * such a declaration as `RegisteredServerConfig<Keys>`).
   */
  transport: TransportName | (string & {});
  /** stdio: the program to run (no shell). */
  command?: string;
  /** stdio: its arguments. */
  args?: string[];
  /** stdio: variables set for the child, on top of the allow-listed ones it inherits. */
  env?: Record<string, string>;
  /** stdio: names of the variables the child inherits from this process. @default a minimal platform list */
  envAllow?: string[];
  /** stdio: the child's working directory. */
  cwd?: string;
  /** stdio: a stdout line that is not JSON-RPC fails the connection, or is skipped and counted. @default "fail" */
  nonProtocolLines?: NonProtocolLines;
  /** stdio: lines of stderr kept for `stderrTail`. @default 50 */
  stderrTailLines?: number;
  /** stdio: bytes of stderr kept for `stderrTail`. @default 8192 */
  stderrTailBytes?: number;
  /** stdio: ms the child has to exit after its stdin is closed, before SIGTERM. @default 2000 */
  stdinCloseGraceMs?: number;
  /** stdio: ms between SIGTERM and SIGKILL. @default 5000 */
  terminateGraceMs?: number;
  /** http, sse, websocket: the endpoint, used verbatim. */
  url?: string;
  /** http, sse, websocket: headers sent with every request (or on the WebSocket upgrade). */
  headers?: Record<string, string>;
  /** http, sse: which redirects are followed. @default "same-origin" */
  redirect?: RedirectPolicy;
  /** http: try the legacy HTTP+SSE transport when the server refuses Streamable HTTP (400, 404, 405). @default true */
  fallback?: boolean;
  /** http: open the GET stream for server-initiated messages. @default true */
  listen?: boolean;
  /** websocket: ping/pong keepalive. @default { intervalMs: 30000, timeoutMs: 10000 } */
  keepAlive?: KeepAliveOptions;
  /** websocket: deadline, in ms, for opening (TCP, TLS and the upgrade). @default 30000 */
  upgradeTimeoutMs?: number;
  /** websocket: ms the server has to answer `close()`'s close frame. @default 5000 */
  closeTimeoutMs?: number;
  /**
   * http, sse, websocket: the proxy for this server (an http: or https: URL), or `false` for
   * none; by default HTTPS_PROXY, HTTP_PROXY and NO_PROXY.
   */
  proxy?: string | false;
  /**
   * http, sse, websocket: CAs trusted besides the default ones, as `{ "file": "<path>" }` (read
   * when a connection is made) or PEM text, or a list of them.
   */
  ca?: PemSource | PemSource[];
  /** http, sse, websocket: the client certificate for mutual TLS, `{ "file": "<path>" }` or PEM text. Needs `key`. */
  cert?: PemSource;
  /** http, sse, websocket: the private key of `cert`, `{ "file": "<path>" }` or PEM text. Secrets belong in files or `${env:NAME}`. */
  key?: PemSource;
  /** http, sse, websocket: the passphrase of an encrypted `key`; best given as `${env:NAME}`. */
  passphrase?: string;
  /**
   * http, sse: how this client logs in with OAuth when the server asks (see `oauth()`): a
   * pre-registered client, a client metadata document, the scope. Secrets belong in
   * `${env:NAME}`. Not together with an Authorization header.
   */
  auth?: AuthSettings;
}

/**
 * How a declared server authorizes, as data (the code parts, such as a browser step, are given
 * in code): `type` names the flow, `"oauth"` (a browser login) when absent. Secrets belong in
 * `${env:NAME}`; a workload token or an ID token may be `{ "file": "<path>" }`, read again at
 * each token request.
 */
export type AuthSettings = OAuthSettings | ClientCredentialsSettings | WorkloadIdentitySettings | EnterpriseManagedSettings;

/** A browser login (`oauth()`). */
export interface OAuthSettings {
  type?: "oauth";
  clientId?: string;
  clientSecret?: string;
  clientMetadataUrl?: string;
  clientName?: string;
  scope?: string;
  dpop?: boolean;
}

/** `clientCredentials()`: a secret, or a private key (PKCS#8 PEM text or a JWK object). */
export interface ClientCredentialsSettings {
  type: "client_credentials";
  clientId: string;
  clientSecret?: string;
  privateKey?: string | Record<string, unknown>;
  signingAlgorithm?: string;
  scope?: string;
  dpop?: boolean;
}

/** `workloadIdentity()`: the workload's JWT, or the file the platform keeps it in. */
export interface WorkloadIdentitySettings {
  type: "workload_identity";
  clientId?: string;
  assertion: string | { file: string };
  scope?: string;
  dpop?: boolean;
}

/** `enterpriseManaged()`: the user's ID token exchanged at the identity provider. */
export interface EnterpriseManagedSettings {
  type: "enterprise_managed";
  idToken: string | { file: string };
  idpTokenEndpoint: string;
  idpClientId: string;
  idpClientSecret?: string;
  clientId: string;
  clientSecret?: string;
  scope?: string;
  dpop?: boolean;
}

export const AUTH_TYPES = ["oauth", "client_credentials", "workload_identity", "enterprise_managed"] as const;

/** The keys of each type's block, and which must be there. */
const AUTH_KEYS: Record<(typeof AUTH_TYPES)[number], { keys: readonly string[]; required: readonly string[] }> = {
  oauth: { keys: ["clientId", "clientSecret", "clientMetadataUrl", "clientName", "scope", "dpop"], required: [] },
  client_credentials: { keys: ["clientId", "clientSecret", "privateKey", "signingAlgorithm", "scope", "dpop"], required: ["clientId"] },
  workload_identity: { keys: ["clientId", "assertion", "scope", "dpop"], required: ["assertion"] },
  enterprise_managed: {
    keys: ["idToken", "idpTokenEndpoint", "idpClientId", "idpClientSecret", "clientId", "clientSecret", "scope", "dpop"],
    required: ["idToken", "idpTokenEndpoint", "idpClientId", "clientId"],
  },
};

/** The keys of a browser login's block. */
export const OAUTH_SETTING_NAMES = AUTH_KEYS.oauth.keys;

/** The keys of every network transport for its proxy and TLS. */
const NETWORK_KEYS = ["proxy", "ca", "cert", "key", "passphrase"] as const;

/** The keys each transport's declaration takes besides the common ones, in the order the README lists them. */
export const SERVER_KEYS_BY_TRANSPORT = {
  stdio: ["command", "args", "env", "envAllow", "cwd", "nonProtocolLines", "stderrTailLines", "stderrTailBytes", "stdinCloseGraceMs", "terminateGraceMs"],
  http: ["url", "headers", "redirect", "fallback", "listen", "auth", ...NETWORK_KEYS],
  sse: ["url", "headers", "redirect", "auth", ...NETWORK_KEYS],
  websocket: ["url", "headers", "keepAlive", "upgradeTimeoutMs", "closeTimeoutMs", ...NETWORK_KEYS],
} as const satisfies Record<TransportName, readonly (keyof McpServerConfig)[]>;

const ALL_KEYS: readonly string[] = [...new Set<string>([...COMMON_KEYS, ...Object.values(SERVER_KEYS_BY_TRANSPORT).flat()])];

/** Whether a declaration of `transport` (built in or registered) takes `key`. */
export function serverTakesKey(transport: string, key: string): boolean {
  if (COMMON_KEYS.includes(key)) return true;
  if (isBuiltInTransport(transport)) return (SERVER_KEYS_BY_TRANSPORT[transport] as readonly string[]).includes(key);
  return registeredTransport(transport)?.keys.includes(key) ?? false;
}

/**
 * A declaration of a transport given to `registerTransport`: `name`, `transport`, the four
 * ceilings, and the keys its factory takes (`Keys`, for your own types).
 */
export type RegisteredServerConfig<Keys extends object = Record<never, never>> = { name: string; transport: string } & Partial<Limits> & Keys;

const URL_SCHEMES: Record<Exclude<TransportName, "stdio">, readonly string[]> = {
  http: ["http:", "https:"],
  sse: ["http:", "https:"],
  websocket: ["ws:", "wss:"],
};

export class ConfigError extends TypeError {
  override readonly name = "ConfigError";
}

/**
 * Checks one server declaration and returns it typed, with only the keys that were given.
 * `where` says where it came from, e.g. `mcp.json: server "handbook"`.
 */
export function parseServerConfig(value: unknown, where: string): McpServerConfig {
  const fail = (what: string): never => {
    throw new ConfigError(`${where}: ${what}`);
  };
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(`expected an object, got ${describeValue(value)}`);
  const input = value as Record<string, unknown>;
  const factory = registeredTransport(input.transport);
  if (factory) return readRegisteredConfig(input, factory, where).config;
  // Before the keys: those of a transport not (yet) registered are not the problem.
  if (!isBuiltInTransport(input.transport)) fail(unknownTransport(input.transport));
  for (const key of Object.keys(input)) {
    if (!ALL_KEYS.includes(key)) fail(`unknown key "${key}"${didYouMean(key, ALL_KEYS)}; allowed keys: ${ALL_KEYS.join(", ")}`);
  }
  const config = commonKeys(input, where, fail);
  const transport = input.transport as TransportName;
  const foreign = Object.keys(input).filter((key) => input[key] !== undefined && !serverTakesKey(transport, key));
  if (foreign.length > 0) fail(foreignKeys(transport, foreign));
  const whole = (key: keyof McpServerConfig & string, min: number): void => {
    if (input[key] !== undefined) (config as Record<string, unknown>)[key] = checkWholeNumber(input[key], key, where, { min });
  };

  if (transport === "stdio") {
    if (typeof input.command !== "string" || input.command.trim() === "") {
      fail(`a stdio server needs "command" (the program to run, no shell), got ${describeValue(input.command)}`);
    }
    config.command = input.command as string;
    if (input.args !== undefined) config.args = stringArray(input.args, "args", fail);
    if (input.env !== undefined) config.env = stringRecord(input.env, "env", fail, isEnvVarName);
    if (input.envAllow !== undefined) {
      config.envAllow = stringArray(input.envAllow, "envAllow", fail);
      const bad = config.envAllow.find((name) => !isEnvVarName(name));
      if (bad !== undefined) fail(`"envAllow" holds ${JSON.stringify(bad)}, which is not a variable name (a name is ${ENV_VAR_NAME_RULE})`);
    }
    if (input.cwd !== undefined) {
      if (typeof input.cwd !== "string" || input.cwd === "") fail(`"cwd" must be a non-empty string, got ${describeValue(input.cwd)}`);
      config.cwd = input.cwd as string;
    }
    if (input.nonProtocolLines !== undefined) {
      if (input.nonProtocolLines !== "fail" && input.nonProtocolLines !== "skip") {
        fail(`"nonProtocolLines" must be "fail" or "skip", got ${describeValue(input.nonProtocolLines)}`);
      }
      config.nonProtocolLines = input.nonProtocolLines as NonProtocolLines;
    }
    whole("stderrTailLines", 1);
    whole("stderrTailBytes", 1);
    whole("stdinCloseGraceMs", 0);
    whole("terminateGraceMs", 0);
    return config as McpServerConfig;
  }

  if (typeof input.url !== "string") fail(`a ${transport} server needs "url" (its endpoint), got ${describeValue(input.url)}`);
  config.url = checkUrl(input.url as string, URL_SCHEMES[transport], transport, fail);
  if (input.headers !== undefined) config.headers = stringRecord(input.headers, "headers", fail, isHeaderName);
  if (input.redirect !== undefined) {
    if (input.redirect !== "same-origin" && input.redirect !== "none") fail(`"redirect" must be "same-origin" or "none", got ${describeValue(input.redirect)}`);
    config.redirect = input.redirect as RedirectPolicy;
  }
  for (const key of ["fallback", "listen"] as const) {
    if (input[key] === undefined) continue;
    if (typeof input[key] !== "boolean") fail(`"${key}" must be true or false, got ${describeValue(input[key])}`);
    config[key] = input[key] as boolean;
  }
  if (input.keepAlive !== undefined) {
    resolveKeepAlive(input.keepAlive, where);
    config.keepAlive = { ...(input.keepAlive as KeepAliveOptions) };
  }
  whole("upgradeTimeoutMs", 1);
  whole("closeTimeoutMs", 1);
  readNetworkKeys(input, config, where, fail);
  if (input.auth !== undefined) {
    config.auth = parseAuthSettings(input.auth, fail);
    if (Object.keys(config.headers ?? {}).some((name) => name.toLowerCase() === "authorization")) {
      fail(`"auth" and an Authorization header both authorize the requests; keep one of them`);
    }
  }
  return config as McpServerConfig;
}

/** `proxy` and the TLS keys, checked as the transports check them, with the declaration named. */
function readNetworkKeys(input: Record<string, unknown>, config: Partial<McpServerConfig>, where: string, fail: (what: string) => never): void {
  if (input.proxy !== undefined) {
    if (input.proxy !== false && typeof input.proxy !== "string") fail(`"proxy" must be a proxy URL (http://host:port) or false, got ${describeValue(input.proxy)}`);
    if (input.proxy !== false) {
      try {
        proxyRoute(input.proxy as string, `"proxy"`);
      } catch (error) {
        fail((error as Error).message);
      }
    }
    config.proxy = input.proxy as string | false;
  }
  const tls = { ca: input.ca, cert: input.cert, key: input.key, passphrase: input.passphrase };
  try {
    checkTlsOptions(tls as Parameters<typeof checkTlsOptions>[0], "TLS");
  } catch (error) {
    // The check's own prefix gives way to the declaration's.
    fail((error as Error).message.replace(/^TLS: /, ""));
  }
  for (const key of ["ca", "cert", "key", "passphrase"] as const) {
    if (input[key] !== undefined) (config as Record<string, unknown>)[key] = input[key];
  }
}

/** `name`, `transport` and the four ceilings, checked: what every declaration has. */
function commonKeys(input: Record<string, unknown>, where: string, fail: (what: string) => never): Partial<McpServerConfig> {
  const config: Partial<McpServerConfig> = {};
  if (typeof input.name !== "string" || input.name.trim() === "") fail(`"name" must be a non-empty string, got ${describeValue(input.name)}`);
  config.name = input.name as string;
  config.transport = input.transport as string;
  for (const limit of LIMIT_NAMES) {
    if (input[limit] !== undefined) config[limit] = checkLimit(limit, input[limit], where);
  }
  return config;
}

/** A declaration of a registered transport, read: the declaration, and its factory's options and context. */
export interface RegisteredRead {
  /** The common keys checked, and the factory's own keys as they were given. */
  config: McpServerConfig;
  /** What the factory's `parse` made of its keys, for `create`. */
  options: object;
  context: TransportFactoryContext;
}

/**
 * A declaration of a registered transport: the keys its factory does not list refused, the
 * common keys checked here, its own keys checked by the factory's `parse`.
 */
export function readRegisteredConfig(input: Record<string, unknown>, factory: TransportFactory<object>, where: string): RegisteredRead {
  const fail = (what: string): never => {
    throw new ConfigError(`${where}: ${what}`);
  };
  const transport = input.transport as string;
  for (const key of Object.keys(input)) {
    if (input[key] === undefined || serverTakesKey(transport, key)) continue;
    const takes = factory.keys.length > 0 ? factory.keys.join(", ") : "none of its own";
    const known = ALL_KEYS.includes(key) ? `a ${transport} server takes no "${key}"` : `unknown key "${key}"${didYouMean(key, [...COMMON_KEYS, ...factory.keys])}`;
    fail(`${known}; besides name, transport and the four ceilings, the ${transport} transport (registered) takes ${takes}`);
  }
  const common = commonKeys(input, where, fail);
  const own: Record<string, unknown> = {};
  for (const key of factory.keys) if (input[key] !== undefined) own[key] = input[key];
  const { options, context } = parseRegisteredKeys(factory, own, { name: common.name!, where });
  return { config: { ...common, ...own } as McpServerConfig, options, context };
}

/**
 * The factory's reading of a declaration's own keys, with the context it is given. A failure of
 * the factory's own making (not through `fail`) is reported as a ConfigError naming the
 * declaration, with the original as its cause.
 */
function parseRegisteredKeys(
  factory: TransportFactory<object>,
  own: Record<string, unknown>,
  declaration: { name: string; where: string },
): { options: object; context: TransportFactoryContext } {
  const context: TransportFactoryContext = {
    name: declaration.name,
    where: declaration.where,
    fail: (problem: string): never => {
      throw new ConfigError(`${declaration.where}: ${problem}`);
    },
  };
  if (!factory.parse) return { options: own, context };
  let options: unknown;
  try {
    options = factory.parse(Object.freeze({ ...own }), context);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`${declaration.where}: the transport's factory refused the declaration (${(error as Error)?.message ?? String(error)})`, { cause: error });
  }
  if (typeof options !== "object" || options === null) {
    throw new TypeError(`${declaration.where}: the transport's factory parse returned ${describeValue(options)}; it must return the options object create takes`);
  }
  return { options, context };
}

function parseAuthSettings(value: unknown, fail: (what: string) => never): AuthSettings {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(`"auth" must be an object such as { "clientId": "..." }, got ${describeValue(value)}`);
  const input = value as Record<string, unknown>;
  const type = input.type ?? "oauth";
  if (!(AUTH_TYPES as readonly unknown[]).includes(type)) fail(`"auth.type" must be one of ${AUTH_TYPES.join(", ")}, got ${describeValue(type)}`);
  const { keys, required } = AUTH_KEYS[type as (typeof AUTH_TYPES)[number]];
  const settings: Record<string, unknown> = input.type === undefined ? {} : { type };
  for (const [key, field] of Object.entries(input)) {
    if (key === "type") continue;
    if (!keys.includes(key)) fail(`"auth" of type ${String(type)} has an unknown key "${key}"${didYouMean(key, keys)}; it takes type, ${keys.join(", ")}`);
    const ok =
      key === "dpop"
        ? typeof field === "boolean"
        : key === "assertion" || key === "idToken"
          ? isNonEmptyString(field) || isFileSource(field)
          : key === "privateKey"
            ? isNonEmptyString(field) || (typeof field === "object" && field !== null && !Array.isArray(field))
            : isNonEmptyString(field);
    if (!ok) {
      const shape = key === "dpop" ? "true or false" : key === "assertion" || key === "idToken" ? 'a non-empty string or { "file": "<path>" }' : key === "privateKey" ? "a PEM string or a JWK object" : "a non-empty string";
      // Never the value itself: it may be a secret.
      fail(`"auth.${key}" must be ${shape}`);
    }
    settings[key] = field;
  }
  for (const key of required) if (settings[key] === undefined) fail(`"auth" of type ${String(type)} needs "${key}"`);
  if (type === "oauth" && settings.clientSecret !== undefined && settings.clientId === undefined) fail(`"auth.clientSecret" needs the "auth.clientId" it belongs to`);
  if (type === "client_credentials" && (settings.clientSecret === undefined) === (settings.privateKey === undefined)) {
    fail(`"auth" of type client_credentials needs exactly one of "clientSecret" and "privateKey"`);
  }
  return settings as unknown as AuthSettings;
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}

function isFileSource(value: unknown): value is { file: string } {
  return typeof value === "object" && value !== null && Object.keys(value).length === 1 && isNonEmptyString((value as { file?: unknown }).file);
}

/** Why keys of other transports are refused, and what to use instead. */
function foreignKeys(transport: TransportName, keys: readonly string[]): string {
  const listed = keys.map((k) => `"${k}"`).join(", ");
  if (transport === "stdio") return `a stdio server takes no ${listed}; use transport "http", "sse" or "websocket" for an endpoint`;
  const local = keys.filter((key) => serverTakesKey("stdio", key));
  if (local.length > 0) return `a ${transport} server takes no ${local.map((k) => `"${k}"`).join(", ")}; use transport "stdio" to run a command`;
  const key = keys[0]!;
  const owners = TRANSPORT_NAMES.filter((name) => serverTakesKey(name, key));
  return `"${key}" applies to ${owners.join(" and ")} servers only; a ${transport} server takes ${SERVER_KEYS_BY_TRANSPORT[transport].join(", ")}`;
}

/**
 * The messages never repeat the URL: a file's `${env:NAME}` is expanded by now, and endpoints
 * carry keys in their query or path (`?api_key=...`, `/mcp/<key>/sse`). The scheme is safe to show.
 */
function checkUrl(text: string, schemes: readonly string[], transport: string, fail: (what: string) => never): string {
  const expected = schemes.map((s) => `${s}//`).join(" or ");
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail(`"url" is not a valid URL: an absolute ${expected} URL is expected (the value is not repeated: it may hold a secret)`);
  }
  if (!schemes.includes(url.protocol)) {
    fail(`"url" of a ${transport} server must start with ${expected}, got a URL starting with ${JSON.stringify(`${url.protocol}//`)}`);
  }
  if (url.username || url.password) fail(`"url" must not carry credentials; send them in "headers"`);
  return text;
}

function stringArray(value: unknown, key: string, fail: (what: string) => never): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) fail(`"${key}" must be a list of strings, got ${describeValue(value)}`);
  return [...(value as string[])];
}

function stringRecord(value: unknown, key: string, fail: (what: string) => never, isName: (name: string) => boolean): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(`"${key}" must be an object of strings, got ${describeValue(value)}`);
  const record: Record<string, string> = {};
  for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
    if (!isName(name)) fail(`"${key}" has a bad name ${JSON.stringify(name)}`);
    if (typeof item !== "string") fail(`"${key}.${name}" must be a string, got ${describeValue(item)}`);
    record[name] = item as string;
  }
  return record;
}
