/** `mcpwire/langchain`: MCP tools as LangChain JS tools. Needs `@langchain/core` (1.x), an optional peer dependency. */
export {
  langchainTools,
  langchainTool,
  langchainToolSet,
  langchainContent,
  type LangChainToolsOptions,
  type McpLangChainToolSet,
} from "./adapters/langchain.js";
export type { AgentToolOptions, AgentToolResult, AgentToolSource } from "./adapters/agent-tools.js";
export type { ToolFailure, ToolFailureKind } from "./adapters/tool-failure.js";
export type { ServerTool } from "./adapters/tool-naming.js";
export type { AgentToolSet } from "./adapters/live-tools.js";
export type { AgentToolMetadata, ApprovalPolicy, ToolHintName } from "./adapters/tool-hints.js";
export type { ToolCallSettings, LayeredToolCallSettings } from "./adapters/tool-call-settings.js";
