/**
 * The `tasks` capability of a client that runs sampling or elicitation as tasks (basic/utilities/tasks,
 * 2025-11-25, "Client Capabilities"): `tasks.requests.sampling.createMessage` only with a sampling
 * handler, `tasks.requests.elicitation.create` only with an elicitation handler, and `list` and
 * `cancel`, which the client answers for the tasks it runs.
 */
import { Method } from "../../protocol/methods.js";

/** Which handlers are set: the only thing the capability depends on. */
export interface TaskableHandlers {
  sampling?: unknown;
  elicitation?: unknown;
}

/** The methods a server may ask a client to run as tasks, by the capability path that declares each. */
export const TASKABLE_METHODS: ReadonlyMap<string, readonly [string, string]> = new Map([
  [Method.samplingCreateMessage, ["sampling", "createMessage"]],
  [Method.elicitationCreate, ["elicitation", "create"]],
]);

/** The `tasks` capability for the handlers set; undefined when no handler can run as a task. */
export function handlerTasksCapability(handlers: TaskableHandlers): Record<string, unknown> | undefined {
  const requests: Record<string, Record<string, unknown>> = {};
  if (handlers.sampling) requests.sampling = { createMessage: {} };
  if (handlers.elicitation) requests.elicitation = { create: {} };
  if (Object.keys(requests).length === 0) return undefined;
  return { list: {}, cancel: {}, requests };
}
