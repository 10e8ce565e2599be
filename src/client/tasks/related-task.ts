/**
 * 2025-11-25, "Associating Task-Related Messages": a request that belongs to a task carries
 * `_meta["io.modelcontextprotocol/related-task"]`, and so must its response. A server asks the
 * client such questions while a tool task needs input (delivered through `tasks/result`); the
 * client's answer then names the same task.
 */
import { schemas } from "../../protocol/schema-registry.js";
import { matching } from "../validate.js";
import { TaskMetaKey } from "../../protocol/tasks.js";
import type { PreparedHandler } from "../handler-checks.js";

/** `prepare`, whose answer to a request of a task carries that task's id in its `_meta`. */
export function relatedToTask(prepare: PreparedHandler): PreparedHandler {
  return (params) => {
    const run = prepare(params);
    return async (signal) => {
      const result = await run(signal);
      const meta = params._meta as Record<string, unknown> | undefined;
      const related = matching(schemas().RelatedTaskMetadataSchema, meta?.[TaskMetaKey.relatedTask]);
      if (related === undefined) return result;
      const own = result._meta as Record<string, unknown> | undefined;
      return { ...result, _meta: { ...own, [TaskMetaKey.relatedTask]: { taskId: related.taskId } } };
    };
  };
}
