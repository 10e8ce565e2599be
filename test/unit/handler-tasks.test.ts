/**
 * Sampling and elicitation run as tasks when a server asks (basic/utilities/tasks, 2025-11-25),
 * played by a scripted server: the `CreateTaskResult`, `tasks/get`, `tasks/result` with its
 * related-task `_meta`, `tasks/list`, `tasks/cancel`, `notifications/tasks/status`, the ceiling,
 * and the capability, declared only in the revision that has client tasks.
 */
import { describe, expect, it } from "vitest";
import { HANDLER_TASK_LIMITS, RecordingTransport, connect, type ClientHandlers } from "../../src/index.js";

const messages = [{ role: "user", content: { type: "text", text: "hi" } }];
const samplingParams = (task?: unknown) => ({ messages, maxTokens: 10, ...(task === undefined ? {} : { task }) });
const answer = { role: "assistant", content: { type: "text", text: "hello" }, model: "m" } as const;

/** A promise settled from outside, for a handler that answers when the test says so. */
function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

interface CreatedTask {
  task: { taskId: string; status: string; ttl: number; createdAt: string; lastUpdatedAt: string };
}

async function errorOf(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    return (error as { error: { code: number; message: string } }).error;
  }
  throw new Error("expected the client to answer with an error");
}

describe("client tasks: a task-augmented request", () => {
  it("is answered at once with a CreateTaskResult while the handler runs, then polled, fetched and announced", async () => {
    const transport = new RecordingTransport({});
    const reply = deferred<typeof answer>();
    let started = 0;
    await using _client = await connect(transport, {
      handlers: {
        sampling: () => {
          started++;
          return reply.promise;
        },
      },
    });
    const created = (await transport.request("sampling/createMessage", samplingParams({ ttl: 60_000 }))) as unknown as CreatedTask;
    expect(created.task).toMatchObject({ status: "working", ttl: 60_000 });
    expect(created.task.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.task.createdAt).toBe(new Date(created.task.createdAt).toISOString());
    const { taskId } = created.task;
    expect(started).toBe(1);
    expect(await transport.request("tasks/get", { taskId })).toMatchObject({ taskId, status: "working", ttl: 60_000 });
    const result = transport.request("tasks/result", { taskId }); // blocks until the task is final
    reply.resolve(answer);
    expect(await result).toEqual({ ...answer, _meta: { "io.modelcontextprotocol/related-task": { taskId } } });
    expect(await transport.request("tasks/get", { taskId })).toMatchObject({ status: "completed" });
    const [status] = transport.notifications("notifications/tasks/status");
    expect(status!.params).toMatchObject({ taskId, status: "completed", ttl: 60_000 });
    expect(status!.params!._meta).toBeUndefined();
    expect(await transport.request("tasks/list")).toEqual({ tasks: [expect.objectContaining({ taskId, status: "completed" })] });
  });

  it("runs elicitation as a task through the same checks: schema defaults filled in", async () => {
    const transport = new RecordingTransport({});
    await using _client = await connect(transport, { handlers: { elicitation: () => ({ action: "accept", content: { name: "Ada" } }) } });
    const created = (await transport.request("elicitation/create", {
      message: "Who?",
      requestedSchema: { type: "object", properties: { name: { type: "string" }, team: { type: "string", default: "ops" } } },
      task: {},
    })) as unknown as CreatedTask;
    expect(created.task.ttl).toBe(HANDLER_TASK_LIMITS.maxTtlMs); // none asked: the longest the client grants
    const result = await transport.request("tasks/result", { taskId: created.task.taskId });
    expect(result).toMatchObject({ action: "accept", content: { name: "Ada", team: "ops" } });
  });

  it("checks the parameters before any task is made: bad params or a bad task field are -32602", async () => {
    const transport = new RecordingTransport({});
    let calls = 0;
    await using _client = await connect(transport, {
      handlers: {
        sampling: () => {
          calls++;
          return answer;
        },
      },
    });
    expect(await errorOf(transport.request("sampling/createMessage", { messages: "nope", task: { ttl: 1_000 } }))).toMatchObject({ code: -32602 });
    for (const task of [7, null, [], { ttl: -1 }, { ttl: "soon" }]) {
      expect(await errorOf(transport.request("sampling/createMessage", samplingParams(task)))).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/^Invalid params: task/),
      });
    }
    expect(calls).toBe(0);
    expect(await transport.request("tasks/list")).toEqual({ tasks: [] });
  });

  it("fails the task when the handler's answer is invalid: tasks/get says why, tasks/result answers the error", async () => {
    const transport = new RecordingTransport({});
    await using _client = await connect(transport, {
      handlers: { sampling: () => ({ role: "robot", content: { type: "text", text: "" }, model: "m" }) as never },
    });
    const { task } = (await transport.request("sampling/createMessage", samplingParams({ ttl: 60_000 }))) as unknown as CreatedTask;
    expect(await errorOf(transport.request("tasks/result", { taskId: task.taskId }))).toEqual({
      code: -32603,
      message: "The client's sampling handler returned an invalid result",
    });
    expect(await transport.request("tasks/get", { taskId: task.taskId })).toMatchObject({
      status: "failed",
      statusMessage: "The client's sampling handler returned an invalid result",
    });
    expect(transport.notifications("notifications/tasks/status")[0]!.params).toMatchObject({ status: "failed" });
  });

  it("fails the task without the client's internals when the handler throws", async () => {
    const transport = new RecordingTransport({});
    await using _client = await connect(transport, {
      handlers: {
        sampling: () => {
          throw new Error("/home/me/secret.txt: no model configured");
        },
      },
    });
    const { task } = (await transport.request("sampling/createMessage", samplingParams({}))) as unknown as CreatedTask;
    expect(await errorOf(transport.request("tasks/result", { taskId: task.taskId }))).toEqual({
      code: -32603,
      message: "The client could not handle sampling/createMessage",
    });
  });

  it("tasks/cancel aborts the handler's signal; the task stays cancelled and has no result", async () => {
    const transport = new RecordingTransport({});
    const aborted = deferred<unknown>();
    await using _client = await connect(transport, {
      handlers: {
        elicitation: ({ signal }) =>
          new Promise((_, reject) =>
            signal.addEventListener("abort", () => {
              aborted.resolve(signal.reason);
              reject(signal.reason);
            }),
          ),
      },
    });
    const { task } = (await transport.request("elicitation/create", {
      message: "Sure?",
      requestedSchema: { type: "object", properties: {} },
      task: { ttl: 60_000 },
    })) as unknown as CreatedTask;
    const waiting = errorOf(transport.request("tasks/result", { taskId: task.taskId }));
    expect(await transport.request("tasks/cancel", { taskId: task.taskId })).toMatchObject({ taskId: task.taskId, status: "cancelled" });
    await aborted.promise;
    expect(await waiting).toMatchObject({ code: -32602 });
    expect(await transport.request("tasks/get", { taskId: task.taskId })).toMatchObject({ status: "cancelled" });
    expect(await errorOf(transport.request("tasks/cancel", { taskId: task.taskId }))).toMatchObject({ code: -32602 });
    expect(transport.notifications("notifications/tasks/status")).toEqual([]);
  });

  it("answers an unknown task id with -32602", async () => {
    const transport = new RecordingTransport({});
    await using _client = await connect(transport, { handlers: { sampling: () => answer } });
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
      expect(await errorOf(transport.request(method, { taskId: "no-such-task" }))).toMatchObject({ code: -32602 });
    }
    expect(await errorOf(transport.request("tasks/list", { cursor: "not-mine" }))).toMatchObject({ code: -32602 });
  });

  it("refuses a task beyond the ceiling with -32603, while plain requests are still answered", async () => {
    const transport = new RecordingTransport({});
    const never = new Promise<never>(() => {});
    let plain = false;
    await using _client = await connect(transport, {
      handlers: { sampling: ({ params }) => ((params as { task?: unknown }).task === undefined ? ((plain = true), answer) : never) },
    });
    const accepted = await Promise.all(
      Array.from({ length: HANDLER_TASK_LIMITS.maxTasks }, () => transport.request("sampling/createMessage", samplingParams({ ttl: 60_000 }))),
    );
    expect(new Set(accepted.map((created) => (created as unknown as CreatedTask).task.taskId)).size).toBe(HANDLER_TASK_LIMITS.maxTasks);
    expect(await errorOf(transport.request("sampling/createMessage", samplingParams({ ttl: 60_000 })))).toEqual({
      code: -32603,
      message: `The client already holds ${HANDLER_TASK_LIMITS.maxTasks} tasks, its most; ask again once some have finished or expired`,
    });
    expect(await transport.request("sampling/createMessage", samplingParams())).toEqual(answer);
    expect(plain).toBe(true);
    // tasks/list pages through all of them.
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await transport.request("tasks/list", cursor === undefined ? {} : { cursor })) as { tasks: { taskId: string }[]; nextCursor?: string };
      listed.push(...page.tasks.map((task) => task.taskId));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(listed).toHaveLength(HANDLER_TASK_LIMITS.maxTasks);
  });

  it("aborts the running handlers when the connection ends", async () => {
    const transport = new RecordingTransport({});
    const aborted = deferred<void>();
    await using _client = await connect(transport, {
      handlers: { sampling: ({ signal }) => new Promise((_, reject) => signal.addEventListener("abort", () => (aborted.resolve(), reject(signal.reason)))) },
    });
    await transport.request("sampling/createMessage", samplingParams({ ttl: 60_000 }));
    transport.disconnect();
    await aborted.promise;
  });
});

describe("client tasks: where they apply", () => {
  const handlers: ClientHandlers = { sampling: () => answer, elicitation: () => ({ action: "decline" }) };

  it("declares tasks.requests for the handlers given only, with list and cancel", async () => {
    const capabilitiesOf = async (given: ClientHandlers, capabilities?: Record<string, unknown>) => {
      const transport = new RecordingTransport({});
      await using _client = await connect(transport, { handlers: given, capabilities });
      return transport.requests("initialize")[0]!.params!.capabilities as Record<string, unknown>;
    };
    expect((await capabilitiesOf({ sampling: () => answer })).tasks).toEqual({ list: {}, cancel: {}, requests: { sampling: { createMessage: {} } } });
    expect((await capabilitiesOf({ elicitation: () => ({ action: "decline" }) })).tasks).toEqual({
      list: {},
      cancel: {},
      requests: { elicitation: { create: {} } },
    });
    expect((await capabilitiesOf({ roots: [] })).tasks).toBeUndefined();
    expect((await capabilitiesOf({})).tasks).toBeUndefined();
    // The user's own declarations merge at every depth; they do not replace the handlers'.
    expect((await capabilitiesOf(handlers, { tasks: { requests: { sampling: { extra: true } } } })).tasks).toEqual({
      list: {},
      cancel: {},
      requests: { sampling: { createMessage: {}, extra: true }, elicitation: { create: {} } },
    });
  });

  it("runs a request plainly, the task field ignored, in a revision without tasks; tasks/* are unknown there", async () => {
    const transport = new RecordingTransport({});
    await using client = await connect(transport, { handlers, protocolVersion: "2025-06-18" });
    expect(client.protocolVersion).toBe("2025-06-18");
    expect(await transport.request("sampling/createMessage", samplingParams({ ttl: 60_000 }))).toEqual(answer);
    expect(await errorOf(transport.request("tasks/list"))).toMatchObject({ code: -32601 });
    expect(await errorOf(transport.request("tasks/get", { taskId: "x" }))).toMatchObject({ code: -32601 });
  });

  it("declares no client tasks in the modern era, and answers an input request that names a task plainly", async () => {
    const transport = new RecordingTransport(
      {
        "tools/call": (params) => {
          const responses = params.inputResponses as Record<string, unknown> | undefined;
          if (!responses) {
            return {
              resultType: "input_required",
              inputRequests: { draft: { method: "sampling/createMessage", params: samplingParams({ ttl: 60_000 }) } },
              requestState: "s",
            };
          }
          return { resultType: "complete", content: [{ type: "text", text: JSON.stringify(responses.draft) }] };
        },
      },
      { era: "modern" },
    );
    await using client = await connect(transport, { handlers });
    const result = await client.callTool("draft", {}, { validateOutput: false });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(answer);
    const capabilities = transport.requests("tools/call")[0]!.params!._meta as Record<string, Record<string, unknown>>;
    expect(capabilities["io.modelcontextprotocol/clientCapabilities"]).toEqual({ sampling: {}, elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } });
  });
});
