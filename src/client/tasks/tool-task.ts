/**
 * `ToolTask`: the handle of one tool call that runs as a task, in either era. It asks for the
 * task's state, waits for its result (polling `tasks/get` at the server's interval, woken early
 * by status notifications, answering the server's questions through the client's handlers),
 * cancels it, and tells listeners of each new state and of progress. A handle is made by
 * `client.startToolTask()`, by `callTool()` for its own wait, or from a kept id by `client.task(id)`.
 */
import { Notification } from "../../protocol/methods.js";
import type { CallToolResult } from "../../protocol/schemas.js";
import { TaskMethod, isTerminalStatus } from "../../protocol/tasks.js";
import type { Progress, RequestOptions, TransportSession } from "../../session/session.js";
import { checkLimit } from "../../transport/limits.js";
import { TASK_CALL_OPTIONS, TASK_WAIT_OPTIONS, checkCallOptions, checkListenerOption } from "../call-option-names.js";
import { checkValidateOutput } from "../output-schema.js";
import { abortReason } from "../../util/abort.js";
import { taskCancelled, taskReopened } from "./task-errors.js";
import { isNewState, type TaskState } from "./task-state.js";
import { TASK_CANCEL_TIMEOUT_MS, TaskDeadline, pollDelay } from "./task-timing.js";
import type { TaskHost, TaskRequestOptions, TaskSnapshot, TaskWire } from "./task-wire.js";

/** Options of one request about a task (`status()`, `cancel()`). */
export type TaskCallOptions = Pick<RequestOptions, "signal" | "timeoutMs">;

/** Options of `ToolTask.result()`: the bound on the wait, the output check, and listeners for this wait. */
export interface TaskWaitOptions {
  /** Stops waiting (rejects with its reason). The task itself goes on: `cancel()` stops it. */
  signal?: AbortSignal;
  /** The whole wait, in ms (every poll, every answer, the result). @default the client's `timeoutMs` */
  timeoutMs?: number;
  /** Checks the result against the tool's `outputSchema` (see `ToolCallOptions`). @default the client's */
  validateOutput?: boolean;
  /** Each new state of the task seen while waiting. */
  onStatus?: (state: TaskState) => void;
  /** Each progress notification of the task heard while waiting (2025-11-25; the extension has none). */
  onProgress?: (progress: Progress) => void;
}

/** What a handle starts from. */
export interface ToolTaskInit {
  wire: () => TaskWire;
  host: TaskHost;
  /** The tool's name, when known: its result is then checked against its `outputSchema`. */
  tool?: string;
  /** The task as its creation (or a later look) described it. */
  snapshot?: TaskSnapshot;
  /** A task known by its id only (resumed). */
  taskId?: string;
  /** The call's own result, when the server answered it at once, without a task. */
  answer?: Record<string, unknown>;
  /**
   * The progress token of the request that created the task, on the session that sent it: it
   * stays valid for the task's lifetime (2025-11-25, "Task Progress Notifications").
   */
  progress?: { session: TransportSession; token: number };
}

/** An id from the server, shown in messages only when it looks like one (a server's text never steers a log line). */
function describeId(id: string): string {
  return /^[\w.:@+-]{1,80}$/.test(id) ? JSON.stringify(id) : "(id not shown)";
}

export class ToolTask {
  /**
   * The server's id of the task: keep it to find the task again with `client.task(id)`, even from
   * another connection. Undefined when the server answered the call at once, without a task (a
   * modern server decides this itself): `result()` then resolves with that answer.
   */
  readonly id: string | undefined;
  /** The tool called, when known. */
  readonly tool: string | undefined;
  private latest: TaskSnapshot | undefined;
  /** Counts the states seen, so that a wait knows whether one came while it slept. */
  private seen = 0;
  /** Whether the final result (or the final error) was received: nothing is left to cancel. */
  private finished = false;
  private readonly answer: Record<string, unknown> | undefined;
  private readonly statusListeners = new Set<(state: TaskState) => void>();
  private readonly progressListeners = new Set<(progress: Progress) => void>();
  private readonly wakers = new Set<() => void>();
  /** The extension's input request keys answered already. */
  private readonly answered = new Set<string>();
  private waits = 0;
  private stopListening: (() => void) | undefined;
  private readonly wire: () => TaskWire;
  private readonly host: TaskHost;
  private readonly progress: ToolTaskInit["progress"];

  /** Made by the client (`startToolTask`, `task(id)`, `callTool`), never by hand. */
  constructor(init: ToolTaskInit) {
    this.wire = init.wire;
    this.host = init.host;
    this.tool = init.tool;
    this.progress = init.progress;
    this.answer = init.answer;
    this.latest = init.snapshot;
    this.id = init.snapshot?.state.taskId ?? init.taskId;
  }

  /** The latest state seen (at creation, a poll, a notification); undefined before any. */
  get state(): TaskState | undefined {
    return this.latest?.state;
  }

  /** Whether the task is over: answered at once, or seen in a terminal state. */
  get done(): boolean {
    return this.answer !== undefined || this.finished || (this.latest !== undefined && isTerminalStatus(this.latest.state.status));
  }

  /** How the task is named in messages: `callTool "search", task "abc"`. */
  get label(): string {
    const id = this.id === undefined ? "" : `task ${describeId(this.id)}`;
    if (this.tool === undefined) return id;
    return id === "" ? `callTool ${JSON.stringify(this.tool)}` : `callTool ${JSON.stringify(this.tool)}, ${id}`;
  }

  /** Asks the server for the task's state now (`tasks/get`). */
  async status(options: TaskCallOptions = {}): Promise<TaskState> {
    checkCallOptions(options, TASK_CALL_OPTIONS, `${this.label} status()`);
    const id = this.requireId("status()");
    const snapshot = await this.wire().get(id, { ...options, resetTimeoutOnProgress: false, label: `${this.label}: tasks/get` });
    this.see(snapshot);
    return snapshot.state;
  }

  /**
   * Waits for the task's result: polls `tasks/get` at the server's `pollInterval` (sooner when a
   * status notification arrives), answers the server's questions through the client's handlers,
   * and resolves with the tool's result, checked like `callTool`'s. A result with `isError` is
   * returned; a JSON-RPC error the task ended with is thrown (kind `server_error`), and so is a
   * task that ended cancelled (kind `task_cancelled`). An abort or the timeout only stops the
   * wait: the task goes on until `cancel()`.
   */
  async result(options: TaskWaitOptions = {}): Promise<CallToolResult> {
    const label = this.label;
    // Checked before the deadline is made: its timer would otherwise outlive a refused call.
    checkCallOptions(options, TASK_WAIT_OPTIONS, `${label} result()`);
    checkListenerOption(options.onStatus, "onStatus", `${label} result()`);
    checkValidateOutput(options.validateOutput, `${label} result()`);
    const timeoutMs = options.timeoutMs === undefined ? this.host.session.limits.timeoutMs : checkLimit("timeoutMs", options.timeoutMs, `${label} result()`);
    const deadline = new TaskDeadline(timeoutMs, options.signal, () => this.label, this.host.session.description);
    try {
      const raw = await this.wait(deadline, options);
      return await this.host.toolResult(raw, this.tool, label, options.validateOutput, { signal: options.signal, timeoutMs });
    } finally {
      deadline.dispose();
    }
  }

  /**
   * Asks the server to cancel the task (`tasks/cancel`). In 2025-11-25 the server moves it to
   * `cancelled` before answering (the new state is kept in `state`); in the extension it only
   * acknowledges, and the task may still end otherwise. Nothing is sent for a call answered at once.
   */
  async cancel(options: TaskCallOptions = {}): Promise<void> {
    checkCallOptions(options, TASK_CALL_OPTIONS, `${this.label} cancel()`);
    if (this.id === undefined) return;
    const state = await this.wire().cancel(this.id, { ...options, resetTimeoutOnProgress: false, label: `${this.label}: tasks/cancel` });
    if (state) this.see({ state });
  }

  /** Calls `listener` with each new state seen while a `result()` (or `callTool`) waits; returns the function that stops it. */
  onStatus(listener: (state: TaskState) => void): () => void {
    checkListenerOption(listener, "listener", `${this.label} onStatus()`);
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /** Calls `listener` with each progress notification of the task heard while a wait runs. */
  onProgress(listener: (progress: Progress) => void): () => void {
    checkListenerOption(listener, "listener", `${this.label} onProgress()`);
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  /**
   * The task's raw final result within `deadline` (the wait of `result()` and of `callTool`).
   * @internal
   */
  async wait(deadline: TaskDeadline, listeners: Pick<TaskWaitOptions, "onStatus" | "onProgress">): Promise<Record<string, unknown>> {
    if (this.answer !== undefined) return this.answer;
    const id = this.id!;
    const release = this.attach(listeners);
    try {
      deadline.check();
      let snapshot = this.latest ?? (await this.look(id, deadline));
      for (;;) {
        const { status } = snapshot.state;
        if (status === "cancelled") throw taskCancelled(this.label, this.host.session.description);
        if (status === "completed" || status === "failed") {
          if (snapshot.stateOnly === true) {
            snapshot = await this.lookAfterTerminalSeed(id, status, deadline);
            continue;
          }
          const raw = await this.wire().finalResult(id, snapshot, this.requestOptions(deadline, this.wire().resultMethod, true));
          this.finished = true;
          return raw;
        }
        if (status === "input_required") {
          const final = await this.wire().answer(id, snapshot, {
            handlers: this.host.handlers,
            answered: this.answered,
            signal: deadline.signal,
            quick: this.requestOptions(deadline, "input"),
            blocking: this.requestOptions(deadline, this.wire().resultMethod, true),
          });
          if (final !== undefined) {
            this.finished = true;
            return final;
          }
        }
        const before = this.seen;
        await this.pause(deadline);
        snapshot = this.seen !== before ? this.latest! : await this.look(id, deadline);
      }
    } catch (error) {
      throw deadline.failure(error);
    } finally {
      release();
    }
  }

  /**
   * `tasks/cancel` because the caller gave up, bounded by TASK_CANCEL_TIMEOUT_MS, its failure
   * ignored; nothing when the task is over or the server takes no `tasks/cancel`.
   * @internal
   */
  async cancelQuietly(): Promise<void> {
    if (this.id === undefined || this.done || !this.wire().cancels) return;
    try {
      await this.cancel({ timeoutMs: TASK_CANCEL_TIMEOUT_MS });
    } catch {
      // Best effort: the caller hears its own failure, not this one.
    }
  }

  /** Tells the listeners of a state, and the waits that sleep. A terminal state is never undone by a late one. */
  private see(snapshot: TaskSnapshot): void {
    const previous = this.latest?.state;
    if (previous !== undefined && isTerminalStatus(previous.status) && !isTerminalStatus(snapshot.state.status)) return;
    this.latest = snapshot;
    this.seen++;
    for (const wake of [...this.wakers]) wake();
    if (!isNewState(previous, snapshot.state)) return;
    for (const listener of [...this.statusListeners]) {
      try {
        listener(snapshot.state);
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  private async look(id: string, deadline: TaskDeadline): Promise<TaskSnapshot> {
    deadline.check();
    const snapshot = await this.wire().get(id, this.requestOptions(deadline, TaskMethod.get));
    this.see(snapshot);
    return this.latest!;
  }

  /**
   * The task, created already `completed` or `failed`, as `tasks/get` describes it: with the
   * result or the error its creation did not carry. A terminal status never changes, so an answer
   * that is not terminal fails the wait (PROTOCOL) rather than wait for a task that is over.
   */
  private async lookAfterTerminalSeed(id: string, seeded: string, deadline: TaskDeadline): Promise<TaskSnapshot> {
    deadline.check();
    const snapshot = await this.wire().get(id, this.requestOptions(deadline, TaskMethod.get));
    if (!isTerminalStatus(snapshot.state.status)) throw taskReopened(this.label, this.host.session.description, seeded, snapshot.state.status);
    this.see(snapshot);
    return snapshot;
  }

  /**
   * Sleeps until the next poll is due, a new state arrives, the deadline, or the end of the
   * connection: a server may suggest polling minutes apart, and the next look then fails at once
   * (DISCONNECTED) or waits for the reconnection under way, rather than sleep on a dead wire.
   */
  private pause(deadline: TaskDeadline): Promise<void> {
    const signal = deadline.signal;
    if (signal.aborted) return Promise.reject(abortReason(signal));
    return new Promise<void>((resolve, reject) => {
      const finish = (error?: unknown) => {
        clearTimeout(timer);
        stopEnd();
        this.wakers.delete(wake);
        signal.removeEventListener("abort", onAbort);
        if (error === undefined) resolve();
        else reject(error);
      };
      const wake = () => finish();
      const onAbort = () => finish(abortReason(signal));
      // A wait cut short by the deadline ends the deadline when it ends, not one more poll.
      const remaining = deadline.remaining();
      const delay = pollDelay(this.latest?.state, remaining);
      const timer = setTimeout(delay >= remaining ? () => deadline.expire() : wake, delay);
      this.wakers.add(wake);
      signal.addEventListener("abort", onAbort, { once: true });
      const stopEnd = this.host.session.onEnd(wake);
    });
  }

  /**
   * One request of a wait: within what is left of it, on its signal. A blocking one
   * (`tasks/result`) may take all of it; the others are bounded by the client's `timeoutMs` too.
   */
  private requestOptions(deadline: TaskDeadline, what: string, blocking = false): TaskRequestOptions {
    const left = Math.max(1, Math.ceil(deadline.remaining()));
    return {
      signal: deadline.signal,
      timeoutMs: blocking ? left : Math.min(left, this.host.session.limits.timeoutMs),
      resetTimeoutOnProgress: false,
      label: `${this.label}: ${what}`,
    };
  }

  /** Listens for the task's notifications while any wait runs, and adds this wait's listeners. */
  private attach(listeners: Pick<TaskWaitOptions, "onStatus" | "onProgress">): () => void {
    const { onStatus, onProgress } = listeners;
    if (onStatus) this.statusListeners.add(onStatus);
    if (onProgress) this.progressListeners.add(onProgress);
    if (this.waits++ === 0) this.stopListening = this.listen();
    return () => {
      if (onStatus) this.statusListeners.delete(onStatus);
      if (onProgress) this.progressListeners.delete(onProgress);
      if (--this.waits === 0) {
        this.stopListening?.();
        this.stopListening = undefined;
      }
    };
  }

  private listen(): () => void {
    const stops: (() => void)[] = [];
    stops.push(
      this.host.onNotification(this.wire().statusNotification, (params) => {
        const snapshot = this.wire().notified(params);
        if (snapshot !== undefined && snapshot.state.taskId === this.id) this.see(snapshot);
      }),
    );
    const progress = this.progress;
    if (progress) {
      stops.push(
        progress.session.onNotification(Notification.progress, (params) => {
          if (params.progressToken !== progress.token || typeof params.progress !== "number") return;
          const update: Progress = { progress: params.progress };
          if (typeof params.total === "number") update.total = params.total;
          if (typeof params.message === "string") update.message = params.message;
          for (const listener of [...this.progressListeners]) {
            try {
              listener(update);
            } catch {
              // A listener's failure is its own.
            }
          }
        }),
      );
    }
    return () => {
      for (const stop of stops) stop();
    };
  }

  private requireId(call: string): string {
    if (this.id !== undefined) return this.id;
    throw new TypeError(
      `${this.label} ${call}: the server answered the call at once, without a task, so there is no task to ask about (task.id is undefined); read task.result()`,
    );
  }
}
