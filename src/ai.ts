/** `mcpwire/ai`: MCP tools as Vercel AI SDK tools. Needs the `ai` package (6.x), an optional peer dependency. */
export {
  aiTools,
  aiTool,
  aiToolSet,
  aiModelOutput,
  type AiToolsOptions,
  type AiToolOptions,
  type AiToolModelOutput,
  type McpAiTool,
  type McpAiToolSet,
} from "./adapters/ai.js";
export type { AgentToolOptions, AgentToolResult, AgentToolSource } from "./adapters/agent-tools.js";
export type { ToolFailure, ToolFailureKind } from "./adapters/tool-failure.js";
export type { ServerTool } from "./adapters/tool-naming.js";
export type { AgentToolSet } from "./adapters/live-tools.js";
export type { AgentToolMetadata, ApprovalPolicy, ToolHintName } from "./adapters/tool-hints.js";
export type { ToolCallSettings, LayeredToolCallSettings } from "./adapters/tool-call-settings.js";
