/**
 * `mcpwire/ai`: MCP tools as Vercel AI SDK tools (`ai` 6).
 *
 * Each tool is a dynamic tool (its types are known at run time only) whose input schema is the
 * server's JSON Schema. Its `execute` always resolves: with the server's result, or with an error
 * result that says why no answer came (timed out, cancelled, connection lost), so the model reads
 * the failure as the outcome of its call and the agent's run goes on. `toModelOutput` gives the
 * model text (media as content parts), and an error result as `error-text`.
 *
 * `aiTools()` is a snapshot of the lists; `aiToolSet()` follows them, through a record the AI
 * SDK reads again at every step. The tools' hints (`readOnlyHint`, `destructiveHint`, ...) travel
 * in `metadata`, and can decide which tools need the AI SDK's tool approval (`needsApproval`).
 */
import { dynamicTool, jsonSchema, type JSONValue, type Tool } from "ai";
import type { McpClient } from "../client/client.js";
import {
  agentInputSchema,
  agentToolDescription,
  agentToolText,
  callAgentTool,
  checkAgentToolOptions,
  listAgentTools,
  type AgentToolOptions,
  type AgentToolResult,
  type AgentToolSource,
} from "./agent-tools.js";
import type { ConnectedServers } from "./connect-all.js";
import { LiveAgentTools, currentSignal, type AgentToolSet } from "./live-tools.js";
import { checkLayeredSettings, settingsForServer, type LayeredToolCallSettings } from "./tool-call-settings.js";
import { toolListWatchOf } from "./tool-list-watch.js";
import { agentToolMetadata, checkApprovalPolicy, needsApproval, type ApprovalPolicy } from "./tool-hints.js";
import type { ServerTool } from "./tool-naming.js";
import { blockText } from "./tool-result-text.js";

/** How one listed tool becomes an AI SDK tool: how its calls run, and whether a person approves them. */
export interface AiToolOptions extends LayeredToolCallSettings {
  /**
   * Which tools the AI SDK asks a person to approve before they run (its tool approval: the run
   * stops with a `tool-approval-request`, and goes on once the application answers with a
   * `tool-approval-response`). `"destructive"`: every tool but those the server marks
   * `readOnlyHint: true` or `destructiveHint: false`; `"not-read-only"`: every tool but those
   * marked `readOnlyHint: true`; `true`: all; or a function of the listed tool. The hints are the
   * server's word: from a server you do not trust, use `true`. @default false (no approval)
   */
  needsApproval?: ApprovalPolicy;
}

export interface AiToolsOptions extends AgentToolOptions, AiToolOptions {}

/** What a tool gives the model (the AI SDK's `ToolResultOutput`, which it does not export by name). */
export type AiToolModelOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;

/** An MCP tool as an AI SDK tool: any input, an `AgentToolResult` out. */
export type McpAiTool = Tool<unknown, AgentToolResult>;

/**
 * The tools of `source` (a client, the servers of `connectAll`, or tools already listed), by the
 * names the model calls them, ready for `generateText({ tools })` and `streamText({ tools })`.
 */
export async function aiTools(source: AgentToolSource, options: AiToolsOptions = {}): Promise<Record<string, McpAiTool>> {
  // First, so that options that are not an object are refused as such, not read.
  checkAgentToolOptions(options);
  checkApprovalPolicy(options.needsApproval, "options");
  const entries = await listAgentTools(source, options);
  // fromEntries defines own properties, so a tool named "__proto__" is a tool like any other.
  return Object.fromEntries(entries.map((entry) => [entry.name, aiTool(entry, options)]));
}

/**
 * AI SDK tools that follow their servers' tool lists (see `AgentToolSet`). `tools` is one record,
 * updated in place when a list changes, so `generateText` and `streamText` offer the new list
 * from their next step; give `prepareStep` too, and each step waits for a listing under way.
 */
export interface McpAiToolSet extends AgentToolSet<Record<string, McpAiTool>> {
  /**
   * For `prepareStep` of `generateText`, `streamText` or a `ToolLoopAgent`: before each step,
   * makes `tools` current (as `current()` does). Never rejects, so a listing that fails does not
   * end the run; it changes nothing else of the step. In a `prepareStep` of your own, call
   * `await set.current()` instead.
   */
  readonly prepareStep: () => Promise<undefined>;
}

/**
 * The tools of a client or of the servers of `connectAll`, following their lists: a server's
 * `notifications/tools/list_changed` (in the 2026-07-28 era, the set opens the `listen()` stream
 * that carries it) or a reconnection lists that server again. A tool that left the list is taken
 * out of `tools`; a call to it made through an older record is not sent, and the model reads that
 * the tool is gone. Close the set (or leave a `using` block) to stop following.
 */
export async function aiToolSet(source: McpClient | ConnectedServers, options: AiToolsOptions = {}): Promise<McpAiToolSet> {
  checkAgentToolOptions(options);
  checkApprovalPolicy(options.needsApproval, "options");
  const tools: Record<string, McpAiTool> = {};
  const live = await LiveAgentTools.open(source, options, (entries) => {
    // In list order, as the model will be offered them; defined, so "__proto__" stays a tool.
    for (const name of Object.keys(tools)) delete tools[name];
    for (const entry of entries) {
      Object.defineProperty(tools, entry.name, { value: aiTool(entry, options), enumerable: true, configurable: true, writable: true });
    }
  });
  return {
    tools,
    async current(currentOptions?: { signal?: AbortSignal }) {
      await live.current(currentSignal(currentOptions));
      return tools;
    },
    prepareStep: async () => {
      await live.current().catch(() => {});
      return undefined;
    },
    get failures() {
      return live.failures;
    },
    onChange: (listener) => live.onChange(listener),
    close: () => live.close(),
    [Symbol.dispose]: () => live.close(),
  };
}

/** One listed tool as an AI SDK tool. */
export function aiTool(entry: ServerTool, options: AiToolOptions = {}): McpAiTool {
  checkLayeredSettings(options, "options");
  checkApprovalPolicy(options.needsApproval, "options");
  // Watched from now on: a call made after the tool left its server's list is not sent.
  toolListWatchOf(entry.client);
  const settings = settingsForServer(options, entry.server);
  const title = entry.tool.title ?? annotationTitle(entry);
  return dynamicTool({
    description: agentToolDescription(entry),
    ...(title === undefined ? {} : { title }),
    metadata: agentToolMetadata(entry),
    inputSchema: jsonSchema(agentInputSchema(entry) as Parameters<typeof jsonSchema>[0]),
    ...(needsApproval(options.needsApproval, entry) ? { needsApproval: true } : {}),
    execute: (input, { abortSignal }) => callAgentTool(entry, input, { ...settings, signal: abortSignal }),
    toModelOutput: ({ output }) => aiModelOutput(output),
  }) as McpAiTool;
}

/** What the model reads of a call's outcome. */
export function aiModelOutput(output: unknown): AiToolModelOutput {
  if (!isAgentToolResult(output)) return { type: "json", value: (output ?? null) as JSONValue };
  if (output.isError) return { type: "error-text", value: agentToolText(output) };
  if (output.content.some((block) => block.type === "image" || block.type === "audio")) {
    return {
      type: "content",
      value: output.content.map((block) => {
        if (block.type === "image") return { type: "image-data" as const, data: block.data, mediaType: block.mimeType };
        if (block.type === "audio") return { type: "file-data" as const, data: block.data, mediaType: block.mimeType };
        return { type: "text" as const, text: blockText(block) };
      }),
    };
  }
  if (output.content.length === 0 && output.structuredContent !== undefined) {
    return { type: "json", value: output.structuredContent as JSONValue };
  }
  return { type: "text", value: agentToolText(output) };
}

function isAgentToolResult(value: unknown): value is AgentToolResult {
  return typeof value === "object" && value !== null && Array.isArray((value as AgentToolResult).content);
}

function annotationTitle(entry: ServerTool): string | undefined {
  const title = (entry.tool.annotations as { title?: unknown } | undefined)?.title;
  return typeof title === "string" ? title : undefined;
}
