/**
 * The seam between a tool task and the era it runs in: `TaskWire` says how a task is asked
 * for, polled, answered, finished, cancelled and listed; legacy-task-wire.ts (2025-11-25) and
 * extension-task-wire.ts (the 2026-07-28 tasks extension) implement it. `TaskHost` is what the
 * client lends them: its connection, handlers and checks.
 */
import type { McpTransportError } from "../../errors.js";
import type { InputRequiredResult } from "../../protocol/modern.js";
import type { CallToolResult, Tool } from "../../protocol/schemas.js";
import type { TaskError } from "../../protocol/tasks.js";
import type { RequestOptions, TransportSession } from "../../session/session.js";
import type { EraName, ProtocolEra } from "../era.js";
import type { ClientHandlers } from "../handlers.js";
import type { TaskState } from "./task-state.js";

/**
 * Options of one request of a task: those of every request, a label, the caller's `_meta` entries,
 * and `urlElicitationRetry` (see `SentOptions`).
 */
export type TaskRequestOptions = RequestOptions & { label: string; meta?: Record<string, unknown>; urlElicitationRetry?: boolean };

/** What the client lends to its tasks. */
export interface TaskHost {
  /** The era settled with the server: its name, and the server's capabilities. */
  readonly era: ProtocolEra;
  /** The current session: its limits, its description, the progress of a request sent on it. */
  readonly session: TransportSession;
  readonly handlers: ClientHandlers;
  /**
   * One request the way the connection sends it (the era's `_meta`, a reconnection awaited).
   * `onDispatch`, when given, is called in place of `options.onDispatch`: the options are copied
   * once, on the way to the connection, rather than once more to swap one hook.
   */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: TaskRequestOptions,
    onDispatch?: RequestOptions["onDispatch"],
  ): Promise<Record<string, unknown>>;
  /**
   * After a request failed with a -32042 (URL elicitation required): runs the elicitations it
   * lists, then `attempt` once; a second -32042 fails (see url-elicitation.ts).
   */
  afterUrlElicitations<T>(error: McpTransportError, attempt: () => Promise<T>, request: { method: string; label: string; signal?: AbortSignal }): Promise<T>;
  /** A server notification, on this session and the next ones; returns the function that stops it. */
  onNotification(method: string, listener: (params: Record<string, unknown>) => void): () => void;
  /** What the latest tool list says of a tool, when it is known without listing (see `ToolCatalog.peek`). */
  peekTool(name: string): { tool: Tool | undefined } | undefined;
  /**
   * The tool as the latest tool list describes it (listed on demand), or undefined when it is not
   * listed. A listing that fails fails with its error, named for `label` (the call that needed it).
   */
  findTool(name: string, options: Pick<RequestOptions, "signal" | "timeoutMs">, label: string): Promise<Tool | undefined>;
  /** A tool's final result, checked against the MCP schema and, when `validate`, the tool's `outputSchema`. */
  toolResult(
    raw: Record<string, unknown>,
    tool: string | undefined,
    label: string,
    validate: boolean | undefined,
    options: Pick<RequestOptions, "signal" | "timeoutMs">,
  ): Promise<CallToolResult>;
}

/** What one look at a task saw: its state, and in the extension what comes with it. */
export interface TaskSnapshot {
  state: TaskState;
  /** The extension: the questions of an `input_required` task, by the server's keys. */
  inputRequests?: InputRequiredResult["inputRequests"];
  /** The extension: the final result of a `completed` task. */
  result?: Record<string, unknown>;
  /** The extension: the JSON-RPC error of a `failed` task. */
  error?: TaskError;
  /**
   * The state alone, never a result or an error, even when the status is terminal: the
   * extension's `CreateTaskResult`, whose seed status may already be `completed` or `failed`
   * ("typically (though not necessarily) with status working"). A `tasks/get` brings the rest.
   */
  stateOnly?: true;
}

/** What answering a task's questions needs. */
export interface AnswerContext {
  handlers: ClientHandlers;
  /** The keys answered already (the extension repeats outstanding questions at every poll). */
  answered: Set<string>;
  signal: AbortSignal;
  /** For a request that answers at once. */
  quick: TaskRequestOptions;
  /** For a request that may wait for the end of the task (`tasks/result`). */
  blocking: TaskRequestOptions;
}

export interface TaskWire {
  readonly era: EraName;
  /** The notification that carries a task's whole state in this era. */
  readonly statusNotification: string;
  /** Whether the server takes `tasks/cancel`. */
  readonly cancels: boolean;
  /**
   * The method that brings a terminal task's result or error, as messages name it: `tasks/result`
   * in 2025-11-25; `tasks/get` in the extension, which inlines them and has no `tasks/result`.
   */
  readonly resultMethod: string;
  /** The `tools/call` params that ask for a task (the extension has no asking: the server decides). */
  augment(params: Record<string, unknown>, ttlMs: number | undefined): Record<string, unknown>;
  /** The task a `tools/call` answered with, or undefined when it answered with its result. */
  created(raw: Record<string, unknown>, label: string): TaskSnapshot | undefined;
  /** `tasks/get`. */
  get(taskId: string, options: TaskRequestOptions): Promise<TaskSnapshot>;
  /** A status notification's task, or undefined when it is malformed. */
  notified(params: Record<string, unknown>): TaskSnapshot | undefined;
  /**
   * Answers what an `input_required` task asks, through the client's handlers. 2025-11-25: with
   * `tasks/result`, which delivers the questions as requests and answers with the final result
   * (returned). The extension: the answers go in `tasks/update`; undefined is returned, and
   * polling goes on.
   */
  answer(taskId: string, snapshot: TaskSnapshot, context: AnswerContext): Promise<Record<string, unknown> | undefined>;
  /** The final result of a `completed` or `failed` task, or the JSON-RPC error it ended with, thrown. */
  finalResult(taskId: string, snapshot: TaskSnapshot, options: TaskRequestOptions): Promise<Record<string, unknown>>;
  /** `tasks/cancel`; the task as it now is, where the era's answer says. */
  cancel(taskId: string, options: TaskRequestOptions): Promise<TaskState | undefined>;
  /** One page of `tasks/list`. */
  listPage(cursor: string | undefined, options: TaskRequestOptions): Promise<{ tasks: TaskState[]; nextCursor?: string }>;
}
