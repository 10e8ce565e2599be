/**
 * Tasks in both eras, the names only: methods, notifications, `_meta` keys and statuses of the
 * 2025-11-25 tasks utility (basic/utilities/tasks) and of the 2026-07-28 tasks extension
 * (`io.modelcontextprotocol/tasks`). The shapes are in task-schemas.ts.
 */

export const TaskMethod = {
  /** Both eras: the task's state (in the extension, with its result, error or input requests). */
  get: "tasks/get",
  /** 2025-11-25: the result, once the task is terminal; delivers the server's questions meanwhile. */
  result: "tasks/result",
  /** 2025-11-25: the requestor's tasks, paginated. */
  list: "tasks/list",
  /** Both eras. */
  cancel: "tasks/cancel",
  /** The extension: answers to the input requests of a task that needs input. */
  update: "tasks/update",
} as const;

export const TaskNotification = {
  /** 2025-11-25: a task's status changed (the whole task). */
  status: "notifications/tasks/status",
  /** The extension: a task's status changed (the whole `DetailedTask`), on a `subscriptions/listen` stream. */
  extension: "notifications/tasks",
} as const;

/** The extension's identifier, under `capabilities.extensions` on both sides. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** `_meta` keys of tasks. */
export const TaskMetaKey = {
  /** 2025-11-25: every message that belongs to a task carries `{ taskId }` under it. */
  relatedTask: "io.modelcontextprotocol/related-task",
  /** 2025-11-25: what a host may give its model at once while a tool's task runs (a string). */
  modelImmediateResponse: "io.modelcontextprotocol/model-immediate-response",
} as const;

/** The methods each era has; the other era has none of its own. */
export const LEGACY_TASK_METHODS: ReadonlySet<string> = new Set([TaskMethod.result, TaskMethod.list]);
export const EXTENSION_TASK_METHODS: ReadonlySet<string> = new Set([TaskMethod.update]);

/** The statuses after which a task never changes. */
export const TERMINAL_TASK_STATUSES: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);

export function isTerminalStatus(status: string): boolean {
  return TERMINAL_TASK_STATUSES.has(status);
}

/**
 * The revisions in which a server may ask the client to run a request (`sampling/createMessage`,
 * `elicitation/create`) as a task. The 2026-07-28 extension has only servers host tasks, since no
 * server request may stand outside a client's request there.
 */
export const CLIENT_TASK_REVISIONS: readonly string[] = ["2025-11-25"];

export type {
  TaskStatusName,
  Task,
  CreateTaskResult,
  GetTaskResult,
  ListTasksResult,
  ExtensionTask,
  ExtensionCreateTaskResult,
  ExtensionGetTaskResult,
  ServerTasksCapability,
  ClientTasksCapability,
  TaskMetadata,
  RelatedTaskMetadata,
  TaskError,
} from "./task-schemas.js";
