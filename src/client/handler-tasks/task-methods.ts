/**
 * The requests a server sends about the tasks the client runs for it (basic/utilities/tasks,
 * 2025-11-25): `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`, answered from the
 * connection's task store. On a connection whose revision has no tasks they are unknown methods
 * (-32601), as they were before.
 */
import { JSONRPC_METHOD_NOT_FOUND } from "../../protocol/jsonrpc.js";
import { TaskMethod } from "../../protocol/tasks.js";
import type { ServerRequestContext, ServerRequestHandler, TransportSession } from "../../session/session.js";
import type { HandlerTaskStore } from "./task-store.js";

type Answer = (context: ServerRequestContext) => Record<string, unknown> | Promise<Record<string, unknown>>;

export function answerTaskMethods(session: TransportSession, store: HandlerTaskStore, hostsTasks: () => boolean): void {
  const answers: Record<string, Answer> = {
    // tasks/get, tasks/list and tasks/cancel carry no related-task `_meta`: the task id is in the result.
    [TaskMethod.get]: ({ params }) => store.get(params.taskId),
    [TaskMethod.result]: ({ params, signal }) => store.result(params.taskId, signal),
    [TaskMethod.list]: ({ params }) => store.list(params.cursor),
    [TaskMethod.cancel]: ({ params }) => store.cancel(params.taskId),
  };
  for (const [method, answer] of Object.entries(answers)) session.setRequestHandler(method, onlyWithTasks(method, answer, hostsTasks));
}

function onlyWithTasks(method: string, answer: Answer, hostsTasks: () => boolean): ServerRequestHandler {
  return (context) => {
    if (!hostsTasks()) throw { code: JSONRPC_METHOD_NOT_FOUND, message: `Method not found: ${method}` };
    return answer(context);
  };
}
