/** `mcpwire/ai`: MCP tools as Vercel AI SDK tools. Needs the `ai` package (6.x), an optional peer dependency. */
export { aiTools, aiTool, aiModelOutput, type AiToolsOptions, type AiToolModelOutput, type McpAiTool } from "./adapters/ai.js";
export type { AgentToolOptions, AgentToolResult, AgentToolSource } from "./adapters/agent-tools.js";
export type { ToolFailure, ToolFailureKind } from "./adapters/tool-failure.js";
export type { ServerTool } from "./adapters/tool-naming.js";
export type { ToolCallSettings, LayeredToolCallSettings } from "./adapters/tool-call-settings.js";
