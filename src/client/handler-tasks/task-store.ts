/**
 * The tasks the client runs for one connection's server (basic/utilities/tasks, 2025-11-25), as
 * the receiver keeps them: their status machine, their `ttl`, and a ceiling on how many are held.
 *
 * - A task begins `working` and moves once, to `completed`, `failed` or `cancelled`; a result
 *   that comes after a cancellation is dropped, and the task stays `cancelled`.
 * - Its `ttl` runs from creation: the asked one within [`minTtlMs`, `maxTtlMs`], the maximum when
 *   none is asked (the specification lets a receiver override it, and asks it to bound it). When
 *   it has run, the task is forgotten whatever its status; one still running has its handler's
 *   signal aborted first, since nobody could read its result any more.
 * - At most `maxTasks` are held, finished ones included until their `ttl`: one more is refused
 *   with -32603 (the specification asks receivers to bound concurrent tasks per requestor).
 *
 * Failures are `HandlerError`s with the codes the specification names, so that the methods
 * answering the server throw them as they are.
 */
import { randomUUID } from "node:crypto";
import { Deadlines, monotonicNow, type Deadline } from "../../collections/deadlines.js";
import { JSONRPC_INTERNAL_ERROR, JSONRPC_INVALID_PARAMS, type JsonRpcErrorObject } from "../../protocol/jsonrpc.js";
import { TaskMetaKey, isTerminalStatus, type Task, type TaskStatusName } from "../../protocol/tasks.js";
import type { HandlerError } from "../../session/session.js";
import { raceAbort } from "../../util/abort.js";

export interface HandlerTaskLimits {
  /** Tasks held at once, finished ones included until their ttl. */
  readonly maxTasks: number;
  /** The longest ttl granted, and the one given when the server asks for none, in ms. */
  readonly maxTtlMs: number;
  /** The shortest ttl granted, in ms: a task must live long enough to be polled once. */
  readonly minTtlMs: number;
  /** Tasks in one `tasks/list` page. */
  readonly pageSize: number;
}

/** The bounds of the tasks a client runs for a server (the specification asks receivers to document them). */
export const HANDLER_TASK_LIMITS: HandlerTaskLimits = Object.freeze({
  maxTasks: 64,
  maxTtlMs: 3_600_000,
  minTtlMs: 1_000,
  pageSize: 20,
});

/** What the background run of a task gets: its id and the signal that stops it. */
export interface StartedTask {
  readonly taskId: string;
  /** Aborted when the server cancels the task, its ttl runs out, or the connection ends. */
  readonly signal: AbortSignal;
  /** The task as the `CreateTaskResult` carries it. */
  readonly task: Task;
}

type Outcome = { result: Record<string, unknown> } | { error: JsonRpcErrorObject };

interface HeldTask extends Deadline {
  /** Creation order: the cursor of `tasks/list`. */
  readonly seq: number;
  readonly state: Task;
  readonly controller: AbortController;
  outcome: Outcome | undefined;
  /** Resolves once the task is final or forgotten. */
  readonly finished: Promise<void>;
  markFinished(): void;
}

const CANCELLED_MESSAGE = "The task was cancelled by request.";

export class HandlerTaskStore {
  private readonly tasks = new Map<string, HeldTask>();
  private readonly expiries = new Deadlines<HeldTask>((task) => this.expire(task), { keepsProcessAlive: false });
  private nextSeq = 1;
  private closed = false;

  /** @param onFinished told of each task that completed or failed on its own (not of a cancellation, which its requestor asked for) */
  constructor(
    private readonly limits: HandlerTaskLimits = HANDLER_TASK_LIMITS,
    private readonly onFinished: (task: Task) => void = () => {},
  ) {}

  /** Tasks held, finished ones included. */
  get size(): number {
    return this.tasks.size;
  }

  /** A new `working` task; -32603 when the store is full or closed. */
  create(requestedTtl: number | undefined): StartedTask {
    if (this.closed || this.tasks.size >= this.limits.maxTasks) {
      throw handlerError(
        JSONRPC_INTERNAL_ERROR,
        `The client already holds ${this.limits.maxTasks} tasks, its most; ask again once some have finished or expired`,
      );
    }
    const now = new Date().toISOString();
    const ttl = Math.min(Math.max(Math.floor(requestedTtl ?? this.limits.maxTtlMs), this.limits.minTtlMs), this.limits.maxTtlMs);
    let markFinished!: () => void;
    const finished = new Promise<void>((resolve) => (markFinished = resolve));
    const task: HeldTask = {
      seq: this.nextSeq++,
      state: { taskId: randomUUID(), status: "working", createdAt: now, lastUpdatedAt: now, ttl },
      controller: new AbortController(),
      outcome: undefined,
      finished,
      markFinished,
      dueAt: 0,
      clockIndex: -1,
    };
    this.tasks.set(task.state.taskId, task);
    this.expiries.set(task, monotonicNow() + ttl);
    return { taskId: task.state.taskId, signal: task.controller.signal, task: view(task) };
  }

  /** The handler answered: `completed`, unless the task was cancelled or forgotten meanwhile. */
  complete(taskId: string, result: Record<string, unknown>): void {
    this.finish(taskId, "completed", { result });
  }

  /** The handler failed: `failed`, with the error `tasks/result` will answer with. */
  fail(taskId: string, error: JsonRpcErrorObject): void {
    this.finish(taskId, "failed", { error }, error.message);
  }

  /** The task, as `tasks/get` answers; -32602 for a task not held. */
  get(taskId: unknown): Task {
    return view(this.held(taskId));
  }

  /**
   * `tasks/cancel`: the task becomes `cancelled` and its handler's signal aborts; -32602 for a
   * task not held or already final.
   */
  cancel(taskId: unknown): Task {
    const task = this.held(taskId);
    if (isTerminalStatus(task.state.status)) {
      throw handlerError(JSONRPC_INVALID_PARAMS, `Cannot cancel the task: it is already ${task.state.status}`);
    }
    this.settle(task, "cancelled", { error: { code: JSONRPC_INVALID_PARAMS, message: "The task was cancelled; it has no result" } }, CANCELLED_MESSAGE);
    task.controller.abort();
    return view(task);
  }

  /**
   * `tasks/result`: once the task is final, its result (with the related-task `_meta`) or its
   * error, thrown; waits while it runs, until `signal` aborts. -32602 for a task not held, or
   * forgotten while it was waited for.
   */
  async result(taskId: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
    const task = this.held(taskId);
    await raceAbort(task.finished, signal);
    const outcome = this.tasks.get(task.state.taskId) === task ? task.outcome : undefined;
    if (!outcome) throw handlerError(JSONRPC_INVALID_PARAMS, "The task expired before it finished");
    if ("error" in outcome) throw handlerError(outcome.error.code, outcome.error.message, outcome.error.data);
    const meta = outcome.result._meta as Record<string, unknown> | undefined;
    return { ...outcome.result, _meta: { ...meta, [TaskMetaKey.relatedTask]: { taskId: task.state.taskId } } };
  }

  /** One page of `tasks/list`, in creation order; -32602 for a cursor this store did not give. */
  list(cursor: unknown): { tasks: Task[]; nextCursor?: string } {
    let after = 0;
    if (cursor !== undefined) {
      after = typeof cursor === "string" && /^[1-9]\d{0,15}$/.test(cursor) ? Number(cursor) : NaN;
      if (!(after < this.nextSeq)) throw handlerError(JSONRPC_INVALID_PARAMS, "Invalid cursor for tasks/list");
    }
    const page: HeldTask[] = [];
    let more = false;
    for (const task of this.tasks.values()) {
      if (task.seq <= after) continue;
      if (page.length === this.limits.pageSize) {
        more = true;
        break;
      }
      page.push(task);
    }
    const tasks = page.map(view);
    return more ? { tasks, nextCursor: String(page[page.length - 1]!.seq) } : { tasks };
  }

  /** The connection ended: every running handler is aborted and every task forgotten. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.expiries.stop();
    for (const task of this.tasks.values()) this.forget(task);
  }

  private held(taskId: unknown): HeldTask {
    const task = typeof taskId === "string" ? this.tasks.get(taskId) : undefined;
    if (!task) throw handlerError(JSONRPC_INVALID_PARAMS, "Task not found (it may have expired)");
    return task;
  }

  private finish(taskId: string, status: TaskStatusName, outcome: Outcome, statusMessage?: string): void {
    const task = this.tasks.get(taskId);
    if (!task || isTerminalStatus(task.state.status)) return;
    this.settle(task, status, outcome, statusMessage);
    try {
      this.onFinished(view(task));
    } catch {
      // Telling the server is best-effort; the task's state is already final.
    }
  }

  private settle(task: HeldTask, status: TaskStatusName, outcome: Outcome, statusMessage: string | undefined): void {
    task.state.status = status;
    task.state.lastUpdatedAt = new Date().toISOString();
    if (statusMessage !== undefined) task.state.statusMessage = statusMessage;
    task.outcome = outcome;
    task.markFinished();
  }

  /** The ttl ran out: forgotten, whatever its status. */
  private expire(task: HeldTask): void {
    if (this.tasks.get(task.state.taskId) !== task) return;
    this.tasks.delete(task.state.taskId);
    this.forget(task);
  }

  private forget(task: HeldTask): void {
    if (!isTerminalStatus(task.state.status)) task.controller.abort();
    task.outcome = undefined;
    task.markFinished();
    this.expiries.delete(task);
    if (this.closed) this.tasks.delete(task.state.taskId);
  }
}

/** A copy of the task's state: what leaves the store never aliases what it keeps. */
function view(task: HeldTask): Task {
  return { ...task.state };
}

function handlerError(code: number, message: string, data?: unknown): HandlerError {
  return data === undefined ? { code, message } : { code, message, data };
}
