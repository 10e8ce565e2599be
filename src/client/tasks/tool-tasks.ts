/**
 * Tool calls that run as tasks, behind one API for both eras: the one-call path of `callTool`
 * (the call is sent as the tool and the caller's options say, and a task is waited for to its
 * result within `timeoutMs`, cancelled on an abort, a timeout or a failure), the handles of
 * `startToolTask` and `task(id)`, and `tasks/list`. The era's wire is chosen per call: a
 * reconnection may have settled another era.
 */
import { Method } from "../../protocol/methods.js";
import { TaskMethod } from "../../protocol/tasks.js";
import type { RequestOptions } from "../../session/session.js";
import { checkLimit } from "../../transport/limits.js";
import { ExtensionTaskWire } from "./extension-task-wire.js";
import { LegacyTaskWire } from "./legacy-task-wire.js";
import type { TaskState } from "./task-state.js";
import { checkTaskOption, planToolCall, type TaskRequest } from "./task-support.js";
import { TaskDeadline } from "./task-timing.js";
import type { TaskHost, TaskRequestOptions, TaskWire } from "./task-wire.js";
import { ToolTask } from "./tool-task.js";

/** The options of one tool call, as `callTool` hands them on. */
export interface TaskAwareCallOptions extends TaskRequestOptions {
  /** Run as a task when the tool allows it (`true`, or a `TaskRequest`); see `ToolCallOptions.task`. */
  task?: boolean | TaskRequest;
  /** Each new state of the task, when the call runs as one. */
  onTaskStatus?: (state: TaskState) => void;
}

/** The options of `startToolTask`: those of the creating request, and the lifetime asked for. */
export interface StartToolTaskOptions extends Omit<RequestOptions, "label"> {
  /** How long the server should keep the task after its creation, in ms (2025-11-25 only; the server may choose another). */
  ttlMs?: number;
  /** Entries added to the `tools/call` request's `params._meta` (see `CallOptions.meta`). */
  meta?: Record<string, unknown>;
}

export class ToolTasks {
  private legacy: LegacyTaskWire | undefined;
  private extension: ExtensionTaskWire | undefined;

  constructor(private readonly host: TaskHost) {}

  /** The wire of the era settled now. */
  readonly wire = (): TaskWire => {
    if (this.host.era.name === "modern") return (this.extension ??= new ExtensionTaskWire(this.host));
    return (this.legacy ??= new LegacyTaskWire(this.host));
  };

  /**
   * One `tools/call` to its final result, raw: a plain call, or a task followed to its end within
   * `timeoutMs` (from the start of the call). A task the caller stops waiting for (an abort, the
   * deadline, any failure before its end) is sent `tasks/cancel`.
   */
  async call(name: string, args: Record<string, unknown>, options: TaskAwareCallOptions): Promise<Record<string, unknown>> {
    const startedAt = performance.now();
    const { task, onTaskStatus, ...send } = options;
    const { label } = send;
    const request = checkTaskOption(task, `${label} options`);
    const timeoutMs = send.timeoutMs === undefined ? this.host.session.limits.timeoutMs : checkLimit("timeoutMs", send.timeoutMs, label);
    const wire = this.wire();
    const planned = this.plan(name, request !== undefined, send);
    const plan = typeof planned === "string" ? planned : await planned;
    const session = this.host.session;
    let token: number | undefined;
    const onDispatch = (id: number) => {
      token = id;
      send.onDispatch?.(id);
    };
    const params = { name, arguments: args };
    let handle: ToolTask | undefined;
    // The bound of a task, from the start of the call; a plain call keeps its own deadline and
    // progress rules, and gets one only if the server answers it with a task.
    let deadline: TaskDeadline | undefined;
    const bound = () => (deadline ??= new TaskDeadline(timeoutMs, send.signal, () => handle?.label ?? label, session.description, startedAt));
    try {
      let raw: Record<string, unknown>;
      if (plan === "plain") {
        raw = await this.host.request(Method.toolsCall, params, { ...send, onDispatch });
      } else {
        const { signal } = bound();
        try {
          raw = await this.host.request(Method.toolsCall, wire.augment(params, request?.ttlMs), {
            ...send,
            signal,
            timeoutMs: Math.max(1, Math.ceil(bound().remaining())),
            onDispatch,
          });
        } catch (error) {
          throw bound().failure(error);
        }
      }
      const created = wire.created(raw, label);
      if (created === undefined) return raw;
      handle = new ToolTask({
        wire: this.wire,
        host: this.host,
        tool: name,
        snapshot: created,
        progress: token === undefined ? undefined : { session, token },
      });
      notify(onTaskStatus, created.state);
      try {
        return await handle.wait(bound(), { onStatus: onTaskStatus, onProgress: send.onProgress });
      } catch (error) {
        await handle.cancelQuietly();
        throw error;
      }
    } finally {
      deadline?.dispose();
    }
  }

  /**
   * Starts a tool as a task and resolves with its handle once the server accepted it (the
   * 2025-11-25 `CreateTaskResult`); in the extension, once the server answered, with a task or
   * with the result itself. Refused (kind `task_unsupported`, nothing sent) where the server or
   * the tool runs no tasks.
   */
  async start(name: string, args: Record<string, unknown>, options: StartToolTaskOptions & { label: string }): Promise<ToolTask> {
    const { ttlMs, ...send } = options;
    const request = checkTaskOption(ttlMs === undefined ? true : { ttlMs }, `${send.label} options`);
    const wire = this.wire();
    const plan = await this.plan(name, true, send);
    const session = this.host.session;
    let token: number | undefined;
    const params = { name, arguments: args };
    const raw = await this.host.request(Method.toolsCall, plan === "task" ? wire.augment(params, request?.ttlMs) : params, {
      ...send,
      onDispatch: (id) => {
        token = id;
        send.onDispatch?.(id);
      },
    });
    const created = wire.created(raw, send.label);
    if (created === undefined) return new ToolTask({ wire: this.wire, host: this.host, tool: name, answer: raw });
    return new ToolTask({
      wire: this.wire,
      host: this.host,
      tool: name,
      snapshot: created,
      progress: token === undefined ? undefined : { session, token },
    });
  }

  /** A handle for a task known by its id (kept from an earlier call or connection); nothing is sent. */
  resume(taskId: string, tool: string | undefined): ToolTask {
    return new ToolTask({ wire: this.wire, host: this.host, taskId, tool });
  }

  /** One page of `tasks/list` (2025-11-25, where the server declares `tasks.list`). */
  listPage(cursor: string | undefined, options: TaskRequestOptions): Promise<{ tasks: TaskState[]; nextCursor?: string }> {
    return this.wire().listPage(cursor, { ...options, label: options.label ?? TaskMethod.list });
  }

  private plan(name: string, asked: boolean, options: Pick<RequestOptions, "signal" | "timeoutMs"> & { label: string }) {
    return planToolCall({
      era: this.host.era.name,
      serverCapabilities: this.host.era.serverCapabilities,
      asked,
      peekTool: () => this.host.peekTool(name),
      findTool: () => this.host.findTool(name, { signal: options.signal, timeoutMs: options.timeoutMs }),
      label: options.label,
      where: this.host.session.description,
    });
  }
}

function notify(listener: ((state: TaskState) => void) | undefined, state: TaskState): void {
  try {
    listener?.(state);
  } catch {
    // A listener's failure is its own.
  }
}
