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
 * | `TRANSPORT` | `stdio`, `http`, `sse` or `websocket` |
 * | `HEADERS` | A JSON object of headers, merged over the file's (the environment wins per header) |
 * | `MAX_MESSAGE_BYTES`, `READ_TIMEOUT_MS`, `MAX_IN_FLIGHT`, `TIMEOUT_MS` | The four ceilings |
 */
import { describeValue, type Limits } from "../transport/limits.js";
import { ConfigError, TRANSPORT_NAMES, type TransportName } from "./server-config.js";
import { splitCommandLine } from "./shell-words.js";
import { transportForUrl } from "./url-kind.js";

export const ENV_PREFIX = "MCPWIRE_SERVER_";

const LIMIT_VARIABLES: Record<string, keyof Limits> = {
  MAX_MESSAGE_BYTES: "maxMessageBytes",
  READ_TIMEOUT_MS: "readTimeoutMs",
  MAX_IN_FLIGHT: "maxInFlight",
  TIMEOUT_MS: "timeoutMs",
};

const STDIO_KEYS = ["command", "args", "env", "envAllow", "cwd"];
const REMOTE_KEYS = ["url", "headers", "redirect", "fallback"];

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
  if (url !== undefined) {
    for (const key of STDIO_KEYS) delete result[key];
    result.url = url;
    result.transport = transportForUrl(url);
  }
  if (command !== undefined) {
    for (const key of REMOTE_KEYS) delete result[key];
    const [program, ...args] = splitCommandLine(command);
    result.command = program;
    result.args = args;
    result.transport = "stdio";
  }
  const transport = read("TRANSPORT");
  if (transport !== undefined) {
    if (!TRANSPORT_NAMES.includes(transport as TransportName)) {
      throw new ConfigError(`${where("TRANSPORT")} must be one of ${TRANSPORT_NAMES.join(", ")}, got ${JSON.stringify(transport)}`);
    }
    result.transport = transport;
  }
  const headers = read("HEADERS");
  if (headers !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(headers);
    } catch {
      throw new ConfigError(`${where("HEADERS")} must be a JSON object of strings, e.g. {"Authorization":"Bearer ..."}`);
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new ConfigError(`${where("HEADERS")} must be a JSON object of strings, got ${describeValue(parsed)}`);
    }
    result.headers = { ...(result.headers as Record<string, string> | undefined), ...(parsed as Record<string, string>) };
  }
  for (const [field, key] of Object.entries(LIMIT_VARIABLES)) {
    const value = read(field);
    if (value === undefined) continue;
    if (!/^\d+$/.test(value)) throw new ConfigError(`${where(field)} must be a whole number, got ${JSON.stringify(value)}`);
    result[key] = Number(value);
  }
  return result;
}
