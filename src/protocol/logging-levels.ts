/**
 * The levels of `logging/setLevel` and of log messages, RFC 5424's severities, least severe
 * first. A file of their own, without the schema library: the client checks a level given to
 * `setLoggingLevel` before the schemas are loaded (they load on the first connect).
 */
export const LOGGING_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
