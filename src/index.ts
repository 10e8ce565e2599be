/**
 * mcpwire: an MCP client that reaches Model Context Protocol servers over every transport.
 * Everything here is public API; anything not exported here is internal.
 */
export { connect, resolveTarget, type ConnectTarget, type ConnectOptions } from "./connect.js";
export { transportFor, type TransportExtras } from "./config/transport-for.js";
export { TRANSPORT_OPTION_NAMES, type TransportOptions } from "./config/transport-options.js";
export {
  parseServerConfig,
  ConfigError,
  TRANSPORT_NAMES,
  type McpServerConfig,
  type RegisteredServerConfig,
  type TransportName,
  type RedirectPolicy,
  type OAuthSettings,
} from "./config/server-config.js";
export { registerTransport, type TransportFactory, type TransportFactoryContext, type TransportRegistration } from "./config/transport-registry.js";
export { readServersFile, parseServersFile, type ServersFile } from "./config/mcp-servers-file.js";
export { loadServerConfig, loadServersFile, type LoadOptions } from "./config/load.js";
export { configFileCandidates } from "./config/locations.js";
export { applyEnvOverrides, envPrefixFor, ENV_PREFIX } from "./config/env-overrides.js";
export { splitCommandLine } from "./config/shell-words.js";
export { rememberedEra, forgetEras, DEFAULT_PROBE_TIMEOUT_MS, type ProtocolChoice } from "./client/era-negotiation.js";
export type { EraName } from "./client/era.js";
export type { SubscriptionFilter } from "./client/subscriptions.js";
export {
  McpClient,
  CLIENT_OPTION_NAMES,
  DEFAULT_MAX_PAGES,
  type ClientOptions,
  type CallOptions,
  type PageOptions,
  type ToolCallOptions,
  type TaskPageOptions,
  type RawRequestOptions,
  type NotifyOptions,
} from "./client/client.js";
export { ToolTask, type TaskWaitOptions, type TaskCallOptions } from "./client/tasks/tool-task.js";
export type { StartToolTaskOptions } from "./client/tasks/tool-tasks.js";
export type { TaskState, TaskStatusName } from "./client/tasks/task-state.js";
export type { TaskRequest } from "./client/tasks/task-support.js";
export { DEFAULT_TASK_POLL_INTERVAL_MS, MIN_TASK_POLL_INTERVAL_MS, TASK_CANCEL_TIMEOUT_MS } from "./client/tasks/task-timing.js";
export { TASKS_EXTENSION, TaskMethod, TaskNotification, TaskMetaKey } from "./protocol/tasks.js";
export type { StandardSchemaV1 } from "./client/validate.js";
export type {
  ClientHandlers,
  ClientCapabilities,
  SamplingHandler,
  SamplingRequest,
  ElicitationHandler,
  ElicitationRequest,
  RootsHandler,
  RootsRequest,
} from "./client/handlers.js";
export type {
  ElicitationHandlers,
  FormElicitationHandler,
  FormElicitationRequest,
  UrlElicitationHandler,
  UrlElicitationRequest,
  UrlElicitationResult,
} from "./client/elicitation.js";
export { MAX_PENDING_COMPLETIONS, type ElicitationCompletion } from "./client/elicitation-completions.js";
export type { SamplingHandlers } from "./client/sampling.js";
export { HANDLER_NAMES } from "./client/handler-options.js";
export { URL_ELICITATION_REQUIRED } from "./protocol/error-codes.js";
export { applyElicitationDefaults } from "./client/elicitation-defaults.js";
export { HANDLER_TASK_LIMITS, type HandlerTaskLimits } from "./client/handler-tasks/task-store.js";
export { DEFAULT_RECONNECT, type ReconnectOptions } from "./client/reconnect.js";
export {
  TransportSession,
  type SessionOptions,
  type RequestOptions,
  type Progress,
  type ServerRequestContext,
  type ServerRequestHandler,
  type NotificationListener,
  type HandlerError,
} from "./session/session.js";
export {
  McpTransportError,
  FAILURE_REASONS,
  FAILURE_KINDS,
  AUTH_STEPS,
  isMcpTransportError,
  type McpFailureReason,
  type McpFailureKind,
  type McpAuthStep,
  type McpTransportErrorDetails,
} from "./errors.js";
export {
  isMcpTransport,
  type McpTransport,
  type McpConnection,
  type ConnectionEvents,
  type ConnectionEnding,
  type OpenOptions,
  type SendContext,
  type WireRules,
} from "./transport/transport.js";
export { DEFAULT_LIMITS, resolveLimits, checkOutgoingSize, messageTooLarge, type Limits } from "./transport/limits.js";
export { ReadStallWatch } from "./transport/common/read-stall.js";
export { parseMessage } from "./protocol/jsonrpc.js";
export {
  StdioTransport,
  DEFAULT_ENV_ALLOW_POSIX,
  DEFAULT_ENV_ALLOW_WINDOWS,
  DEFAULT_STDERR_TAIL_BYTES,
  DEFAULT_STDERR_TAIL_LINES,
  DEFAULT_STDIN_CLOSE_GRACE_MS,
  DEFAULT_TERMINATE_GRACE_MS,
  defaultEnvAllow,
  type StdioTransportOptions,
  type StderrDestination,
  type NonProtocolLines,
} from "./transport/stdio/stdio.js";
export { MemoryTransport, createMemoryPair, type InProcessServer, type MemoryServerEnd } from "./transport/memory.js";
export {
  WebSocketTransport,
  WebSocketCloseError,
  WEBSOCKET_SUBPROTOCOL,
  DEFAULT_UPGRADE_TIMEOUT_MS,
  DEFAULT_CLOSE_TIMEOUT_MS,
  DEFAULT_KEEPALIVE_INTERVAL_MS,
  DEFAULT_KEEPALIVE_TIMEOUT_MS,
  type WebSocketOptions,
  type WebSocketHeaders,
  type WebSocketHeadersContext,
  type KeepAliveOptions,
} from "./transport/websocket/websocket.js";
export {
  RecordingTransport,
  type Script,
  type ScriptAnswer,
  type ScriptContext,
  type ScriptedError,
  type RecordingOptions,
} from "./transport/recording.js";
export {
  StreamableHttpTransport,
  CANCEL_NOTICE_TIMEOUT_MS,
  DELETE_TIMEOUT_MS,
  RESPONSE_STREAM_LINGER_MS,
  MAX_STREAM_RECONNECTS,
  type StreamableHttpOptions,
  type HeadersOption,
} from "./transport/http/streamable-http.js";
export { SseTransport, type SseOptions } from "./transport/http/sse.js";
export { HttpTransport, FALLBACK_STATUSES } from "./transport/http/http-fallback.js";
export type { HttpEndpointOptions } from "./transport/http/http-options.js";
/**
 * Proxies and TLS, the same for every network transport (Streamable HTTP, legacy HTTP+SSE,
 * WebSocket) and the OAuth requests: `proxy` (a URL, or `false`) over HTTPS_PROXY, HTTP_PROXY
 * and NO_PROXY; `ca` (added to the default trust), `cert`, `key` and `passphrase`.
 */
export type { ProxyOption, ProxyEnvironment } from "./transport/net/proxy-rules.js";
export { TLS_OPTION_NAMES, type TlsOptions, type PemSource } from "./transport/net/tls-options.js";
export type { FetchLike, FetchLikeResponse } from "./transport/http/http-client.js";
export type { RedirectMode } from "./transport/http/endpoint-policy.js";
export type { AuthProvider, AuthRequest, AuthRefusal, HttpAccess } from "./transport/http/auth-provider.js";
export { parseWwwAuthenticate, type AuthChallenge } from "./transport/http/www-authenticate.js";
export { oauth, REFRESH_MARGIN_MS, type OAuthOptions } from "./auth/oauth.js";
export {
  clientCredentials,
  workloadIdentity,
  enterpriseManaged,
  type ClientCredentialsOptions,
  type WorkloadIdentityOptions,
  type EnterpriseManagedOptions,
} from "./auth/machine-flows.js";
export type { StringSource } from "./auth/machine-options.js";
export type { PrivateKeyInput } from "./auth/client-assertion.js";
export type { AuthorizeFunction } from "./auth/authorization-code.js";
export type { RedirectUriOption } from "./auth/oauth-options.js";
export {
  memoryTokenStore,
  fileTokenStore,
  defaultTokenDirectory,
  type TokenStore,
  type TokenStoreKey,
  type StoredCredentials,
  type StoredClient,
  type StoredTokens,
} from "./auth/token-store.js";
export {
  LEGACY_REVISIONS,
  MODERN_REVISIONS,
  LATEST_LEGACY_REVISION,
  LATEST_MODERN_REVISION,
  type LegacyRevision,
  type ModernRevision,
  type Revision,
} from "./protocol/revisions.js";
export type { DiscoverResult } from "./protocol/modern.js";
export type {
  JsonRpcMessage,
  JsonRpcRequest,
  JsonRpcNotification,
  JsonRpcResponse,
  JsonRpcSuccess,
  JsonRpcFailure,
  JsonRpcErrorObject,
  RequestId,
} from "./protocol/jsonrpc.js";
export type * from "./protocol/schemas.js";
export type * from "./protocol/task-schemas.js";
export {
  connectAll,
  type ConnectAllOptions,
  type ConnectedServers,
  type ListAllToolsOptions,
  type AllTools,
} from "./adapters/connect-all.js";
export type { ToolCallSettings, LayeredToolCallSettings } from "./adapters/tool-call-settings.js";
export {
  nameServerTools,
  sanitizeToolName,
  MAX_TOOL_NAME_LENGTH,
  DEFAULT_TOOL_NAME_SEPARATOR,
  type ServerTool,
  type ServerToolList,
  type ToolNamingOptions,
} from "./adapters/tool-naming.js";
/**
 * stdio to HTTP (`mcpwire gateway <target> --listen host:port`): a stdio server served over
 * Streamable HTTP, both protocol eras on one endpoint (README, "The gateway").
 * `createGateway(options)` returns `{ handler, listen, close }`.
 */
export { createGateway, type Gateway, type GatewayChildren, type GatewayChildrenFactory, type GatewayParts } from "./gateway/gateway.js";
export { GATEWAY_DEFAULTS, type GatewayOptions, type GatewayTarget, type LegacyMode, type Principal } from "./gateway/gateway-options.js";
export { GATEWAY_OPTION_NAMES } from "./gateway/check-options.js";
export type { GatewayHandler } from "./gateway/http/handler.js";
export type { Relay, RequestSink } from "./gateway/relay.js";
export type { SessionChild, SessionChildOwner, OpenSessionChild } from "./gateway/sessions/session-child.js";
/**
 * The values of the 2026-07-28 `Mcp-Name` and `Mcp-Param-{Name}` headers, for a server or an
 * intermediary of one's own: `headerParamsOf(inputSchema)` gives the arguments a tool mirrors
 * (or why the tool is invalid), `encodeHeaderValue` and `decodeHeaderValue` the Base64 sentinel
 * form, `argumentAt` the argument at a property path. The gateway checks callers' headers with them.
 */
export { argumentAt, decodeHeaderValue, encodeHeaderValue, headerParamsOf, type HeaderParam } from "./protocol/header-values.js";
/**
 * HTTP to stdio (`mcpwire gateway <url> --stdio`): a remote server served on a host's stdin and
 * stdout, as a transparent relay over any transport (README, "The gateway").
 */
export { startStdioBridge, type StdioBridge } from "./gateway/bridge/stdio-bridge.js";
export { MAX_SESSION_RENEWALS, STDIN_END_DRAIN_MS, STDIO_BRIDGE_DEFAULTS, type StdioBridgeOptions } from "./gateway/bridge/bridge-options.js";
export type { BridgeFailureData } from "./gateway/bridge/failure-answer.js";
