/**
 * The names an agent knows MCP tools by.
 *
 * Model providers accept tool names of 1 to 64 characters from `[A-Za-z0-9_-]` (the strictest
 * common rule), and two tools of one agent must never share a name. Tools from several servers
 * are told apart by a prefix (the server's name); what is left after that (two servers whose
 * names differ only in characters a provider refuses, a tool listed twice) is resolved in list
 * order, so the same servers always give the same names.
 */
import { createHash } from "node:crypto";
import type { McpClient } from "../client/client.js";
import type { Tool } from "../protocol/schemas.js";
import type { ToolCallSettings } from "./tool-call-settings.js";

/** The longest tool name every common model provider accepts. */
export const MAX_TOOL_NAME_LENGTH = 64;

/** Between a server's name and its tool's name. @default "__" */
export const DEFAULT_TOOL_NAME_SEPARATOR = "__";

/** One tool of one server, under the name an agent calls it by. */
export interface ServerTool {
  /** The name the agent sees: sanitized, prefixed when asked, unique among the tools listed together. */
  name: string;
  /** The server it belongs to (its name in the `mcpServers` file, or the prefix given). */
  server: string;
  /** The tool as the server listed it; `tool.name` is what is sent in `tools/call`. */
  tool: Tool;
  /** The client that reaches its server. */
  client: McpClient;
  /** How calls of this tool run unless the caller says otherwise (from `connectAll`'s `calls`). */
  call?: ToolCallSettings;
}

/** The tools of one server, as listed. */
export interface ServerToolList {
  server: string;
  client: McpClient;
  tools: readonly Tool[];
}

export interface ToolNamingOptions {
  /** Put the server's name before each tool's name. @default false */
  prefix?: boolean;
  /** Between the server's name and the tool's name. @default DEFAULT_TOOL_NAME_SEPARATOR ("__") */
  separator?: string;
}

const ALLOWED = /^[A-Za-z0-9_-]+$/;
const NOT_ALLOWED = /[^A-Za-z0-9_-]/g;
/** Hex digits of the hash that keeps a shortened name unique. */
const HASH_DIGITS = 8;

/** A name made of the characters providers accept: any other character becomes `_`. */
export function sanitizeToolName(name: string): string {
  const cleaned = name.replace(NOT_ALLOWED, "_");
  return cleaned === "" ? "_" : cleaned;
}

/**
 * Names every tool of every list: sanitized, prefixed by its server when `prefix` is set, at most
 * `MAX_TOOL_NAME_LENGTH` long, and unique. Earlier lists and earlier tools keep the plain name;
 * a later clash gets `_2`, `_3`, ... so the result depends only on the order of the input.
 *
 * `kept` is an earlier naming of the same servers (a live set listing again): each tool still
 * listed keeps the name it had, and only new tools are named, so a name an agent already knows
 * never moves to another tool when a server earlier in the order gains a tool of that name.
 */
export function nameServerTools(
  lists: readonly ServerToolList[],
  options: ToolNamingOptions = {},
  kept: readonly ServerTool[] = [],
): ServerTool[] {
  const separator = checkSeparator(options.separator);
  const taken = new Set<string>();
  const stillListed = new Set(lists.flatMap((list) => list.tools.map((tool) => toolKey(list.server, tool.name))));
  const keptNames = new Map<string, string>();
  for (const entry of kept) {
    const key = toolKey(entry.server, entry.tool.name);
    if (!stillListed.has(key) || keptNames.has(key) || taken.has(entry.name)) continue;
    keptNames.set(key, entry.name);
    taken.add(entry.name);
  }
  const named: ServerTool[] = [];
  for (const list of lists) {
    for (const tool of list.tools) {
      const key = toolKey(list.server, tool.name);
      let name = keptNames.get(key);
      if (name === undefined) {
        const wanted = options.prefix
          ? `${sanitizeToolName(list.server)}${separator}${sanitizeToolName(tool.name)}`
          : sanitizeToolName(tool.name);
        name = claim(wanted, taken);
      } else {
        // A tool listed twice: the first keeps the name, the second is named anew.
        keptNames.delete(key);
      }
      named.push({ name, server: list.server, tool, client: list.client });
    }
  }
  return named;
}

/** One tool of one server, as one string that no other pair of names gives. */
function toolKey(server: string, toolName: string): string {
  return JSON.stringify([server, toolName]);
}

/** The first free name of `wanted`, `wanted_2`, `wanted_3`, ..., each within the length limit. */
function claim(wanted: string, taken: Set<string>): string {
  let candidate = fit(wanted, "");
  for (let count = 2; taken.has(candidate); count++) candidate = fit(wanted, `_${count}`);
  taken.add(candidate);
  return candidate;
}

/**
 * `name` followed by `suffix`, within the limit. A name too long is cut and given a short hash of
 * the whole, so two long names that share their first 50 characters stay apart.
 */
function fit(name: string, suffix: string): string {
  if (name.length + suffix.length <= MAX_TOOL_NAME_LENGTH) return name + suffix;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, HASH_DIGITS);
  const room = MAX_TOOL_NAME_LENGTH - suffix.length - HASH_DIGITS - 1;
  return `${name.slice(0, room)}_${hash}${suffix}`;
}

/** The separator to use: the default when none is given; any other value than a short name-safe string is a TypeError. */
export function checkSeparator(separator: string | undefined): string {
  if (separator === undefined) return DEFAULT_TOOL_NAME_SEPARATOR;
  if (typeof separator !== "string" || separator.length > 8 || (separator !== "" && !ALLOWED.test(separator))) {
    throw new TypeError(
      `options: "separator" must be at most 8 characters from A-Z, a-z, 0-9, "_" and "-", got ${JSON.stringify(separator)}`,
    );
  }
  return separator;
}
