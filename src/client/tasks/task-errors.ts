/** The failures that belong to tasks, each with its kind (see `McpFailureKind`). */
import { McpTransportError } from "../../errors.js";
import type { TaskError } from "../../protocol/tasks.js";

/** A task asked for, or a task operation, that the server or the tool does not offer; nothing was sent. */
export function taskUnsupported(message: string, method: string): McpTransportError {
  return new McpTransportError("PROTOCOL", message, { kind: "task_unsupported", method });
}

/** The task waited for ended `cancelled`. */
export function taskCancelled(label: string, where: string): McpTransportError {
  return new McpTransportError("PROTOCOL", `${label} ended cancelled, without a result (${where})`, { kind: "task_cancelled", method: "tools/call" });
}

/**
 * A task that ended `failed` with the JSON-RPC error the call would have had: the same failure a
 * plain call answered with that error is (kind `server_error`), the server's words kept apart.
 */
export function taskFailed(label: string, where: string, error: TaskError): McpTransportError {
  return new McpTransportError("PROTOCOL", `${label} failed: the task ended with JSON-RPC error ${error.code} (${where})`, {
    kind: "server_error",
    code: error.code,
    method: "tools/call",
    serverMessage: error.message,
    serverData: error.data,
  });
}

/**
 * A task the server created already finished, that its `tasks/get` then called unfinished: a
 * terminal status never changes, so neither answer can be trusted. Both statuses are names the
 * schema allows, never free text of the server.
 */
export function taskReopened(label: string, where: string, created: string, now: string): McpTransportError {
  return new McpTransportError("PROTOCOL", `${label}: the task was created ${created}, yet tasks/get then answered ${now}; a finished task never changes (${where})`, {
    method: "tasks/get",
  });
}
