/**
 * Tasks as their receiver sees them (revision 2025-11-25, basic/utilities/tasks): the methods a
 * requestor polls and cancels with, the status notification, the `_meta` key that ties a result
 * to its task, and the shape of a task. Pure data.
 *
 * A client receives tasks in revision 2025-11-25 only: the server may ask for `sampling/createMessage`
 * and `elicitation/create` to run as tasks. Revision 2026-07-28 moved tasks to an extension
 * (io.modelcontextprotocol/tasks, SEP-2663) in which only servers host them, since no server
 * request may stand outside a client's request there.
 */

/** The requests a requestor sends about its tasks. */
export const TaskMethod = {
  get: "tasks/get",
  result: "tasks/result",
  list: "tasks/list",
  cancel: "tasks/cancel",
} as const;

/** What a receiver may send when a task's status changes; it carries the whole task. */
export const TASK_STATUS_NOTIFICATION = "notifications/tasks/status";

/** The `_meta` key of every message about a task; `tasks/result` MUST carry it in its result. */
export const RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task";

/** The revisions in which a server may ask a client to run a request as a task. */
export const CLIENT_TASK_REVISIONS: readonly string[] = ["2025-11-25"];

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A task as `tasks/get`, `tasks/list`, `tasks/cancel` and the status notification carry it. */
export type Task = {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601, when the task was created. */
  createdAt: string;
  /** ISO 8601, when its status last changed. */
  lastUpdatedAt: string;
  /** How long from creation the task is kept, in ms; null for ever. */
  ttl: number | null;
  /** The polling interval the receiver suggests, in ms. */
  pollInterval?: number;
};

/** `completed`, `failed` and `cancelled` are final: a task in one of them never changes again. */
export function isTerminalStatus(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}
