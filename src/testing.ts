/**
 * `mcpwire/testing`: what users need to test their own code against MCP servers without one, and
 * their own transports against the contract every transport of mcpwire passes.
 */
export {
  RecordingTransport,
  type Script,
  type ScriptAnswer,
  type ScriptContext,
  type ScriptedError,
  type RecordingOptions,
} from "./transport/recording.js";
export { createMemoryPair, MemoryTransport, type MemoryServerEnd } from "./transport/memory.js";
export {
  transportContract,
  type TransportContractOptions,
  type ContractDescribe,
  type ContractIt,
} from "./testing/transport-contract.js";
export { createContractServer, CONTRACT_SERVER_INFO, type ContractServer } from "./testing/contract-server.js";
