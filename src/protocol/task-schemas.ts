/**
 * The shapes of tasks, in both eras: the 2025-11-25 tasks utility (basic/utilities/tasks) and the
 * tasks extension of revision 2026-07-28 (`io.modelcontextprotocol/tasks`, modelcontextprotocol/
 * ext-tasks). Loaded with the other schemas (see schema-registry.ts); the names and constants
 * that need no zod are in tasks.ts.
 *
 * Both directions use them: the client as the requestor of a task-augmented `tools/call`, and
 * the client as the receiver of a task-augmented `sampling/createMessage` or `elicitation/create`.
 * As elsewhere, objects are loose: unknown fields are kept, required ones are checked.
 */
import { z } from "zod";
import { InputRequestSchema } from "./modern-schemas.js";

const Meta = z.record(z.string(), z.unknown()).optional();

/** working, input_required, then one of the terminal three (completed, failed, cancelled). */
export const TaskStatusNameSchema = z.enum(["working", "input_required", "completed", "failed", "cancelled"]);

// --- 2025-11-25: the tasks utility

/** `params.task` of a task-augmented request: the lifetime the requestor asks for. */
export const TaskMetadataSchema = z.looseObject({
  /** Requested retention from creation, in ms. */
  ttl: z.number().optional(),
});

/** A task's state (2025-11-25 `Task`). */
export const TaskSchema = z.looseObject({
  taskId: z.string(),
  status: TaskStatusNameSchema,
  statusMessage: z.string().optional(),
  /** ISO 8601. */
  createdAt: z.string(),
  /** ISO 8601. */
  lastUpdatedAt: z.string(),
  /** Retention from creation in ms, null for unlimited. */
  ttl: z.number().nullable(),
  /** Suggested time between `tasks/get` polls, in ms. */
  pollInterval: z.number().optional(),
});

/** The answer to a task-augmented request: the task, not yet its result. */
export const CreateTaskResultSchema = z.looseObject({ task: TaskSchema, _meta: Meta });

/** `tasks/get` (and `tasks/cancel`, which answers with the task as it now is). */
export const GetTaskResultSchema = TaskSchema.extend({ _meta: Meta });
export const CancelTaskResultSchema = GetTaskResultSchema;

export const ListTasksResultSchema = z.looseObject({
  tasks: z.array(TaskSchema),
  nextCursor: z.string().optional(),
  _meta: Meta,
});

/** `notifications/tasks/status`: the whole task. */
export const TaskStatusNotificationParamsSchema = GetTaskResultSchema;

/** `_meta["io.modelcontextprotocol/related-task"]` of every message that belongs to a task. */
export const RelatedTaskMetadataSchema = z.looseObject({ taskId: z.string() });

/** A server's `capabilities.tasks`: which of its requests may be task-augmented, and whether it lists and cancels. */
export const ServerTasksCapabilitySchema = z.looseObject({
  list: z.looseObject({}).optional(),
  cancel: z.looseObject({}).optional(),
  requests: z.looseObject({ tools: z.looseObject({ call: z.looseObject({}).optional() }).optional() }).optional(),
});

/** A client's `capabilities.tasks`: which server-to-client requests it runs as tasks. */
export const ClientTasksCapabilitySchema = z.looseObject({
  list: z.looseObject({}).optional(),
  cancel: z.looseObject({}).optional(),
  requests: z
    .looseObject({
      sampling: z.looseObject({ createMessage: z.looseObject({}).optional() }).optional(),
      elicitation: z.looseObject({ create: z.looseObject({}).optional() }).optional(),
    })
    .optional(),
});

// --- 2026-07-28: the tasks extension

/** A task's state in the extension: `ttlMs` and `pollIntervalMs` in place of `ttl` and `pollInterval`. */
export const ExtensionTaskSchema = z.looseObject({
  taskId: z.string(),
  status: TaskStatusNameSchema,
  statusMessage: z.string().optional(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  /** Retention from creation in ms, null for unlimited. */
  ttlMs: z.number().nullable(),
  /** Suggested time between `tasks/get` polls, in ms. */
  pollIntervalMs: z.number().optional(),
});

/** A supported request answered with a task instead of its result (`resultType: "task"`), flat. */
export const ExtensionCreateTaskResultSchema = ExtensionTaskSchema.extend({ resultType: z.literal("task"), _meta: Meta });

/** The JSON-RPC error a failed task carries. */
export const TaskErrorSchema = z.looseObject({ code: z.number(), message: z.string(), data: z.unknown().optional() });

/**
 * `tasks/get` in the extension (a `DetailedTask`): the state, and what goes with the status:
 * `inputRequests` while input is required, `result` once completed, `error` once failed.
 */
export const ExtensionGetTaskResultSchema = ExtensionTaskSchema.extend({
  inputRequests: z.record(z.string(), InputRequestSchema).optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: TaskErrorSchema.optional(),
  _meta: Meta,
}).superRefine((task, context) => {
  const missing =
    task.status === "input_required" && task.inputRequests === undefined
      ? "inputRequests"
      : task.status === "completed" && task.result === undefined
        ? "result"
        : task.status === "failed" && task.error === undefined
          ? "error"
          : undefined;
  if (missing !== undefined) context.addIssue({ code: "custom", path: [missing], message: `a ${task.status} task carries ${missing}` });
});

/** `notifications/tasks`: the same `DetailedTask` a `tasks/get` would return at that moment. */
export const ExtensionTaskNotificationParamsSchema = ExtensionGetTaskResultSchema;

export type TaskStatusName = z.infer<typeof TaskStatusNameSchema>;
export type TaskMetadata = z.infer<typeof TaskMetadataSchema>;
export type Task = z.infer<typeof TaskSchema>;
export type CreateTaskResult = z.infer<typeof CreateTaskResultSchema>;
export type GetTaskResult = z.infer<typeof GetTaskResultSchema>;
export type CancelTaskResult = z.infer<typeof CancelTaskResultSchema>;
export type ListTasksResult = z.infer<typeof ListTasksResultSchema>;
export type RelatedTaskMetadata = z.infer<typeof RelatedTaskMetadataSchema>;
export type ServerTasksCapability = z.infer<typeof ServerTasksCapabilitySchema>;
export type ClientTasksCapability = z.infer<typeof ClientTasksCapabilitySchema>;
export type ExtensionTask = z.infer<typeof ExtensionTaskSchema>;
export type ExtensionCreateTaskResult = z.infer<typeof ExtensionCreateTaskResultSchema>;
export type ExtensionGetTaskResult = z.infer<typeof ExtensionGetTaskResultSchema>;
export type TaskError = z.infer<typeof TaskErrorSchema>;
