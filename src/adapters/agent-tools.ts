/**
 * What both agent adapters share: which tools an agent gets from a client (or from many servers)
 * and under which names, and how one call runs so that it always ends in a result the model can
 * read, never in an exception that ends the agent's run.
 */
import { McpClient } from "../client/client.js";
import type { ContentBlock } from "../protocol/schemas.js";
import type { ConnectedServers } from "./connect-all.js";
import { didYouMean, firstUnknownKey } from "../util/option-names.js";
import { describeValue } from "../util/whole-number.js";
import {
  TOOL_CALL_SETTING_NAMES,
  callOptionsFor,
  checkLayeredSettings,
  type LayeredToolCallSettings,
  type ToolCallSettings,
} from "./tool-call-settings.js";
import { toolListWatchOf } from "./tool-list-watch.js";
import { badInputFailure, describeToolFailure, removedToolFailure, type ToolFailure } from "./tool-failure.js";
import { nameServerTools, type ServerTool } from "./tool-naming.js";
import { resultText } from "./tool-result-text.js";

/**
 * Where an agent's tools come from: one client; the servers of `connectAll` (tools prefixed by
 * server name); or tools already listed and named (`(await servers.listTools()).tools`).
 */
export type AgentToolSource = McpClient | ConnectedServers | readonly ServerTool[];

/**
 * Which tools, under which names, and how their calls run: `timeoutMs`, `resetTimeoutOnProgress`,
 * `maxTotalTimeoutMs` and `onProgress` for every call, and per server in `servers`, over what
 * `connectAll`'s `calls` set.
 */
export interface AgentToolOptions extends LayeredToolCallSettings {
  /**
   * Put a prefix and `separator` before each tool's name. For one client: `true` for the
   * server's own name (`serverInfo.name`), or the prefix to use; @default false. For the
   * servers of `connectAll`: each server's name; @default true. Tools given already named keep
   * their names.
   */
  prefix?: boolean | string;
  /** Between the prefix and the tool's name. @default "__" */
  separator?: string;
  /** Keep only the tools this returns true for (it sees the final name, the server and the tool as listed). */
  filter?: (tool: ServerTool) => boolean;
  /** Aborts listing the tools. */
  signal?: AbortSignal;
}

/** What one call gives the agent: the server's answer, or our account of why there is none. */
export interface AgentToolResult {
  /** The result's blocks; for a call that got no answer, one text block with `failure.message`. */
  content: ContentBlock[];
  /** The result's structured content, when the tool gave one: an object, or in revision 2026-07-28 any JSON value. */
  structuredContent?: unknown;
  /** True for a tool's own failure (`isError` result) and for a call that got no answer. */
  isError: boolean;
  /** Present only when the call got no answer: why, in a closed set, and whether to try again. */
  failure?: ToolFailure;
}

/** The tools of `source`, named for an agent, filtered. Options are checked here, once. */
export async function listAgentTools(source: AgentToolSource, options: AgentToolOptions = {}): Promise<ServerTool[]> {
  checkAgentToolOptions(options);
  checkAgentToolSource(source);
  let tools: readonly ServerTool[];
  if (Array.isArray(source)) {
    tools = source as readonly ServerTool[];
  } else if (source instanceof McpClient) {
    // Watched from before the listing, so a change that comes after it is not missed.
    toolListWatchOf(source);
    const prefix = options.prefix ?? false;
    const server = typeof prefix === "string" ? prefix : source.serverInfo.name;
    const listed = await source.listTools({ signal: options.signal });
    tools = nameServerTools([{ server, client: source, tools: listed }], {
      prefix: prefix !== false,
      separator: options.separator,
    });
  } else {
    for (const client of Object.values((source as ConnectedServers).clients)) toolListWatchOf(client);
    const listing = await (source as ConnectedServers).listTools({
      prefix: options.prefix !== false,
      separator: options.separator,
      signal: options.signal,
    });
    tools = listing.tools;
  }
  return options.filter ? tools.filter((tool) => options.filter!(tool)) : [...tools];
}

/**
 * Calls one tool for an agent. Resolves in every case: with the server's result (an `isError`
 * result stays an error), or, when no answer came (timeout, cancellation, lost connection, ...),
 * with an error result whose text says what happened and what to do. A tool its server no longer
 * lists (the list changed since the tool was made) is not called: the result says it is gone.
 */
export async function callAgentTool(
  entry: ServerTool,
  input: unknown,
  options: ToolCallSettings & { signal?: AbortSignal } = {},
): Promise<AgentToolResult> {
  // No input at all is a tool without arguments; any other input that is not an object was once
  // replaced by {} and sent, and the model read the server's complaint about missing arguments.
  if (input !== undefined && input !== null && !isPlainObject(input)) {
    const failure = badInputFailure(entry.name, input);
    return { content: [{ type: "text", text: failure.message }], isError: true, failure };
  }
  const args = isPlainObject(input) ? input : {};
  try {
    if (!(await toolListWatchOf(entry.client).stillListed(entry.tool.name, options.signal))) {
      const failure = removedToolFailure(entry.name);
      return { content: [{ type: "text", text: failure.message }], isError: true, failure };
    }
    const result = await entry.client.callTool(entry.tool.name, args, callOptionsFor(entry, options, options.signal));
    const answer: AgentToolResult = { content: result.content, isError: result.isError === true };
    if (result.structuredContent !== undefined) answer.structuredContent = result.structuredContent;
    return answer;
  } catch (error) {
    const failure = describeToolFailure(entry.name, error, options.signal);
    return { content: [{ type: "text", text: failure.message }], isError: true, failure };
  }
}

/** The text a model reads of a call's outcome. */
export function agentToolText(result: AgentToolResult): string {
  return result.failure ? result.failure.message : resultText(result);
}

/** A description for the model: the tool's own, else its title, else a plain one naming it. */
export function agentToolDescription(entry: ServerTool): string {
  return entry.tool.description ?? entry.tool.title ?? `The MCP tool "${entry.tool.name}" of the server "${entry.server}".`;
}

/**
 * The tool's input schema as JSON Schema for a model: as the server gave it, with `properties`
 * present (some providers refuse an object schema without it).
 */
export function agentInputSchema(entry: ServerTool): Record<string, unknown> & { type: "object" } {
  const schema = entry.tool.inputSchema as Record<string, unknown> & { type: "object" };
  return schema.properties === undefined ? { ...schema, properties: {} } : schema;
}

/**
 * The options the agent adapters read, in either framework: `needsApproval` is the AI SDK's (the
 * LangChain adapter refuses it itself, saying why).
 */
export const AGENT_TOOL_OPTION_NAMES = [
  ...TOOL_CALL_SETTING_NAMES,
  "servers",
  "prefix",
  "separator",
  "filter",
  "signal",
  "needsApproval",
] as const;

/** Checks the options of the agent adapters, once, where the tools are made; a key nobody reads is refused. */
export function checkAgentToolOptions(options: AgentToolOptions): void {
  if (typeof options !== "object" || options === null) throw new TypeError("options must be an object");
  const unknown = firstUnknownKey(options, AGENT_TOOL_OPTION_NAMES);
  if (unknown !== undefined) {
    throw new TypeError(
      `options: unknown option "${unknown}"${didYouMean(unknown, AGENT_TOOL_OPTION_NAMES)}; the options are ${AGENT_TOOL_OPTION_NAMES.join(", ")}`,
    );
  }
  checkLayeredSettings(options, "options");
  const prefix: unknown = options.prefix;
  if (prefix !== undefined && typeof prefix !== "boolean" && (typeof prefix !== "string" || prefix === "")) {
    throw new TypeError(`options: "prefix" must be true, false or a non-empty string, got ${JSON.stringify(prefix) ?? typeof prefix}`);
  }
  if (options.filter !== undefined && typeof options.filter !== "function") {
    throw new TypeError(`options: "filter" must be a function, got ${typeof options.filter}`);
  }
}

/**
 * Refuses a source that is none of the three, where the tools are made: `null`, a URL or a file's
 * path would otherwise fail deep inside with a JS error that does not say what was expected.
 */
export function checkAgentToolSource(source: unknown): void {
  if (Array.isArray(source)) {
    source.forEach((entry: unknown, index) => {
      const tool = entry as Partial<ServerTool> | null;
      if (typeof tool !== "object" || tool === null || typeof tool.name !== "string" || typeof tool.tool !== "object" || tool.tool === null || !(tool.client instanceof McpClient)) {
        throw new TypeError(
          `tools[${index}] is not a listed tool ({ name, server, tool, client }, as servers.listTools() gives), got ${describeValue(entry)}`,
        );
      }
    });
    return;
  }
  if (source instanceof McpClient) return;
  const servers = source as Partial<ConnectedServers> | null;
  if (typeof servers !== "object" || servers === null || typeof servers.clients !== "object" || servers.clients === null || typeof servers.listTools !== "function") {
    throw new TypeError(
      `expected a client (from connect()), the servers of connectAll(), or tools listed by servers.listTools(), got ${describeValue(source)}` +
        (typeof source === "string" ? " (connect to it first: await connect(target) or await connectAll(file))" : ""),
    );
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
