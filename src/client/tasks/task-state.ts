/**
 * A task's state as mcpwire reports it, the same in both eras: the 2025-11-25 `Task` and the
 * extension's (2026-07-28) differ only in the names of two durations (`ttl`/`ttlMs`,
 * `pollInterval`/`pollIntervalMs`), which are given here under the extension's names.
 */
import type { ExtensionTask, Task, TaskStatusName } from "../../protocol/tasks.js";

export interface TaskState {
  /** The server's identifier of the task: keep it to find the task again (`client.task(id)`). */
  taskId: string;
  /** `working` or `input_required`, then one of the terminal `completed`, `failed`, `cancelled`. */
  status: TaskStatusName;
  /** The server's words on the current state (progress, what it waits for, why it failed). */
  statusMessage?: string;
  /** ISO 8601, as the server wrote it. */
  createdAt: string;
  /** ISO 8601, as the server wrote it. */
  lastUpdatedAt: string;
  /** How long after `createdAt` the server keeps the task, in ms; null for unlimited. */
  ttlMs: number | null;
  /** The server's suggested time between polls, in ms. */
  pollIntervalMs?: number;
}

export type { TaskStatusName };

/** A 2025-11-25 task in mcpwire's terms. */
export function fromLegacyTask(task: Task): TaskState {
  return stateOf(task, task.ttl, task.pollInterval);
}

/** A tasks-extension task in mcpwire's terms. */
export function fromExtensionTask(task: ExtensionTask): TaskState {
  return stateOf(task, task.ttlMs, task.pollIntervalMs);
}

function stateOf(task: Task | ExtensionTask, ttlMs: number | null, pollIntervalMs: number | undefined): TaskState {
  const state: TaskState = {
    taskId: task.taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs,
  };
  if (task.statusMessage !== undefined) state.statusMessage = task.statusMessage;
  if (pollIntervalMs !== undefined) state.pollIntervalMs = pollIntervalMs;
  return state;
}

/** Whether `next` says anything `previous` did not: a listener hears each state once. */
export function isNewState(previous: TaskState | undefined, next: TaskState): boolean {
  return (
    previous === undefined ||
    previous.status !== next.status ||
    previous.statusMessage !== next.statusMessage ||
    previous.lastUpdatedAt !== next.lastUpdatedAt
  );
}
