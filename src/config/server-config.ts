/**
 * The declaration of one server: which transport, and for stdio an argv, for the others an
 * endpoint URL, plus the four ceilings.
 *
 * Validated when read, never at the first call: a stdio server without an argv, a remote server
 * given one, an unknown key (a typo must not pass silently), a bad URL are all refused with a
 * message that names the server and where it was declared.
 */
import { LIMIT_NAMES, checkLimit, describeValue, type Limits } from "../transport/limits.js";

export const TRANSPORT_NAMES = ["stdio", "http", "sse", "websocket"] as const;
export type TransportName = (typeof TRANSPORT_NAMES)[number];

export type RedirectPolicy = "same-origin" | "none";

export interface McpServerConfig extends Partial<Limits> {
  /** How the server is named in files, environment overrides and messages. */
  name: string;
  /** `stdio` (a child process), `http` (Streamable HTTP), `sse` (legacy HTTP+SSE) or `websocket`. */
  transport: TransportName;
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
  /** http, sse, websocket: the endpoint, used verbatim. */
  url?: string;
  /** http, sse, websocket: headers sent with every request (or on the WebSocket upgrade). */
  headers?: Record<string, string>;
  /** http, sse: which redirects are followed. @default "same-origin" */
  redirect?: RedirectPolicy;
  /** http: try the legacy HTTP+SSE transport when the server refuses Streamable HTTP (400, 404, 405). @default true */
  fallback?: boolean;
}

const STDIO_KEYS = ["command", "args", "env", "envAllow", "cwd"] as const;
const REMOTE_KEYS = ["url", "headers", "redirect", "fallback"] as const;
const COMMON_KEYS = ["name", "transport", ...LIMIT_NAMES] as const;
const ALL_KEYS: readonly string[] = [...COMMON_KEYS, ...STDIO_KEYS, ...REMOTE_KEYS];

const URL_SCHEMES: Record<Exclude<TransportName, "stdio">, readonly string[]> = {
  http: ["http:", "https:"],
  sse: ["http:", "https:"],
  websocket: ["ws:", "wss:"],
};

/** An environment variable name as POSIX and Windows accept it. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

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
  for (const key of Object.keys(input)) {
    if (!ALL_KEYS.includes(key)) {
      const guess = closest(key, ALL_KEYS);
      fail(`unknown key "${key}"${guess ? ` (did you mean "${guess}"?)` : ""}; allowed keys: ${ALL_KEYS.join(", ")}`);
    }
  }
  const config: Partial<McpServerConfig> = {};
  if (typeof input.name !== "string" || input.name.trim() === "") fail(`"name" must be a non-empty string, got ${describeValue(input.name)}`);
  config.name = input.name as string;
  if (!TRANSPORT_NAMES.includes(input.transport as TransportName)) {
    fail(`"transport" must be one of ${TRANSPORT_NAMES.join(", ")}, got ${describeValue(input.transport)}`);
  }
  const transport = input.transport as TransportName;
  config.transport = transport;

  for (const limit of LIMIT_NAMES) {
    if (input[limit] !== undefined) config[limit] = checkLimit(limit, input[limit], where);
  }

  if (transport === "stdio") {
    const remote = REMOTE_KEYS.filter((key) => input[key] !== undefined);
    if (remote.length > 0) fail(`a stdio server takes no ${remote.map((k) => `"${k}"`).join(", ")}; use transport "http", "sse" or "websocket" for an endpoint`);
    if (typeof input.command !== "string" || input.command.trim() === "") {
      fail(`a stdio server needs "command" (the program to run, no shell), got ${describeValue(input.command)}`);
    }
    config.command = input.command as string;
    if (input.args !== undefined) config.args = stringArray(input.args, "args", fail);
    if (input.env !== undefined) config.env = stringRecord(input.env, "env", fail, ENV_NAME);
    if (input.envAllow !== undefined) {
      config.envAllow = stringArray(input.envAllow, "envAllow", fail);
      const bad = config.envAllow.find((name) => !ENV_NAME.test(name));
      if (bad !== undefined) fail(`"envAllow" holds ${JSON.stringify(bad)}, which is not a variable name`);
    }
    if (input.cwd !== undefined) {
      if (typeof input.cwd !== "string" || input.cwd === "") fail(`"cwd" must be a non-empty string, got ${describeValue(input.cwd)}`);
      config.cwd = input.cwd as string;
    }
    return config as McpServerConfig;
  }

  const local = STDIO_KEYS.filter((key) => input[key] !== undefined);
  if (local.length > 0) fail(`a ${transport} server takes no ${local.map((k) => `"${k}"`).join(", ")}; use transport "stdio" to run a command`);
  if (typeof input.url !== "string") fail(`a ${transport} server needs "url" (its endpoint), got ${describeValue(input.url)}`);
  config.url = checkUrl(input.url as string, URL_SCHEMES[transport], transport, fail);
  if (input.headers !== undefined) config.headers = stringRecord(input.headers, "headers", fail, /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/);
  if (input.redirect !== undefined) {
    if (transport === "websocket") fail(`"redirect" applies to http and sse servers only`);
    if (input.redirect !== "same-origin" && input.redirect !== "none") fail(`"redirect" must be "same-origin" or "none", got ${describeValue(input.redirect)}`);
    config.redirect = input.redirect as RedirectPolicy;
  }
  if (input.fallback !== undefined) {
    if (transport !== "http") fail(`"fallback" applies to http servers only`);
    if (typeof input.fallback !== "boolean") fail(`"fallback" must be true or false, got ${describeValue(input.fallback)}`);
    config.fallback = input.fallback as boolean;
  }
  return config as McpServerConfig;
}

function checkUrl(text: string, schemes: readonly string[], transport: string, fail: (what: string) => never): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail(`"url" is not a valid URL: ${JSON.stringify(text)}`);
  }
  if (!schemes.includes(url.protocol)) {
    fail(`"url" of a ${transport} server must start with ${schemes.map((s) => `${s}//`).join(" or ")}, got ${JSON.stringify(text)}`);
  }
  if (url.username || url.password) fail(`"url" must not carry credentials; send them in "headers"`);
  return text;
}

function stringArray(value: unknown, key: string, fail: (what: string) => never): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) fail(`"${key}" must be a list of strings, got ${describeValue(value)}`);
  return [...(value as string[])];
}

function stringRecord(value: unknown, key: string, fail: (what: string) => never, keyPattern: RegExp): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(`"${key}" must be an object of strings, got ${describeValue(value)}`);
  const record: Record<string, string> = {};
  for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
    if (!keyPattern.test(name)) fail(`"${key}" has a bad name ${JSON.stringify(name)}`);
    if (typeof item !== "string") fail(`"${key}.${name}" must be a string, got ${describeValue(item)}`);
    record[name] = item as string;
  }
  return record;
}

/** The allowed key nearest to a typo, within two edits. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}
