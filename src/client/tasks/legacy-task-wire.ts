/**
 * Tasks in revision 2025-11-25 (basic/utilities/tasks): a `tools/call` with `params.task` is
 * answered with a `CreateTaskResult`; `tasks/get` polls; `tasks/result` blocks until the task is
 * terminal and answers exactly what the call would have (a result or a JSON-RPC error), and
 * meanwhile delivers the server's questions (an `input_required` task's elicitation or sampling)
 * as ordinary server-to-client requests, answered by the handlers the session has installed.
 */
import { schemas } from "../../protocol/schema-registry.js";
import { TaskMethod, TaskNotification, type ServerTasksCapability } from "../../protocol/tasks.js";
import type { EraName } from "../era.js";
import { matching, parseResult } from "../validate.js";
import { taskUnsupported } from "./task-errors.js";
import { fromLegacyTask } from "./task-state.js";
import type { AnswerContext, TaskHost, TaskRequestOptions, TaskSnapshot, TaskWire } from "./task-wire.js";

export class LegacyTaskWire implements TaskWire {
  readonly era: EraName = "legacy";
  readonly statusNotification = TaskNotification.status;
  readonly resultMethod = TaskMethod.result;

  constructor(private readonly host: TaskHost) {}

  /** The server's `capabilities.tasks`, when it declares a readable one. */
  get capability(): ServerTasksCapability | undefined {
    return matching(schemas().ServerTasksCapabilitySchema, this.host.era.serverCapabilities.tasks);
  }

  /** Whether the server runs `tools/call` as a task (`tasks.requests.tools.call`). */
  get runsToolCalls(): boolean {
    return this.capability?.requests?.tools?.call !== undefined;
  }

  get cancels(): boolean {
    return this.capability?.cancel !== undefined;
  }

  get lists(): boolean {
    return this.capability?.list !== undefined;
  }

  augment(params: Record<string, unknown>, ttlMs: number | undefined): Record<string, unknown> {
    return { ...params, task: ttlMs === undefined ? {} : { ttl: ttlMs } };
  }

  created(raw: Record<string, unknown>, label: string): TaskSnapshot | undefined {
    // A receiver may ignore the task field and answer with the result itself.
    if (!("task" in raw) || "content" in raw) return undefined;
    const parsed = parseResult(schemas().CreateTaskResultSchema, raw, label, this.host.session.description);
    return { state: fromLegacyTask(parsed.task) };
  }

  async get(taskId: string, options: TaskRequestOptions): Promise<TaskSnapshot> {
    const raw = await this.host.request(TaskMethod.get, { taskId }, options);
    return { state: fromLegacyTask(parseResult(schemas().GetTaskResultSchema, raw, options.label, this.host.session.description)) };
  }

  notified(params: Record<string, unknown>): TaskSnapshot | undefined {
    const task = matching(schemas().TaskStatusNotificationParamsSchema, params);
    return task !== undefined ? { state: fromLegacyTask(task) } : undefined;
  }

  answer(taskId: string, _snapshot: TaskSnapshot, context: AnswerContext): Promise<Record<string, unknown>> {
    // "When the requestor encounters the input_required status, it SHOULD preemptively call tasks/result."
    return this.host.request(TaskMethod.result, { taskId }, context.blocking);
  }

  finalResult(taskId: string, _snapshot: TaskSnapshot, options: TaskRequestOptions): Promise<Record<string, unknown>> {
    return this.host.request(TaskMethod.result, { taskId }, options);
  }

  async cancel(taskId: string, options: TaskRequestOptions) {
    if (!this.cancels) throw taskUnsupported(`${options.label}: the server does not cancel tasks (its capabilities have no tasks.cancel)`, TaskMethod.cancel);
    const raw = await this.host.request(TaskMethod.cancel, { taskId }, options);
    return fromLegacyTask(parseResult(schemas().CancelTaskResultSchema, raw, options.label, this.host.session.description));
  }

  async listPage(cursor: string | undefined, options: TaskRequestOptions) {
    if (!this.lists) throw taskUnsupported(`${options.label}: the server does not list tasks (its capabilities have no tasks.list)`, TaskMethod.list);
    const raw = await this.host.request(TaskMethod.list, cursor === undefined ? undefined : { cursor }, options);
    const page = parseResult(schemas().ListTasksResultSchema, raw, options.label, this.host.session.description);
    const tasks = page.tasks.map(fromLegacyTask);
    return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
  }
}
