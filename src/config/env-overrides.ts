/**
 * Environment overrides: the last word in the precedence defaults < file < environment, so one
 * agent image runs against a stdio server on a laptop and an HTTP endpoint in the cluster.
 *
 * For a server named `handbook`, the variables are `MCPWIRE_SERVER_HANDBOOK_<FIELD>` (the name
 * upper-cased, every other character than A-Z and 0-9 turned into `_`):
 *
 * | Field | Effect |
 * | --- | --- |
 * | `URL` | Reach the server at this endpoint (drops any command); the transport follows the URL unless `TRANSPORT` is set |
 * | `COMMAND` | Run this command line (split like a shell, run without one; drops any URL) |
 * | `TRANSPORT` | `stdio`, `http`, `sse`, `websocket`, or a transport given to `registerTransport` |
 * | `HEADERS` | A JSON object of headers, merged over the file's (the environment wins per header) |
 * | `AUTH` | A JSON object: the server's whole `auth` block (a browser login, `client_credentials`, `workload_identity`, `enterprise_managed`), replacing the file's |
 * | `MAX_MESSAGE_BYTES`, `READ_TIMEOUT_MS`, `MAX_IN_FLIGHT`, `TIMEOUT_MS` | The four ceilings |
 * | `ENV_ALLOW` (comma-separated), `CWD`, `NON_PROTOCOL_LINES`, `STDERR_TAIL_LINES`, `STDERR_TAIL_BYTES`, `STDIN_CLOSE_GRACE_MS`, `TERMINATE_GRACE_MS` | stdio's options |
 * | `REDIRECT`, `FALLBACK`, `LISTEN` (`true` or `false`) | the HTTP options |
 * | `KEEPALIVE_INTERVAL_MS`, `KEEPALIVE_TIMEOUT_MS`, `UPGRADE_TIMEOUT_MS`, `CLOSE_TIMEOUT_MS` | the WebSocket options |
 * | `PROXY` (a proxy URL, or `false`) | http, sse, websocket: the `proxy` option |
 * | `CA`, `CERT`, `KEY` (each a path to a PEM file), `PASSPHRASE` | http, sse, websocket: the TLS options (a path becomes `{ "file": path }`) |
 *
 * | each key of a registered transport (`path`: `PATH`, `connectTimeoutMs`: `CONNECT_TIMEOUT_MS`) | that key, read as JSON when it parses (a number, true, an object...) and as text otherwise; its factory checks it |
 *
 * A registered transport's key is read from its own variable even when a built-in field has the
 * same name (`URL` for a key `url`): that variable then sets the key and leaves the server on
 * its transport. When the environment changes the server's transport, the file's keys that the
 * new transport does not take are dropped with it; every value is then checked as the file's are.
 */
import { jsonOrText } from "../util/json-or-text.js";
import { isBuiltInTransport } from "./builtin-names.js";
import { ConfigError, serverTakesKey } from "./server-config.js";
import { registeredTransport, unknownTransport } from "./transport-registry.js";
import { splitCommandLine } from "./shell-words.js";
import { transportForUrl } from "./url-kind.js";

export const ENV_PREFIX = "MCPWIRE_SERVER_";

type FieldKind = "whole" | "text" | "boolean" | "list" | "proxy" | "file";

/** The plain fields: variable suffix, declaration key (`outer.inner` for a nested one), how it reads. */
const FIELDS: readonly (readonly [string, string, FieldKind])[] = [
  ["MAX_MESSAGE_BYTES", "maxMessageBytes", "whole"],
  ["READ_TIMEOUT_MS", "readTimeoutMs", "whole"],
  ["MAX_IN_FLIGHT", "maxInFlight", "whole"],
  ["TIMEOUT_MS", "timeoutMs", "whole"],
  ["ENV_ALLOW", "envAllow", "list"],
  ["CWD", "cwd", "text"],
  ["NON_PROTOCOL_LINES", "nonProtocolLines", "text"],
  ["STDERR_TAIL_LINES", "stderrTailLines", "whole"],
  ["STDERR_TAIL_BYTES", "stderrTailBytes", "whole"],
  ["STDIN_CLOSE_GRACE_MS", "stdinCloseGraceMs", "whole"],
  ["TERMINATE_GRACE_MS", "terminateGraceMs", "whole"],
  ["REDIRECT", "redirect", "text"],
  ["FALLBACK", "fallback", "boolean"],
  ["LISTEN", "listen", "boolean"],
  ["KEEPALIVE_INTERVAL_MS", "keepAlive.intervalMs", "whole"],
  ["KEEPALIVE_TIMEOUT_MS", "keepAlive.timeoutMs", "whole"],
  ["UPGRADE_TIMEOUT_MS", "upgradeTimeoutMs", "whole"],
  ["CLOSE_TIMEOUT_MS", "closeTimeoutMs", "whole"],
  ["PROXY", "proxy", "proxy"],
  ["CA", "ca", "file"],
  ["CERT", "cert", "file"],
  ["KEY", "key", "file"],
  ["PASSPHRASE", "passphrase", "text"],
];

/** The prefix of the variables that override server `name`, e.g. `MCPWIRE_SERVER_HANDBOOK_`. */
export function envPrefixFor(name: string): string {
  return `${ENV_PREFIX}${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_`;
}

/** True when the environment says anything about server `name`. */
export function hasEnvOverrides(name: string, env: Record<string, string | undefined>): boolean {
  const prefix = envPrefixFor(name);
  return Object.keys(env).some((key) => key.startsWith(prefix) && env[key] !== undefined && env[key] !== "");
}

/**
 * The declaration with the environment's overrides applied (a new object). `declaration` is what
 * the file said (or just `{ name }` when no file declares the server).
 */
export function applyEnvOverrides(
  declaration: Record<string, unknown>,
  name: string,
  env: Record<string, string | undefined>,
): Record<string, unknown> {
  const prefix = envPrefixFor(name);
  const read = (field: string): string | undefined => {
    const value = env[prefix + field];
    return value === undefined || value === "" ? undefined : value;
  };
  const where = (field: string) => `environment variable ${prefix}${field}`;
  const result = { ...declaration };
  const url = read("URL");
  const command = read("COMMAND");
  if (url !== undefined && command !== undefined) {
    throw new ConfigError(`${prefix}URL and ${prefix}COMMAND are both set; a server is reached one way: unset one`);
  }
  const transport = read("TRANSPORT");
  if (transport !== undefined && !isBuiltInTransport(transport) && !registeredTransport(transport)) {
    throw new ConfigError(`${where("TRANSPORT")}: ${unknownTransport(transport)}`);
  }
  // A registered transport that takes `url` (or `command`) reads that variable as its own key,
  // and the server stays on it.
  const claimed = ownVariables(transport ?? declaration.transport);
  if (url !== undefined && !claimed.has("URL")) {
    delete result.command;
    delete result.args;
    result.url = url;
    result.transport = transportForUrl(url);
  }
  if (command !== undefined && !claimed.has("COMMAND")) {
    delete result.url;
    const [program, ...args] = splitCommandLine(command);
    result.command = program;
    result.args = args;
    result.transport = "stdio";
  }
  if (transport !== undefined) result.transport = transport;
  const own = ownVariables(result.transport);
  const headers = own.has("HEADERS") ? undefined : read("HEADERS");
  if (headers !== undefined) {
    const parsed = jsonObject(headers, where("HEADERS"), '{"Authorization":"Bearer ..."}');
    result.headers = { ...(result.headers as Record<string, string> | undefined), ...(parsed as Record<string, string>) };
  }
  const auth = own.has("AUTH") ? undefined : read("AUTH");
  // The whole block: the environment says how this server authorizes, not a part of it.
  if (auth !== undefined) result.auth = jsonObject(auth, where("AUTH"), '{"type":"workload_identity","assertion":{"file":"/var/run/secrets/mcp/token"}}');
  if (result.transport !== declaration.transport) {
    // The file's options of the old transport do not follow the server to the new one.
    for (const key of Object.keys(result)) if (!serverTakesKey(result.transport as string, key)) delete result[key];
  }
  for (const [field, key, kind] of FIELDS) {
    const value = own.has(field) ? undefined : read(field);
    if (value !== undefined) setField(result, key, parseField(value, kind, where(field)));
  }
  // A registered transport's own keys: JSON or text, checked by its factory as a file's are.
  for (const [field, key] of own) {
    const value = read(field);
    if (value !== undefined) result[key] = jsonOrText(value);
  }
  return result;
}

/** The variables of a registered transport's own keys, by field (`connectTimeoutMs`: `CONNECT_TIMEOUT_MS`); none for a built-in one. */
function ownVariables(transport: unknown): Map<string, string> {
  const keys = registeredTransport(transport)?.keys ?? [];
  return new Map(keys.map((key) => [envFieldFor(key), key]));
}

/** A declaration key as the suffix of its variable: `connectTimeoutMs` is `CONNECT_TIMEOUT_MS`. */
export function envFieldFor(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

/** A variable's JSON object; the messages never show the value, which may hold a secret. */
function jsonObject(value: string, where: string, example: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ConfigError(`${where} must be a JSON object, e.g. ${example}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`${where} must be a JSON object, e.g. ${example}, got ${Array.isArray(parsed) ? "an array" : typeof parsed}`);
  }
  return parsed as Record<string, unknown>;
}

function parseField(value: string, kind: FieldKind, where: string): unknown {
  switch (kind) {
    case "whole":
      if (!/^\d+$/.test(value)) throw new ConfigError(`${where} must be a whole number, got ${JSON.stringify(value)}`);
      return Number(value);
    case "boolean":
      if (value !== "true" && value !== "false") throw new ConfigError(`${where} must be true or false, got ${JSON.stringify(value)}`);
      return value === "true";
    case "list":
      return value.split(",").map((item) => item.trim()).filter((item) => item !== "");
    case "text":
      return value;
    case "proxy":
      return value === "false" ? false : value;
    case "file":
      return { file: value };
  }
}

/** Sets `key`, or `outer.inner` inside a copy of the outer object. */
function setField(result: Record<string, unknown>, key: string, value: unknown): void {
  const dot = key.indexOf(".");
  if (dot < 0) {
    result[key] = value;
    return;
  }
  const outer = key.slice(0, dot);
  result[outer] = { ...(result[outer] as Record<string, unknown> | undefined), [key.slice(dot + 1)]: value };
}
