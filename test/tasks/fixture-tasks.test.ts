/**
 * Tool tasks in both eras against fixture servers whose tasks outlive the connection that made
 * them: test/fixtures/legacy-task-server.ts (revision 2025-11-25, official SDK v1, Streamable
 * HTTP) and test/fixtures/modern-task-server.ts (revision 2026-07-28, the tasks extension as its
 * text says, Streamable HTTP and stdio).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, forgetEras, type ElicitationRequest, type TaskState } from "../../src/index.js";
import { failure } from "../helpers/failure.js";
import { startHttpFixture, type HttpFixture } from "../helpers/http-fixture.js";

let legacy: HttpFixture | undefined;
let modern: HttpFixture | undefined;

beforeAll(async () => {
  [legacy, modern] = await Promise.all([
    startHttpFixture("test/fixtures/legacy-task-server.ts"),
    startHttpFixture("test/fixtures/modern-task-server.ts", "http"),
  ]);
});

afterAll(() => {
  legacy?.child.kill("SIGTERM");
  modern?.child.kill("SIGTERM");
});

const modernStdio = `"${process.execPath}" --import tsx test/fixtures/modern-task-server.ts stdio`;

describe("2025-11-25 tasks (SDK v1 fixture)", () => {
  it("an optional tool runs plainly by default and as a task when asked", async () => {
    await using client = await connect(legacy!.url);
    const plain = await client.callTool("count", { to: 3 });
    expect(plain.content).toEqual([{ type: "text", text: "counted to 3" }]);
    expect(plain._meta?.["io.modelcontextprotocol/related-task"]).toBeUndefined();

    const states: TaskState[] = [];
    const tasked = await client.callTool("count", { to: 4 }, { task: { ttlMs: 30_000 }, onTaskStatus: (state) => states.push(state) });
    expect(tasked.content).toEqual([{ type: "text", text: "counted to 4" }]);
    expect(states[0]).toMatchObject({ status: "working", pollIntervalMs: 50 });
    expect(tasked._meta?.["io.modelcontextprotocol/related-task"]).toEqual({ taskId: states[0]!.taskId });
  });

  it("a task that ends failed with a tool error resolves with the isError result (tasks/result returns what the call would have)", async () => {
    await using client = await connect(legacy!.url);
    const result = await client.callTool("broken");
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: "text", text: "the job broke" }]);
  });

  it("checks the task's final result against the tool's outputSchema (validateOutput)", async () => {
    await using client = await connect(legacy!.url);
    const error = await failure(client.callTool("structured"));
    expect(error.kind).toBe("output_schema");
    expect(error.message).toContain('callTool "structured" returned structuredContent that does not match the tool\'s outputSchema at /count');
    expect((await client.callTool("structured", {}, { validateOutput: false })).structuredContent).toEqual({ count: "three" });
    // The handle's result is checked the same way.
    const task = await client.startToolTask("structured");
    expect((await failure(task.result())).kind).toBe("output_schema");
  });

  it("refuses startToolTask of a tool without task support, and lists tasks across pages", async () => {
    await using client = await connect(legacy!.url);
    expect((await failure(client.startToolTask("plain"))).kind).toBe("task_unsupported");
    const started = await Promise.all(Array.from({ length: 12 }, (_, i) => client.startToolTask("count", { to: i })));
    const first = await client.listTasksPage();
    expect(first.tasks).toHaveLength(10);
    expect(first.nextCursor).toEqual(expect.any(String));
    const all = await client.listTasks();
    expect(all.map((state) => state.taskId)).toEqual(expect.arrayContaining(started.map((task) => task.id)));
    await Promise.all(started.map((task) => task.result()));
  });

  it("resumes a task by its id from a new connection: status, result", async () => {
    let taskId: string;
    {
      await using first = await connect(legacy!.url);
      const task = await first.startToolTask("slow", { ms: 400 });
      taskId = task.id!;
    }
    await using second = await connect(legacy!.url);
    const task = second.task(taskId, { tool: "slow" });
    expect(task.state).toBeUndefined();
    expect((await task.status()).taskId).toBe(taskId);
    expect((await task.result()).content).toEqual([{ type: "text", text: "slept 400 ms" }]);
    expect(task.state?.status).toBe("completed");
  });

  it("a handle goes on in the new session after the server forgot the one the task started in", async () => {
    await using client = await connect(legacy!.url);
    const task = await client.startToolTask("slow", { ms: 300 });
    const before = client.session.sessionId;
    await fetch(new URL("/forget-sessions", legacy!.url), { method: "POST" });
    expect((await task.result()).content).toEqual([{ type: "text", text: "slept 300 ms" }]);
    expect(client.session.sessionId).not.toBe(before);
  });

  it("a handle's result() stops waiting at its timeout without cancelling the task; cancel() does", async () => {
    await using client = await connect(legacy!.url);
    const task = await client.startToolTask("slow", { ms: 60_000 });
    const error = await failure(task.result({ timeoutMs: 200 }));
    expect(error.reason).toBe("TIMEOUT");
    expect((await task.status()).status).toBe("working");
    await task.cancel();
    expect(task.state?.status).toBe("cancelled");
  });

  it("a handle refuses options it does not take, naming them, before anything is sent or armed", async () => {
    await using client = await connect(legacy!.url);
    const task = await client.startToolTask("slow", { ms: 60_000 });
    const where = `callTool "slow", task ${JSON.stringify(task.id)}`;
    await expect(task.result({ signal: {} as AbortSignal })).rejects.toThrow(`${where} result(): "signal" must be an AbortSignal`);
    await expect(task.result({ onStatus: "render" as never, timeoutMs: 60_000 })).rejects.toThrow(`${where} result(): "onStatus" must be a function, got "render"`);
    await expect(task.result({ timeout: 5 } as never)).rejects.toThrow(`${where} result(): unknown option "timeout" (did you mean "timeoutMs"?)`);
    await expect(task.status({ timeout: 5 } as never)).rejects.toThrow(`${where} status(): unknown option "timeout"`);
    await expect(task.cancel({ signal: "stop" } as never)).rejects.toThrow(`${where} cancel(): "signal" must be an AbortSignal`);
    expect(() => task.onStatus("render" as never)).toThrow(`${where} onStatus(): "listener" must be a function, got "render"`);
    expect(() => task.onProgress(42 as never)).toThrow(TypeError);
    await expect(client.callTool("slow", { ms: 1 }, { onTaskStatus: "render" as never })).rejects.toThrow(
      'callTool "slow": "onTaskStatus" must be a function, got "render"',
    );
    // None of it reached the server: the task still works, and nothing waits on the session.
    expect((await task.status()).status).toBe("working");
    expect(client.session.load).toEqual({ inFlight: 0, waiting: 0 });
    await task.cancel();
  });
});

describe("the tasks extension (revision 2026-07-28 fixture)", () => {
  const answered: ElicitationRequest[] = [];
  const handlers = {
    elicitation: (request: ElicitationRequest) => {
      answered.push(request);
      return { action: "accept" as const, content: { ok: true } };
    },
  };

  it("declares the extension in every request, and follows the task the server chose to make", async () => {
    await using client = await connect(modern!.url);
    expect(client.era).toBe("modern");
    const states: TaskState[] = [];
    const result = await client.callTool("slow_compute", { ms: 150 }, { onTaskStatus: (state) => states.push(state) });
    expect(result.content).toEqual([{ type: "text", text: "computed in 150 ms" }]);
    expect(states[0]).toMatchObject({ status: "working", ttlMs: 60_000, pollIntervalMs: 40 });
    expect(states.at(-1)!.status).toBe("completed");
    // Over HTTP, each tasks/* request is routed by its task: Mcp-Name carries params.taskId.
    const log = (await client.request("fixture/log")) as { routes: { method: string; mcpMethod?: string; mcpName?: string }[] };
    const routes = log.routes.filter((route) => route.mcpName === states[0]!.taskId);
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.every((route) => route.method === "tasks/get" && route.mcpMethod === "tasks/get")).toBe(true);
  });

  it("a question whose answer failed is asked again by the next wait", async () => {
    let calls = 0;
    await using client = await connect(modern!.url, {
      handlers: {
        elicitation: () => {
          if (++calls === 1) throw new Error("the person closed the dialog");
          return { action: "accept", content: { ok: false } };
        },
      },
    });
    const task = await client.startToolTask("confirm");
    const error = await failure(task.result());
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain("the server's elicitation/create input request could not be answered");
    expect((await task.result()).content).toEqual([{ type: "text", text: "confirmed: false" }]);
    expect(calls).toBe(2);
  });

  it("answers an input_required task's questions once, through the handlers, with tasks/update", async () => {
    answered.length = 0;
    await using client = await connect(modern!.url, { handlers });
    const states: TaskState[] = [];
    const result = await client.callTool("confirm", {}, { onTaskStatus: (state) => states.push(state) });
    expect(result.content).toEqual([{ type: "text", text: "confirmed: true" }]);
    expect(answered).toHaveLength(1);
    expect(answered[0]!.params.message).toBe("Proceed?");
    const taskId = states[0]!.taskId;
    const log = (await client.request("fixture/log")) as { updates: { taskId: string; keys: string[] }[] };
    expect(log.updates.filter((update) => update.taskId === taskId)).toEqual([{ taskId, keys: ["confirm"] }]);
    // The question was still shown by the polls after the answer, and not asked again.
    expect((log as unknown as { questionsShown: Record<string, number> }).questionsShown[taskId]).toBeGreaterThanOrEqual(3);
    expect(states.map((state) => state.status)).toEqual(expect.arrayContaining(["working", "input_required", "completed"]));
  });

  it("a failed task rejects with its JSON-RPC error (kind server_error); a tool error resolves with isError", async () => {
    await using client = await connect(modern!.url);
    const error = await failure(client.callTool("protocol_error_job"));
    expect(error).toMatchObject({ reason: "PROTOCOL", kind: "server_error", code: -32603, serverMessage: "the job broke", method: "tools/call" });
    expect(error.message).not.toContain("the job broke");
    const result = await client.callTool("failing_job");
    expect(result.isError).toBe(true);
  });

  it("checks the task's final result against the tool's outputSchema", async () => {
    await using client = await connect(modern!.url);
    expect((await failure(client.callTool("structured"))).kind).toBe("output_schema");
  });

  it("a server may answer at once: startToolTask then gives a handle without an id, holding the result", async () => {
    await using client = await connect(modern!.url);
    const task = await client.startToolTask("quick");
    expect(task.id).toBeUndefined();
    expect(task.done).toBe(true);
    expect((await task.result()).content).toEqual([{ type: "text", text: "quick answer" }]);
    await expect(task.status()).rejects.toThrow(/answered the call at once, without a task/);
    await task.cancel(); // nothing to cancel: nothing is sent
  });

  it("timeoutMs and an abort send tasks/cancel; the extension has no tasks/list", async () => {
    await using client = await connect(modern!.url);
    let timedOut: string | undefined;
    const error = await failure(client.callTool("forever", {}, { timeoutMs: 300, onTaskStatus: (state) => (timedOut = state.taskId) }));
    expect(error.reason).toBe("TIMEOUT");
    const controller = new AbortController();
    let aborted: string | undefined;
    await expect(
      client.callTool("forever", {}, {
        signal: controller.signal,
        onTaskStatus: (state) => {
          aborted = state.taskId;
          controller.abort();
        },
      }),
    ).rejects.toThrow(/aborted/);
    const log = (await client.request("fixture/log")) as { cancels: string[] };
    expect(log.cancels).toEqual(expect.arrayContaining([timedOut, aborted]));
    expect((await client.task(aborted!).status()).status).toBe("cancelled");
    expect((await failure(client.listTasks())).kind).toBe("task_unsupported");
  });

  it("resumes a task by its id from a new connection", async () => {
    let taskId: string;
    {
      await using first = await connect(modern!.url);
      taskId = (await first.startToolTask("slow_compute", { ms: 300 })).id!;
    }
    await using second = await connect(modern!.url);
    expect((await second.task(taskId).result()).content).toEqual([{ type: "text", text: "computed in 300 ms" }]);
  });

  it("refuses a task answer to a request other than tools/call (prompts/get), as an invalid response", async () => {
    await using client = await connect(modern!.url);
    const error = await failure(client.getPrompt("tasked"));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain("the server answered prompts/get with a task, which only tools/call may do");
  });

  it("over stdio too", async () => {
    forgetEras();
    answered.length = 0;
    await using client = await connect(modernStdio, { handlers });
    expect(client.era).toBe("modern");
    expect((await client.callTool("confirm")).content).toEqual([{ type: "text", text: "confirmed: true" }]);
    expect(answered).toHaveLength(1);
  });
});

describe("a connection lost while a task runs", () => {
  const exitsAfterCreating = `"${process.execPath}" test/fixtures/stdio-task-then-exit.mjs`;

  it("fails the call's wait when the connection ends, not at the next poll the server suggested (10 minutes)", async () => {
    await using client = await connect(exitsAfterCreating, { protocolVersion: "2025-11-25" });
    const states: TaskState[] = [];
    const error = await failure(client.callTool("job", {}, { timeoutMs: 3_600_000, onTaskStatus: (state) => states.push(state) }));
    expect(states[0]).toMatchObject({ taskId: "job-1", status: "working", pollIntervalMs: 600_000 });
    expect(error.reason).toBe("DISCONNECTED");
    expect(error.message).toMatch(/^callTool "job", task "job-1": tasks\/get cannot be sent: the connection is closed/);
  });

  it("fails a handle's result() the same way", async () => {
    await using client = await connect(exitsAfterCreating, { protocolVersion: "2025-11-25" });
    const task = await client.startToolTask("job", {});
    const error = await failure(task.result({ timeoutMs: 3_600_000 }));
    expect(error.reason).toBe("DISCONNECTED");
  });
});
