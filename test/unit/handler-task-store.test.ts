/**
 * The store of the tasks a client runs for its server (basic/utilities/tasks, 2025-11-25):
 * "Task Status Lifecycle", "TTL and Resource Management", "Task Cancellation", "Task Listing",
 * "Result Retrieval" and "Resource Management" (a bound on concurrent tasks).
 */
import { describe, expect, it } from "vitest";
import { HANDLER_TASK_LIMITS, HandlerTaskStore, type HandlerTaskLimits } from "../../src/client/handler-tasks/task-store.js";
import type { Task } from "../../src/protocol/tasks.js";

const limits = (overrides: Partial<HandlerTaskLimits> = {}): HandlerTaskLimits => ({ ...HANDLER_TASK_LIMITS, ...overrides });

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("HandlerTaskStore: the status lifecycle", () => {
  it("creates working tasks with unique ids, ISO timestamps and the ttl granted", () => {
    const store = new HandlerTaskStore(limits({ minTtlMs: 1_000, maxTtlMs: 60_000 }));
    const asked = store.create(30_000);
    expect(asked.task).toMatchObject({ taskId: asked.taskId, status: "working", ttl: 30_000 });
    expect(new Date(asked.task.createdAt).toISOString()).toBe(asked.task.createdAt);
    expect(asked.task.lastUpdatedAt).toBe(asked.task.createdAt);
    expect(asked.signal.aborted).toBe(false);
    expect(store.create(undefined).task.ttl).toBe(60_000); // none asked: the maximum
    expect(store.create(10 * 3_600_000).task.ttl).toBe(60_000); // more than the maximum
    expect(store.create(0).task.ttl).toBe(1_000); // less than the minimum
    expect(store.create(1_500.7).task.ttl).toBe(1_500);
    const ids = new Set(Array.from({ length: 20 }, () => store.create(undefined).taskId));
    expect(ids.size).toBe(20);
    store.close();
  });

  it("completes once: the result carries the related-task _meta, and a later failure changes nothing", async () => {
    const finished: Task[] = [];
    const store = new HandlerTaskStore(limits(), (task) => finished.push(task));
    const { taskId } = store.create(undefined);
    store.complete(taskId, { action: "accept", content: { name: "Ada" }, _meta: { mine: 1 } });
    store.fail(taskId, { code: -32603, message: "too late" });
    expect(store.get(taskId).status).toBe("completed");
    expect(store.get(taskId).statusMessage).toBeUndefined();
    expect(await store.result(taskId, new AbortController().signal)).toEqual({
      action: "accept",
      content: { name: "Ada" },
      _meta: { mine: 1, "io.modelcontextprotocol/related-task": { taskId } },
    });
    expect(finished).toEqual([expect.objectContaining({ taskId, status: "completed" })]);
    store.close();
  });

  it("fails with the error tasks/result answers with, and says why in statusMessage", async () => {
    const store = new HandlerTaskStore(limits());
    const { taskId } = store.create(undefined);
    store.fail(taskId, { code: -32603, message: "The client's sampling handler returned an invalid result" });
    expect(store.get(taskId)).toMatchObject({ status: "failed", statusMessage: "The client's sampling handler returned an invalid result" });
    expect(await rejection(store.result(taskId, new AbortController().signal))).toEqual({
      code: -32603,
      message: "The client's sampling handler returned an invalid result",
    });
    store.close();
  });

  it("cancels a running task: its signal aborts, it stays cancelled, and a terminal task cannot be cancelled", async () => {
    const finished: Task[] = [];
    const store = new HandlerTaskStore(limits(), (task) => finished.push(task));
    const running = store.create(undefined);
    const cancelled = store.cancel(running.taskId);
    expect(cancelled).toMatchObject({ taskId: running.taskId, status: "cancelled", statusMessage: "The task was cancelled by request." });
    expect(running.signal.aborted).toBe(true);
    store.complete(running.taskId, { action: "decline" }); // the handler ignored its signal
    expect(store.get(running.taskId).status).toBe("cancelled");
    expect(await rejection(store.result(running.taskId, new AbortController().signal))).toMatchObject({ code: -32602 });
    expect(thrown(() => store.cancel(running.taskId))).toMatchObject({ code: -32602, message: expect.stringContaining("already cancelled") });
    const done = store.create(undefined);
    store.complete(done.taskId, { action: "decline" });
    expect(thrown(() => store.cancel(done.taskId))).toMatchObject({ code: -32602, message: expect.stringContaining("already completed") });
    expect(done.signal.aborted).toBe(false);
    // The requestor asked for the cancellation: it is told by the answer, not by a notification.
    expect(finished.map((task) => task.status)).toEqual(["completed"]);
    store.close();
  });

  it("refuses an unknown task id, or one that is not a string, with -32602", async () => {
    const store = new HandlerTaskStore(limits());
    for (const id of ["nope", 42, undefined]) {
      expect(thrown(() => store.get(id))).toMatchObject({ code: -32602 });
      expect(thrown(() => store.cancel(id))).toMatchObject({ code: -32602 });
      expect(await rejection(store.result(id, new AbortController().signal))).toMatchObject({ code: -32602 });
    }
    store.close();
  });

  it("hands out copies: changing what it returned changes nothing held", () => {
    const store = new HandlerTaskStore(limits());
    const { taskId, task } = store.create(undefined);
    task.status = "completed";
    store.get(taskId).status = "failed";
    expect(store.get(taskId).status).toBe("working");
    store.close();
  });
});

describe("HandlerTaskStore: tasks/result", () => {
  it("waits while the task runs and answers once it completes", async () => {
    const store = new HandlerTaskStore(limits());
    const { taskId } = store.create(undefined);
    const answer = store.result(taskId, new AbortController().signal);
    let settled = false;
    void answer.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    store.complete(taskId, { role: "assistant", model: "m", content: { type: "text", text: "hi" } });
    await expect(answer).resolves.toMatchObject({ model: "m" });
    store.close();
  });

  it("stops waiting when its request's signal aborts, with the signal's reason", async () => {
    const store = new HandlerTaskStore(limits());
    const { taskId } = store.create(undefined);
    const controller = new AbortController();
    const answer = store.result(taskId, controller.signal);
    const reason = new Error("the server cancelled tasks/result");
    controller.abort(reason);
    expect(await rejection(answer)).toBe(reason);
    expect(store.get(taskId).status).toBe("working");
    store.close();
  });
});

describe("HandlerTaskStore: ttl and the ceiling", () => {
  it("forgets a finished task once its ttl from creation has run", async () => {
    const store = new HandlerTaskStore(limits({ minTtlMs: 1 }));
    const { taskId } = store.create(30);
    store.complete(taskId, { action: "decline" });
    expect(store.size).toBe(1);
    await expect.poll(() => store.size).toBe(0);
    expect(thrown(() => store.get(taskId))).toMatchObject({ code: -32602 });
    store.close();
  });

  it("aborts a task still running when its ttl runs out, and a waiting tasks/result fails", async () => {
    const store = new HandlerTaskStore(limits({ minTtlMs: 1 }));
    const { taskId, signal } = store.create(30);
    const answer = store.result(taskId, new AbortController().signal);
    expect(await rejection(answer)).toMatchObject({ code: -32602, message: expect.stringContaining("expired") });
    expect(signal.aborted).toBe(true);
    expect(store.size).toBe(0);
    store.complete(taskId, { action: "decline" }); // too late: nothing comes back
    expect(store.size).toBe(0);
    store.close();
  });

  it("refuses a task beyond maxTasks with -32603, finished ones counted, until one expires", async () => {
    const store = new HandlerTaskStore(limits({ maxTasks: 2, minTtlMs: 1 }));
    const first = store.create(40);
    store.complete(first.taskId, { action: "decline" });
    store.create(60_000);
    expect(thrown(() => store.create(undefined))).toEqual({
      code: -32603,
      message: "The client already holds 2 tasks, its most; ask again once some have finished or expired",
    });
    expect(store.size).toBe(2);
    await expect.poll(() => store.size).toBe(1);
    expect(store.create(undefined).task.status).toBe("working");
    store.close();
  });
});

describe("HandlerTaskStore: tasks/list", () => {
  it("pages in creation order with an opaque cursor, robust to a task forgotten between pages", () => {
    const store = new HandlerTaskStore(limits({ pageSize: 2 }));
    const ids = Array.from({ length: 5 }, () => store.create(undefined).taskId);
    const first = store.list(undefined);
    expect(first.tasks.map((task) => task.taskId)).toEqual(ids.slice(0, 2));
    expect(typeof first.nextCursor).toBe("string");
    const second = store.list(first.nextCursor);
    expect(second.tasks.map((task) => task.taskId)).toEqual(ids.slice(2, 4));
    const third = store.list(second.nextCursor);
    expect(third.tasks.map((task) => task.taskId)).toEqual(ids.slice(4));
    expect(third.nextCursor).toBeUndefined();
    expect(store.list(undefined).tasks[0]).toMatchObject({ status: "working", ttl: HANDLER_TASK_LIMITS.maxTtlMs });
    store.close();
    expect(new HandlerTaskStore(limits()).list(undefined)).toEqual({ tasks: [] });
  });

  it("refuses a cursor it did not give with -32602", () => {
    const store = new HandlerTaskStore(limits({ pageSize: 1 }));
    store.create(undefined);
    store.create(undefined);
    for (const cursor of ["abc", "0", "-1", "99", "1e3", "", 7]) {
      expect(thrown(() => store.list(cursor))).toMatchObject({ code: -32602, message: "Invalid cursor for tasks/list" });
    }
    store.close();
  });
});

describe("HandlerTaskStore: the end of the connection", () => {
  it("close() aborts running handlers, forgets every task and refuses new ones", async () => {
    const store = new HandlerTaskStore(limits());
    const running = store.create(undefined);
    const done = store.create(undefined);
    store.complete(done.taskId, { action: "decline" });
    const answer = store.result(running.taskId, new AbortController().signal);
    store.close();
    store.close();
    expect(running.signal.aborted).toBe(true);
    expect(done.signal.aborted).toBe(false);
    expect(store.size).toBe(0);
    expect(await rejection(answer)).toMatchObject({ code: -32602 });
    expect(thrown(() => store.create(undefined))).toMatchObject({ code: -32603 });
  });
});
