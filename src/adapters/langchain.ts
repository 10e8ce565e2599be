/**
 * `mcpwire/langchain`: MCP tools as LangChain JS tools (`@langchain/core` 1).
 *
 * Each tool is a `DynamicStructuredTool` whose schema is the server's JSON Schema (LangChain
 * checks the model's arguments against it). Invoked with a tool call, as agents do, it answers
 * with a `ToolMessage`: the result's text (and image or audio blocks) as content, the whole
 * outcome as `artifact`, and `status: "error"` for an `isError` result or a call that got no
 * answer (timed out, cancelled, connection lost), so the model reads the failure and the agent's
 * run goes on. Invoked with plain arguments, it returns the content alone.
 *
 * `langchainTools()` is a snapshot of the lists; `langchainToolSet()` follows them. The tools'
 * hints (`readOnlyHint`, `destructiveHint`, ...) travel in `metadata`, which LangChain hands to
 * every callback of the tool's runs (and so to traces), for a human-in-the-loop rule to read.
 */
import type { MessageContent } from "@langchain/core/messages";
import { ToolMessage } from "@langchain/core/messages";
import { DynamicStructuredTool, type ToolRunnableConfig } from "@langchain/core/tools";
import type { McpClient } from "../client/client.js";
import {
  agentInputSchema,
  agentToolDescription,
  agentToolText,
  callAgentTool,
  listAgentTools,
  type AgentToolOptions,
  type AgentToolResult,
  type AgentToolSource,
} from "./agent-tools.js";
import type { ConnectedServers } from "./connect-all.js";
import { LiveAgentTools, currentSignal, type AgentToolSet } from "./live-tools.js";
import { toolListWatchOf } from "./tool-list-watch.js";
import { checkLayeredSettings, settingsForServer, type LayeredToolCallSettings } from "./tool-call-settings.js";
import { agentToolMetadata } from "./tool-hints.js";
import type { ServerTool } from "./tool-naming.js";
import { blockText } from "./tool-result-text.js";

export type LangChainToolsOptions = AgentToolOptions;

/**
 * The tools of `source` (a client, the servers of `connectAll`, or tools already listed), by the
 * names the model calls them, ready for `model.bindTools(tools)` and LangChain agents.
 */
export async function langchainTools(source: AgentToolSource, options: LangChainToolsOptions = {}): Promise<DynamicStructuredTool[]> {
  refuseApproval(options);
  const entries = await listAgentTools(source, options);
  return entries.map((entry) => langchainTool(entry, options));
}

/**
 * LangChain tools that follow their servers' tool lists (see `AgentToolSet`). `tools` is a new
 * array after each change: a model binds its tools when `bindTools` is called, so bind (or build
 * the agent) again from `await set.current()` before a run, or in `onChange`.
 */
export type McpLangChainToolSet = AgentToolSet<DynamicStructuredTool[]>;

/**
 * The tools of a client or of the servers of `connectAll`, following their lists: a server's
 * `notifications/tools/list_changed` (in the 2026-07-28 era, the set opens the `listen()` stream
 * that carries it) or a reconnection lists that server again. A call to a tool that left the list
 * is not sent: the model reads that the tool is gone. Close the set (or leave a `using` block) to
 * stop following.
 */
export async function langchainToolSet(source: McpClient | ConnectedServers, options: LangChainToolsOptions = {}): Promise<McpLangChainToolSet> {
  refuseApproval(options);
  let tools: DynamicStructuredTool[] = [];
  const live = await LiveAgentTools.open(source, options, (entries) => {
    tools = entries.map((entry) => langchainTool(entry, options));
  });
  return {
    get tools() {
      return tools;
    },
    async current(currentOptions?: { signal?: AbortSignal }) {
      await live.current(currentSignal(currentOptions));
      return tools;
    },
    get failures() {
      return live.failures;
    },
    onChange: (listener) => live.onChange(listener),
    close: () => live.close(),
    [Symbol.dispose]: () => live.close(),
  };
}

/** One listed tool as a LangChain tool. */
export function langchainTool(entry: ServerTool, options: LayeredToolCallSettings = {}): DynamicStructuredTool {
  checkLayeredSettings(options, "options");
  // Watched from now on: a call made after the tool left its server's list is not sent.
  toolListWatchOf(entry.client);
  const settings = settingsForServer(options, entry.server);
  const metadata = agentToolMetadata(entry);
  return new DynamicStructuredTool({
    name: entry.name,
    description: agentToolDescription(entry),
    schema: agentInputSchema(entry),
    metadata,
    func: async (input: unknown, _runManager?: unknown, config?: ToolRunnableConfig) => {
      const result = await callAgentTool(entry, input, { ...settings, signal: config?.signal });
      const content = langchainContent(result);
      const toolCallId = config?.toolCall?.id;
      if (toolCallId === undefined) return content;
      return new ToolMessage({
        content,
        artifact: result,
        status: result.isError ? "error" : "success",
        tool_call_id: toolCallId,
        name: entry.name,
        metadata,
      });
    },
  });
}

/** `needsApproval` is the AI SDK's: LangChain has no approval on a tool, and a policy nobody applies must not look applied. */
function refuseApproval(options: LangChainToolsOptions): void {
  if (typeof options === "object" && options !== null && "needsApproval" in options) {
    throw new TypeError(
      'options: "needsApproval" applies to the AI SDK\'s tools (mcpwire/ai); LangChain tools have no approval of their own: ' +
        "read the hints from tool.metadata (readOnlyHint, destructiveHint) in a human-in-the-loop step",
    );
  }
}

/** The content a model reads: the text, or, when the result has media, text and media blocks in order. */
export function langchainContent(result: AgentToolResult): MessageContent {
  const hasMedia = !result.failure && result.content.some((block) => block.type === "image" || block.type === "audio");
  if (!hasMedia) return agentToolText(result);
  return result.content.map((block) => {
    if (block.type === "image" || block.type === "audio") return { type: block.type, mimeType: block.mimeType, data: block.data };
    return { type: "text", text: blockText(block) };
  });
}
