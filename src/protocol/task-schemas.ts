/**
 * The shapes of tasks, in both eras: the 2025-11-25 tasks utility (basic/utilities/tasks) and the
 * tasks extension of revision 2026-07-28 (`io.modelcontextprotocol/tasks`, modelcontextprotocol/
 * ext-tasks). Loaded with the other schemas (see schema-registry.ts); the names and constants
 * that need no schema library are in tasks.ts.
 *
 * Both directions use them: the client as the requestor of a task-augmented `tools/call`, and
 * the client as the receiver of a task-augmented `sampling/createMessage` or `elicitation/create`.
 * As elsewhere, objects are loose: unknown fields are kept, required ones are checked.
 */
import { loose, oneOf, v, type Infer } from "./valita.js";
import { InputRequestSchema } from "./modern-schemas.js";

const Meta = v.record(v.unknown()).optional();

/** working, input_required, then one of the terminal three (completed, failed, cancelled). */
export const TaskStatusNameSchema = oneOf("working", "input_required", "completed", "failed", "cancelled");

// --- 2025-11-25: the tasks utility

/** `params.task` of a task-augmented request: the lifetime the requestor asks for. */
export const TaskMetadataSchema = loose({
  /** Requested retention from creation, in ms. */
  ttl: v.number().optional(),
});

/** A task's state (2025-11-25 `Task`). */
export const TaskSchema = loose({
  taskId: v.string(),
  status: TaskStatusNameSchema,
  statusMessage: v.string().optional(),
  /** ISO 8601. */
  createdAt: v.string(),
  /** ISO 8601. */
  lastUpdatedAt: v.string(),
  /** Retention from creation in ms, null for unlimited. */
  ttl: v.number().nullable(),
  /** Suggested time between `tasks/get` polls, in ms. */
  pollInterval: v.number().optional(),
});

/** The answer to a task-augmented request: the task, not yet its result. */
export const CreateTaskResultSchema = loose({ task: TaskSchema, _meta: Meta });

/** `tasks/get` (and `tasks/cancel`, which answers with the task as it now is). */
export const GetTaskResultSchema = TaskSchema.extend({ _meta: Meta });
export const CancelTaskResultSchema = GetTaskResultSchema;

export const ListTasksResultSchema = loose({
  tasks: v.array(TaskSchema),
  nextCursor: v.string().optional(),
  _meta: Meta,
});

/** `notifications/tasks/status`: the whole task. */
export const TaskStatusNotificationParamsSchema = GetTaskResultSchema;

/** `_meta["io.modelcontextprotocol/related-task"]` of every message that belongs to a task. */
export const RelatedTaskMetadataSchema = loose({ taskId: v.string() });

/** A server's `capabilities.tasks`: which of its requests may be task-augmented, and whether it lists and cancels. */
export const ServerTasksCapabilitySchema = loose({
  list: loose({}).optional(),
  cancel: loose({}).optional(),
  requests: loose({ tools: loose({ call: loose({}).optional() }).optional() }).optional(),
});

/** A client's `capabilities.tasks`: which server-to-client requests it runs as tasks. */
export const ClientTasksCapabilitySchema = loose({
  list: loose({}).optional(),
  cancel: loose({}).optional(),
  requests: loose({
    sampling: loose({ createMessage: loose({}).optional() }).optional(),
    elicitation: loose({ create: loose({}).optional() }).optional(),
  }).optional(),
});

// --- 2026-07-28: the tasks extension

/** A task's state in the extension: `ttlMs` and `pollIntervalMs` in place of `ttl` and `pollInterval`. */
export const ExtensionTaskSchema = loose({
  taskId: v.string(),
  status: TaskStatusNameSchema,
  statusMessage: v.string().optional(),
  createdAt: v.string(),
  lastUpdatedAt: v.string(),
  /** Retention from creation in ms, null for unlimited. */
  ttlMs: v.number().nullable(),
  /** Suggested time between `tasks/get` polls, in ms. */
  pollIntervalMs: v.number().optional(),
});

/** A supported request answered with a task instead of its result (`resultType: "task"`), flat. */
export const ExtensionCreateTaskResultSchema = ExtensionTaskSchema.extend({ resultType: v.literal("task"), _meta: Meta });

/** The JSON-RPC error a failed task carries. */
export const TaskErrorSchema = loose({ code: v.number(), message: v.string(), data: v.unknown().optional() });

/**
 * `tasks/get` in the extension (a `DetailedTask`): the state, and what goes with the status:
 * `inputRequests` while input is required, `result` once completed, `error` once failed.
 */
export const ExtensionGetTaskResultSchema = ExtensionTaskSchema.extend({
  inputRequests: v.record(InputRequestSchema).optional(),
  result: v.record(v.unknown()).optional(),
  error: TaskErrorSchema.optional(),
  _meta: Meta,
})
  .check((task) => task.status !== "input_required" || task.inputRequests !== undefined, {
    message: "an input_required task carries inputRequests",
    path: ["inputRequests"],
  })
  .check((task) => task.status !== "completed" || task.result !== undefined, { message: "a completed task carries result", path: ["result"] })
  .check((task) => task.status !== "failed" || task.error !== undefined, { message: "a failed task carries error", path: ["error"] });

/** `notifications/tasks`: the same `DetailedTask` a `tasks/get` would return at that moment. */
export const ExtensionTaskNotificationParamsSchema = ExtensionGetTaskResultSchema;

export type TaskStatusName = Infer<typeof TaskStatusNameSchema>;
export type TaskMetadata = Infer<typeof TaskMetadataSchema>;
export type Task = Infer<typeof TaskSchema>;
export type CreateTaskResult = Infer<typeof CreateTaskResultSchema>;
export type GetTaskResult = Infer<typeof GetTaskResultSchema>;
export type CancelTaskResult = Infer<typeof CancelTaskResultSchema>;
export type ListTasksResult = Infer<typeof ListTasksResultSchema>;
export type RelatedTaskMetadata = Infer<typeof RelatedTaskMetadataSchema>;
export type ServerTasksCapability = Infer<typeof ServerTasksCapabilitySchema>;
export type ClientTasksCapability = Infer<typeof ClientTasksCapabilitySchema>;
export type ExtensionTask = Infer<typeof ExtensionTaskSchema>;
export type ExtensionCreateTaskResult = Infer<typeof ExtensionCreateTaskResultSchema>;
export type ExtensionGetTaskResult = Infer<typeof ExtensionGetTaskResultSchema>;
export type TaskError = Infer<typeof TaskErrorSchema>;
