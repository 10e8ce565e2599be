/**
 * Tool calls that run as tasks, behind one API for both eras: the one-call path of `callTool`
 * (the call is sent as the tool and the caller's options say, and a task is waited for to its
 * result within `timeoutMs`, cancelled on an abort, a timeout or a failure), the handles of
 * `startToolTask` and `task(id)`, and `tasks/list`. The era's wire is chosen per call: a
 * reconnection may have settled another era.
 */
import type { McpTransportError } from "../../errors.js";
import { Method } from "../../protocol/methods.js";
import { TaskMethod } from "../../protocol/tasks.js";
import type { RequestOptions } from "../../session/session.js";
import { checkLimit } from "../../transport/limits.js";
import { isUrlElicitationRequired } from "../url-elicitation.js";
import { ExtensionTaskWire } from "./extension-task-wire.js";
import { LegacyTaskWire } from "./legacy-task-wire.js";
import type { TaskState } from "./task-state.js";
import { checkTaskOption, planToolCall, type TaskRequest, type ToolCallPlan } from "./task-support.js";
import { TaskDeadline } from "./task-timing.js";
import type { TaskHost, TaskRequestOptions, TaskSnapshot, TaskWire } from "./task-wire.js";
import { ToolTask } from "./tool-task.js";

/** The options of one tool call, as `callTool` hands them on. */
export interface TaskAwareCallOptions extends TaskRequestOptions {
  /** Run as a task when the tool allows it (`true`, or a `TaskRequest`); see `ToolCallOptions.task`. */
  task?: boolean | TaskRequest;
  /** Each new state of the task, when the call runs as one. */
  onTaskStatus?: (state: TaskState) => void;
}

/** The options of `startToolTask`: those of the creating request, and the lifetime asked for. */
export interface StartToolTaskOptions extends Omit<RequestOptions, "label" | "onLateResult"> {
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
   *
   * A call that is plain by the plan (most are) goes to the connection with no layer of its own
   * but the look at its answer, which a modern server may make a task.
   */
  call(name: string, args: Record<string, unknown>, options: TaskAwareCallOptions): Promise<Record<string, unknown>> {
    const startedAt = performance.now();
    let request: TaskRequest | undefined;
    let planned: ToolCallPlan | Promise<ToolCallPlan>;
    try {
      request = options.task === undefined ? undefined : checkTaskOption(options.task, `${options.label} options`);
      // Bad input fails before anything is sent, a listing of the tools included.
      if (options.timeoutMs !== undefined) this.timeoutOf(options);
      planned = this.plan(name, request !== undefined, options);
    } catch (error) {
      return Promise.reject(error);
    }
    const params = { name, arguments: args };
    if (planned === "plain") {
      const wire = this.wire();
      // The request's id is its progress token, for a task the server may answer with.
      let token: number | undefined;
      const onDispatch = (id: number) => {
        token = id;
        options.onDispatch?.(id);
      };
      return this.host.request(Method.toolsCall, params, options, onDispatch).then((raw) => {
        const created = wire.created(raw, options.label);
        return created === undefined ? raw : this.follow(name, args, created, token, options, startedAt, { bound: undefined, handle: undefined });
      });
    }
    return this.callAsTask(name, params, planned, options, request, startedAt);
  }

  /** A call whose plan is a task, or decided by a listing of the tools first. */
  private async callAsTask(
    name: string,
    params: { name: string; arguments: Record<string, unknown> },
    planned: ToolCallPlan | Promise<ToolCallPlan>,
    options: TaskAwareCallOptions,
    request: TaskRequest | undefined,
    startedAt: number,
  ): Promise<Record<string, unknown>> {
    const plan = await planned;
    const { label } = options;
    const timeoutMs = this.timeoutOf(options);
    const wire = this.wire();
    let token: number | undefined;
    const onDispatch = (id: number) => {
      token = id;
      options.onDispatch?.(id);
    };
    // The bound of a task, from the start of the call; a plain call keeps its own deadline and
    // progress rules, and gets one only if the server answers it with a task.
    const following: Following = { bound: undefined, handle: undefined };
    const deadline =
      plan === "plain"
        ? undefined
        : new TaskDeadline(timeoutMs, options.signal, () => following.handle?.label ?? label, this.host.session.description, startedAt);
    following.bound = deadline;
    try {
      let raw: Record<string, unknown>;
      if (deadline === undefined) {
        raw = await this.host.request(Method.toolsCall, params, options, onDispatch);
      } else {
        try {
          raw = await this.host.request(Method.toolsCall, wire.augment(params, request?.ttlMs), {
            ...options,
            signal: deadline.signal,
            timeoutMs: Math.max(1, Math.ceil(deadline.remaining())),
            onDispatch,
            onLateResult: this.lateTaskCanceller(wire, name, label),
          });
        } catch (error) {
          throw deadline.failure(error);
        }
      }
      const created = wire.created(raw, label);
      return created === undefined ? raw : await this.follow(name, params.arguments, created, token, options, startedAt, following);
    } finally {
      deadline?.dispose();
    }
  }

  /**
   * A `tools/call` answered with a task: followed to its result within the call's bound (made
   * now, from the start of the call, when the call had none), cancelled if the wait fails.
   *
   * A task that ends with -32042 (URL elicitation required) ended with the error of the
   * `tools/call` it runs: the server lists "elicitations that are required to complete before the
   * original can be retried" (client/elicitation), and the original is the `tools/call`, whose task
   * is over. So after the elicitations the call is made again, a new task, once, with its own bound;
   * the repeat retries no -32042 of its own, neither its task's nor the connection's for its
   * `tools/call`, so the user is asked for one round of elicitations per call. (The repeat is
   * made here, not prepared by `call`: a closure made for every call would be one more object on
   * the path of calls that never meet a task.)
   */
  private async follow(
    name: string,
    args: Record<string, unknown>,
    created: TaskSnapshot,
    token: number | undefined,
    options: TaskAwareCallOptions,
    startedAt: number,
    following: Following,
  ): Promise<Record<string, unknown>> {
    const session = this.host.session;
    let deadline = following.bound;
    let refused: McpTransportError;
    try {
      deadline ??= new TaskDeadline(this.timeoutOf(options), options.signal, () => following.handle?.label ?? options.label, session.description, startedAt);
      const handle = new ToolTask({
        wire: this.wire,
        host: this.host,
        tool: name,
        snapshot: created,
        progress: token === undefined ? undefined : { session, token },
      });
      following.handle = handle;
      notify(options.onTaskStatus, created.state);
      try {
        return await handle.wait(deadline, { onStatus: options.onTaskStatus, onProgress: options.onProgress });
      } catch (error) {
        await handle.cancelQuietly();
        if (options.urlElicitationRetry === false || !isUrlElicitationRequired(error)) throw error;
        refused = error;
      }
    } finally {
      deadline?.dispose();
    }
    const again = () => this.call(name, args, { ...options, urlElicitationRetry: false });
    return this.host.afterUrlElicitations(refused, again, { method: Method.toolsCall, label: options.label, signal: options.signal });
  }

  /**
   * What becomes of the answer to a task-augmented `tools/call` whose caller gave up before it
   * came (see `RequestOptions.onLateResult`: no `notifications/cancelled` is sent for it): the
   * task it created is sent `tasks/cancel`, best-effort and within `TASK_CANCEL_TIMEOUT_MS`, on
   * nobody's wait; a plain result asks for nothing more. Only 2025-11-25 augments a request: in
   * the tasks extension the server decides, and the call is cancelled as any request is
   * (basic/patterns/cancellation) until it has answered with a task.
   */
  private lateTaskCanceller(wire: TaskWire, tool: string, label: string): RequestOptions["onLateResult"] {
    if (wire.era !== "legacy") return undefined;
    return (raw) => {
      let created: TaskSnapshot | undefined;
      try {
        created = wire.created(raw, label);
      } catch {
        return; // Not a task the client could name: nothing to cancel.
      }
      if (created === undefined) return;
      void new ToolTask({ wire: this.wire, host: this.host, tool, snapshot: created }).cancelQuietly();
    };
  }

  /** The bound of the whole call, in ms: the caller's `timeoutMs`, or the session's. */
  private timeoutOf(options: TaskAwareCallOptions): number {
    return options.timeoutMs === undefined ? this.host.session.limits.timeoutMs : checkLimit("timeoutMs", options.timeoutMs, options.label);
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
    const augmented = plan === "task";
    const sent = { ...send, onLateResult: augmented ? this.lateTaskCanceller(wire, name, send.label) : undefined };
    const raw = await this.host.request(Method.toolsCall, augmented ? wire.augment(params, request?.ttlMs) : params, sent, (id) => {
      token = id;
      send.onDispatch?.(id);
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
    const era = this.host.era;
    return planToolCall({
      era: era.name,
      serverCapabilities: era.serverCapabilities,
      asked,
      tool: name,
      tools: this.host,
      options,
      label: options.label,
      where: this.host.session.description,
    });
  }

}

/** A call followed as a task: its bound, and its handle once made (the bound's messages name it). */
interface Following {
  bound: TaskDeadline | undefined;
  handle: ToolTask | undefined;
}

function notify(listener: ((state: TaskState) => void) | undefined, state: TaskState): void {
  try {
    listener?.(state);
  } catch {
    // A listener's failure is its own.
  }
}
