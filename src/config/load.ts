/**
 * Resolving a server by name through one precedence: built-in defaults < file < environment.
 * The result is validated here, when it is read, never at the first call.
 */
import { access } from "node:fs/promises";
import { ConfigError, parseServerConfig, type McpServerConfig } from "./server-config.js";
import { applyEnvOverrides, envPrefixFor, hasEnvOverrides } from "./env-overrides.js";
import { configFileCandidates, type LocationContext } from "./locations.js";
import { readServersFile, type ServersFile } from "./mcp-servers-file.js";

export interface LoadOptions extends LocationContext {
  /** The `mcpServers` file to read; otherwise the usual locations are searched. */
  configFile?: string;
}

/** Reads one `mcpServers` file, or the first of the usual locations that exists. */
export async function loadServersFile(options: LoadOptions = {}): Promise<ServersFile | undefined> {
  const env = options.env ?? process.env;
  if (options.configFile) return readServersFile(options.configFile, env);
  for (const candidate of configFileCandidates(options)) {
    if (await exists(candidate)) return readServersFile(candidate, env);
  }
  return undefined;
}

/**
 * The declaration of server `name`: from the config file (named, or found in the usual places),
 * with the environment's overrides on top. A server the environment alone describes (say
 * `MCPWIRE_SERVER_HANDBOOK_URL`) needs no file.
 */
export async function loadServerConfig(name: string, options: LoadOptions = {}): Promise<McpServerConfig> {
  const env = options.env ?? process.env;
  const file = await loadServersFile(options);
  if (file?.disabled.includes(name) && !hasEnvOverrides(name, env)) {
    throw new ConfigError(`${file.source}: server "${name}" is marked "disabled": true`);
  }
  const declared = file?.servers[name];
  if (!declared && !hasEnvOverrides(name, env)) {
    const known = file ? Object.keys(file.servers) : [];
    const where = file ? file.source : `no config file (looked for ${configFileCandidates(options).join(", ")})`;
    throw new ConfigError(
      `${where}: no server named "${name}"` +
        (known.length > 0 ? `; it declares ${known.map((n) => `"${n}"`).join(", ")}` : "") +
        `; declare it there or set ${envPrefixFor(name)}URL or ${envPrefixFor(name)}COMMAND`,
    );
  }
  const merged = applyEnvOverrides({ ...(declared ?? { name }) }, name, env);
  const source = declared ? `${file!.source}: server "${name}"` : `server "${name}"`;
  return parseServerConfig(merged, hasEnvOverrides(name, env) ? `${source} (with ${envPrefixFor(name)}* from the environment)` : source);
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
