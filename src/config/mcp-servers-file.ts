/**
 * The `mcpServers` JSON files that desktop hosts and editors already use:
 *
 * - `{ "mcpServers": { name: { command, args, env } | { url, headers } } }` (desktop hosts,
 *   Cursor, Claude Code's `.mcp.json`);
 * - `{ "servers": { name: { type: "stdio" | "http" | "sse", ... } } }` (the editor variant);
 * - a transport given to `registerTransport`, named by `"transport"` or `"type"`, with its own keys.
 *
 * `${env:NAME}` and `${NAME}` in strings are expanded from the environment. Keys the hosts use for
 * their own bookkeeping (`disabled`, `autoApprove`, `alwaysAllow`, `description`) are accepted;
 * a server with `disabled: true` is left out. Any other unknown key is refused by name.
 *
 * A server name given twice, or a key given twice within one server's entry, is refused: JSON
 * keeps the last silently, and a block copied but not renamed would replace the first server.
 */
import { readFile } from "node:fs/promises";
import { describeValue } from "../util/whole-number.js";
import { findDuplicateKeys } from "./duplicate-keys.js";
import { expandDeep } from "./expand.js";
import { HOST_KEYS, TRANSPORT_TYPE_ALIASES } from "./builtin-names.js";
import { ConfigError, parseServerConfig, type McpServerConfig } from "./server-config.js";
import { registeredTransport } from "./transport-registry.js";
import { transportForUrl } from "./url-kind.js";

export interface ServersFile {
  /** Where the file was read from (or the name given for a text). */
  source: string;
  /** The servers it declares, validated, by name; disabled servers are not here. */
  servers: Record<string, McpServerConfig>;
  /** The names of servers marked `disabled: true`. */
  disabled: string[];
}


export async function readServersFile(path: string, env: Record<string, string | undefined> = process.env): Promise<ServersFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    throw new ConfigError(`${path}: cannot read the config file (${code ?? "unknown error"})`, { cause });
  }
  return parseServersFile(text, path, env);
}

export function parseServersFile(text: string, source: string, env: Record<string, string | undefined> = process.env): ServersFile {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (cause) {
    throw new ConfigError(`${source}: not valid JSON (${(cause as Error).message})`, { cause });
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw new ConfigError(`${source}: expected a JSON object with "mcpServers" or "servers", got ${describeValue(document)}`);
  }
  const root = document as Record<string, unknown>;
  const key = "mcpServers" in root ? "mcpServers" : "servers" in root ? "servers" : undefined;
  if (!key) {
    throw new ConfigError(
      `${source}: no "mcpServers" or "servers" object; expected { "mcpServers": { "<name>": { "command": ... } | { "url": ... } } }`,
    );
  }
  const entries = root[key];
  if (typeof entries !== "object" || entries === null || Array.isArray(entries)) {
    throw new ConfigError(`${source}: "${key}" must be an object of servers by name, got ${describeValue(entries)}`);
  }
  refuseDuplicateKeys(text, source, key);
  const file: ServersFile = { source, servers: {}, disabled: [] };
  for (const [name, entry] of Object.entries(entries as Record<string, unknown>)) {
    const where = `${source}: server "${name}"`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      throw new ConfigError(`${where}: expected an object, got ${describeValue(entry)}`);
    }
    if ((entry as Record<string, unknown>).disabled === true) {
      file.disabled.push(name);
      continue;
    }
    file.servers[name] = parseServerConfig(fromFileEntry(name, entry as Record<string, unknown>, where, env), where);
  }
  return file;
}

/**
 * Refuses the first key given twice in the servers object (`key`) or in one of its entries, and
 * `key` itself given twice. Keys elsewhere (the hosts' own settings) are not ours to judge.
 */
function refuseDuplicateKeys(text: string, source: string, key: string): void {
  for (const duplicate of findDuplicateKeys(text)) {
    const [top, name, ...inEntry] = duplicate.path;
    const lines = `lines ${duplicate.firstLine} and ${duplicate.line}`;
    if (top === undefined && duplicate.key === key) {
      throw new ConfigError(`${source}: "${key}" is given twice (${lines}); JSON keeps only the last, so the servers of the first would be lost: merge them into one`);
    }
    if (top !== key) continue;
    if (name === undefined) {
      throw new ConfigError(
        `${source}: server "${duplicate.key}" is declared twice (${lines}); JSON keeps only the last, so the first would be silently replaced: rename or remove one`,
      );
    }
    const within = inEntry.length === 0 ? "" : ` in "${inEntry.map((part, i) => (typeof part === "number" ? `[${part}]` : i === 0 ? part : `.${part}`)).join("")}"`;
    throw new ConfigError(`${source}: server "${name}": key "${duplicate.key}" is given twice${within} (${lines}); JSON keeps only the last: rename or remove one`);
  }
}

/** One entry as the host wrote it, turned into a declaration for `parseServerConfig`. */
export function fromFileEntry(
  name: string,
  entry: Record<string, unknown>,
  where: string,
  env: Record<string, string | undefined>,
): Record<string, unknown> {
  const { type, ...rest } = entry;
  const declaration: Record<string, unknown> = { name };
  for (const [key, value] of Object.entries(rest)) {
    if (!HOST_KEYS.has(key)) declaration[key] = value;
  }
  const expanded = expandDeep(declaration, env, where) as Record<string, unknown>;
  if (expanded.transport === undefined) {
    if (type !== undefined) {
      // A built-in transport by any of its names, or a registered one by its own.
      const transport =
        typeof type !== "string" ? undefined : Object.hasOwn(TRANSPORT_TYPE_ALIASES, type) ? TRANSPORT_TYPE_ALIASES[type] : registeredTransport(type) ? type : undefined;
      if (!transport) {
        throw new ConfigError(`${where}: "type" must be one of ${Object.keys(TRANSPORT_TYPE_ALIASES).join(", ")}, or a transport given to registerTransport, got ${describeValue(type)}`);
      }
      expanded.transport = transport;
    } else if (typeof expanded.url === "string") {
      expanded.transport = transportForUrl(expanded.url);
    } else if (expanded.url !== undefined && expanded.command === undefined) {
      // Read as a stdio server, it would be refused for having a "url", which is not the mistake.
      throw new ConfigError(`${where}: "url" must be the server's endpoint as a string, http(s):// or ws(s)://, got ${describeValue(expanded.url)}`);
    } else {
      expanded.transport = "stdio";
    }
  } else if (type !== undefined) {
    throw new ConfigError(`${where}: give "type" or "transport", not both`);
  }
  return expanded;
}
