/** `mcpwire/testing`: what users need to test their own code against MCP servers without one. */
export {
  RecordingTransport,
  type Script,
  type ScriptAnswer,
  type ScriptContext,
  type ScriptedError,
  type RecordingOptions,
} from "./transport/recording.js";
export { createMemoryPair, MemoryTransport, type MemoryServerEnd } from "./transport/memory.js";
