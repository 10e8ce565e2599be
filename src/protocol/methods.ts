/** MCP method names, so that a typo is a compile error rather than a -32601 at run time. */
export const Method = {
  initialize: "initialize",
  ping: "ping",
  toolsList: "tools/list",
  toolsCall: "tools/call",
  resourcesList: "resources/list",
  resourcesTemplatesList: "resources/templates/list",
  resourcesRead: "resources/read",
  resourcesSubscribe: "resources/subscribe",
  resourcesUnsubscribe: "resources/unsubscribe",
  promptsList: "prompts/list",
  promptsGet: "prompts/get",
  completionComplete: "completion/complete",
  loggingSetLevel: "logging/setLevel",
  samplingCreateMessage: "sampling/createMessage",
  elicitationCreate: "elicitation/create",
  rootsList: "roots/list",
} as const;

export const Notification = {
  initialized: "notifications/initialized",
  cancelled: "notifications/cancelled",
  progress: "notifications/progress",
  message: "notifications/message",
  toolsListChanged: "notifications/tools/list_changed",
  resourcesListChanged: "notifications/resources/list_changed",
  resourceUpdated: "notifications/resources/updated",
  promptsListChanged: "notifications/prompts/list_changed",
  rootsListChanged: "notifications/roots/list_changed",
  elicitationComplete: "notifications/elicitation/complete",
} as const;

/**
 * The levels of `logging/setLevel` and of log messages, RFC 5424's severities, least severe
 * first. Here, without the schema library: the client checks a level given to `setLoggingLevel`
 * before the schemas are loaded (they load on the first connect).
 */
export const LOGGING_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
