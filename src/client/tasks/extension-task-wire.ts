/**
 * Tasks in revision 2026-07-28, through the tasks extension (`io.modelcontextprotocol/tasks`,
 * modelcontextprotocol/ext-tasks): the client declares the extension in every request's
 * capabilities, and the server decides per call whether a `tools/call` becomes a task
 * (`resultType: "task"`). `tasks/get` answers with the whole `DetailedTask`: the result once
 * completed, the JSON-RPC error once failed, and the outstanding questions while input is
 * required, which the client answers through its handlers and sends with `tasks/update`. There
 * is no `tasks/result` and no `tasks/list`; `tasks/cancel` is acknowledged with an empty result.
 */
import { schemas } from "../../protocol/schema-registry.js";
import { TaskMethod, TaskNotification, type ExtensionGetTaskResult } from "../../protocol/tasks.js";
import type { EraName } from "../era.js";
import { answerInputRequests } from "../input-rounds.js";
import { matching, parseResult } from "../validate.js";
import { taskFailed, taskUnsupported } from "./task-errors.js";
import { fromExtensionTask } from "./task-state.js";
import type { AnswerContext, TaskHost, TaskRequestOptions, TaskSnapshot, TaskWire } from "./task-wire.js";

export class ExtensionTaskWire implements TaskWire {
  readonly era: EraName = "modern";
  readonly statusNotification = TaskNotification.extension;
  /** Every server of the extension takes `tasks/cancel` (cooperatively). */
  readonly cancels = true;
  readonly resultMethod = TaskMethod.get;

  constructor(private readonly host: TaskHost) {}

  /** Nothing to add: "clients do not signal task preference on the request itself". */
  augment(params: Record<string, unknown>): Record<string, unknown> {
    return params;
  }

  created(raw: Record<string, unknown>, label: string): TaskSnapshot | undefined {
    if (raw.resultType !== "task") return undefined;
    const seed = parseResult(schemas().ExtensionCreateTaskResultSchema, raw, label, this.host.session.description);
    return { state: fromExtensionTask(seed), stateOnly: true };
  }

  async get(taskId: string, options: TaskRequestOptions): Promise<TaskSnapshot> {
    const raw = await this.host.request(TaskMethod.get, { taskId }, options);
    return snapshotOf(parseResult(schemas().ExtensionGetTaskResultSchema, raw, options.label, this.host.session.description));
  }

  notified(params: Record<string, unknown>): TaskSnapshot | undefined {
    const task = matching(schemas().ExtensionTaskNotificationParamsSchema, params);
    return task !== undefined ? snapshotOf(task) : undefined;
  }

  async answer(taskId: string, snapshot: TaskSnapshot, context: AnswerContext): Promise<undefined> {
    // Outstanding questions come again at every poll until answered: each key is answered once.
    const fresh = Object.entries(snapshot.inputRequests ?? {}).filter(([key]) => !context.answered.has(key));
    if (fresh.length === 0) return undefined;
    for (const [key] of fresh) context.answered.add(key);
    try {
      const inputResponses = await answerInputRequests(
        { resultType: "input_required", inputRequests: Object.fromEntries(fresh) },
        context.handlers,
        context.signal,
        context.quick.label,
      );
      await this.host.request(TaskMethod.update, { taskId, inputResponses }, context.quick);
    } catch (error) {
      // Not answered after all: a later wait asks again.
      for (const [key] of fresh) context.answered.delete(key);
      throw error;
    }
    return undefined;
  }

  async finalResult(_taskId: string, snapshot: TaskSnapshot, options: TaskRequestOptions): Promise<Record<string, unknown>> {
    if (snapshot.error !== undefined) throw taskFailed(options.label, this.host.session.description, snapshot.error);
    // The schema of tasks/get makes sure a completed task carries its result; the seed, which
    // carries none, never comes here (the wait asks tasks/get first).
    return snapshot.result!;
  }

  async cancel(taskId: string, options: TaskRequestOptions): Promise<undefined> {
    await this.host.request(TaskMethod.cancel, { taskId }, options);
    return undefined;
  }

  listPage(_cursor: string | undefined, options: TaskRequestOptions): Promise<never> {
    return Promise.reject(
      taskUnsupported(
        `${options.label} is not available: the tasks extension of protocol revision 2026-07-28 has no tasks/list; keep the ids of the tasks you start (task.id)`,
        TaskMethod.list,
      ),
    );
  }
}

function snapshotOf(task: ExtensionGetTaskResult): TaskSnapshot {
  const snapshot: TaskSnapshot = { state: fromExtensionTask(task) };
  if (task.status === "input_required") snapshot.inputRequests = task.inputRequests;
  if (task.status === "completed") snapshot.result = task.result;
  if (task.status === "failed") snapshot.error = task.error;
  return snapshot;
}
