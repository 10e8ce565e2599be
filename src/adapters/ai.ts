/**
 * `mcpwire/ai`: MCP tools as Vercel AI SDK tools (`ai` 6).
 *
 * Each tool is a dynamic tool (its types are known at run time only) whose input schema is the
 * server's JSON Schema. Its `execute` always resolves: with the server's result, or with an error
 * result that says why no answer came (timed out, cancelled, connection lost), so the model reads
 * the failure as the outcome of its call and the agent's run goes on. `toModelOutput` gives the
 * model text (media as content parts), and an error result as `error-text`.
 */
import { dynamicTool, jsonSchema, type JSONValue, type Tool } from "ai";
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
import { checkLayeredSettings, settingsForServer, type LayeredToolCallSettings } from "./tool-call-settings.js";
import type { ServerTool } from "./tool-naming.js";
import { blockText } from "./tool-result-text.js";

export type AiToolsOptions = AgentToolOptions;

/** What a tool gives the model (the AI SDK's `ToolResultOutput`, which it does not export by name). */
export type AiToolModelOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;

/** An MCP tool as an AI SDK tool: any input, an `AgentToolResult` out. */
export type McpAiTool = Tool<unknown, AgentToolResult>;

/**
 * The tools of `source` (a client, the servers of `connectAll`, or tools already listed), by the
 * names the model calls them, ready for `generateText({ tools })` and `streamText({ tools })`.
 */
export async function aiTools(source: AgentToolSource, options: AiToolsOptions = {}): Promise<Record<string, McpAiTool>> {
  const entries = await listAgentTools(source, options);
  // fromEntries defines own properties, so a tool named "__proto__" is a tool like any other.
  return Object.fromEntries(entries.map((entry) => [entry.name, aiTool(entry, options)]));
}

/** One listed tool as an AI SDK tool. */
export function aiTool(entry: ServerTool, options: LayeredToolCallSettings = {}): McpAiTool {
  checkLayeredSettings(options, "options");
  const settings = settingsForServer(options, entry.server);
  const title = entry.tool.title ?? annotationTitle(entry);
  return dynamicTool({
    description: agentToolDescription(entry),
    ...(title === undefined ? {} : { title }),
    metadata: { mcpServer: entry.server, mcpTool: entry.tool.name },
    inputSchema: jsonSchema(agentInputSchema(entry) as Parameters<typeof jsonSchema>[0]),
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
