/**
 * A server request run as a task when the server asks (basic/utilities/tasks, 2025-11-25,
 * "Creating Tasks"): the request is answered at once with a `CreateTaskResult`, and the handler
 * runs in the background, its answer kept for `tasks/result`. A request that asks for no task is
 * answered as it always was.
 *
 * The parameters are checked before a task is made, so a bad request is refused (-32602) rather
 * than turned into a failed task; the handler's answer is checked as it is without a task, and an
 * invalid one fails the task with the error the request would have had.
 */
import { JSONRPC_INVALID_PARAMS } from "../../protocol/jsonrpc.js";
import { handlerErrorObject, type HandlerError, type ServerRequestHandler } from "../../session/session.js";
import type { PreparedHandler } from "../handler-checks.js";
import type { HandlerTaskStore } from "./task-store.js";

/**
 * The handler of `method` that runs `prepare` as a task when the request carries `task` and
 * `hostsTasks()` says tasks apply on this connection (a revision that has them); otherwise,
 * plainly, the `task` field ignored as the specification asks of a receiver that declared none.
 */
export function runsAsTaskWhenAsked(
  method: string,
  prepare: PreparedHandler,
  store: HandlerTaskStore,
  hostsTasks: () => boolean,
): ServerRequestHandler {
  return ({ params, signal }) => {
    const asked = hostsTasks() ? requestedTask(params) : undefined;
    const run = prepare(params);
    if (!asked) return run(signal);
    const started = store.create(asked.ttl);
    run(started.signal).then(
      (result) => store.complete(started.taskId, result),
      (error: unknown) => store.fail(started.taskId, handlerErrorObject(error, method)),
    );
    return { task: started.task };
  };
}

/** The `task` field of a request: undefined when absent; -32602 unless an object with an optional non-negative `ttl`. */
function requestedTask(params: Record<string, unknown>): { ttl?: number } | undefined {
  const task = params.task;
  if (task === undefined) return undefined;
  if (typeof task !== "object" || task === null || Array.isArray(task)) throw invalidTask("task must be an object");
  const ttl = (task as Record<string, unknown>).ttl;
  if (ttl === undefined) return {};
  if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl < 0) throw invalidTask("task.ttl must be a non-negative number of milliseconds");
  return { ttl };
}

function invalidTask(what: string): HandlerError {
  return { code: JSONRPC_INVALID_PARAMS, message: `Invalid params: ${what}` };
}
