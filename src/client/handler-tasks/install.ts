/**
 * The client as the receiver of tasks on one session (basic/utilities/tasks, 2025-11-25): the
 * sampling and elicitation handlers run as tasks when the server asks, the server's `tasks/*`
 * requests are answered, and a task that finishes on its own is announced with
 * `notifications/tasks/status` (which the specification lets a receiver send, and never asks a
 * requestor to wait for).
 *
 * Tasks belong to the session they were made on: the server that polls them is the peer of that
 * connection alone, so `tasks/list` shows it nothing of another's. When the session ends, its
 * running handlers are aborted and its tasks forgotten; a reconnection starts with none.
 */
import { CLIENT_TASK_REVISIONS, TaskNotification } from "../../protocol/tasks.js";
import type { TransportSession } from "../../session/session.js";
import type { PreparedHandler } from "../handler-checks.js";
import { runsAsTaskWhenAsked } from "./run-as-task.js";
import { answerTaskMethods } from "./task-methods.js";
import { HANDLER_TASK_LIMITS, HandlerTaskStore, type HandlerTaskLimits } from "./task-store.js";

/** Installs `prepared` (sampling and elicitation, those set) on `session`, able to run as tasks. */
export function installHandlerTasks(
  session: TransportSession,
  prepared: ReadonlyMap<string, PreparedHandler>,
  limits: HandlerTaskLimits = HANDLER_TASK_LIMITS,
): void {
  const hostsTasks = () => CLIENT_TASK_REVISIONS.includes(session.protocolVersion ?? "");
  const store = new HandlerTaskStore(limits, (task) => {
    // Best-effort: a requestor polls whether or not this arrives.
    session.notify(TaskNotification.status, { ...task }).catch(() => {});
  });
  session.onEnd(() => store.close());
  for (const [method, prepare] of prepared) {
    session.setRequestHandler(method, runsAsTaskWhenAsked(method, prepare, store, hostsTasks));
  }
  answerTaskMethods(session, store, hostsTasks);
}
