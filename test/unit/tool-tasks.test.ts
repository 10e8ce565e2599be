/**
 * Tool tasks against scripted servers (RecordingTransport): what goes on the wire, and each
 * failure path. 2025-11-25: basic/utilities/tasks; 2026-07-28: the tasks extension.
 */
import { describe, expect, it } from "vitest";
import { RecordingTransport, connect, type ElicitResult, type Progress, type ScriptContext } from "../../src/index.js";
import { modernHeaders } from "../../src/client/modern-headers.js";
import { MIN_TASK_POLL_INTERVAL_MS, pollDelay } from "../../src/client/tasks/task-timing.js";
import { failure } from "../helpers/failure.js";

const TASKS = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
const STAMP = { createdAt: "2025-11-25T10:00:00Z", lastUpdatedAt: "2025-11-25T10:00:00Z", ttl: 60_000 };

function tool(name: string, taskSupport?: "forbidden" | "optional" | "required") {
  return { name, inputSchema: { type: "object" }, ...(taskSupport === undefined ? {} : { execution: { taskSupport } }) };
}

function task(status: string, extra: Record<string, unknown> = {}) {
  return { taskId: "task-1", status, ...STAMP, pollInterval: 10, ...extra };
}

const done = { content: [{ type: "text", text: "done" }], _meta: { "io.modelcontextprotocol/related-task": { taskId: "task-1" } } };

/** A legacy server whose `job` tool requires a task, and whose tasks/get answers from `polls`, then completed. */
function legacyServer(script: Record<string, unknown> = {}, polls: Record<string, unknown>[] = [], capabilities: Record<string, unknown> = { tools: {}, tasks: TASKS }) {
  const answers = [...polls];
  return new RecordingTransport(
    {
      "tools/list": { tools: [tool("job", "required"), tool("maybe", "optional"), tool("never", "forbidden"), tool("bare")] },
      "tools/call": (params: Record<string, unknown>) => (params.task === undefined ? { content: [{ type: "text", text: "plain" }] } : { task: task("working") }),
      "tasks/get": () => answers.shift() ?? task("completed"),
      "tasks/result": done,
      "tasks/cancel": task("cancelled"),
      ...script,
    } as never,
    { capabilities },
  );
}

describe("2025-11-25: which calls run as tasks", () => {
  it("a required tool's call carries params.task (with the ttl asked for), then tasks/get, then tasks/result", async () => {
    const transport = legacyServer();
    await using client = await connect(transport);
    expect((await client.callTool("job", { a: 1 })).content).toEqual([{ type: "text", text: "done" }]);
    expect(transport.requests("tools/call")[0]!.params).toMatchObject({ name: "job", arguments: { a: 1 }, task: {} });
    expect(transport.requests("tasks/get")[0]!.params).toEqual({ taskId: "task-1" });
    expect(transport.requests("tasks/result")[0]!.params).toEqual({ taskId: "task-1" });
    await client.callTool("maybe", {}, { task: { ttlMs: 5_000 } });
    expect(transport.requests("tools/call")[1]!.params).toMatchObject({ name: "maybe", task: { ttl: 5_000 } });
    // The client runs no tasks of its own here: it declares no tasks capability for them.
    expect(transport.requests("initialize")[0]!.params!.capabilities).toEqual({});
  });

  it("an optional tool runs plainly unless asked; a tool without taskSupport, or forbidden, is refused before anything is sent", async () => {
    const transport = legacyServer();
    await using client = await connect(transport);
    expect((await client.callTool("maybe")).content).toEqual([{ type: "text", text: "plain" }]);
    expect(transport.requests("tools/call")[0]!.params!.task).toBeUndefined();
    for (const name of ["never", "bare", "missing"]) {
      const error = await failure(client.callTool(name, {}, { task: true }));
      expect(error).toMatchObject({ reason: "PROTOCOL", kind: "task_unsupported", method: "tools/call" });
    }
    expect((await failure(client.callTool("missing", {}, { task: true }))).message).toContain("the server's tool list has no tool of that name");
    expect(transport.requests("tools/call")).toHaveLength(1);
  });

  it("never augments a call to a server without tasks.requests.tools.call, and refuses { task: true } there without listing", async () => {
    const transport = legacyServer({}, [], { tools: {} });
    await using client = await connect(transport);
    const error = await failure(client.callTool("job", {}, { task: true }));
    expect(error.kind).toBe("task_unsupported");
    expect(error.message).toContain("its capabilities have no tasks.requests.tools.call");
    expect(transport.requests()).toHaveLength(1); // initialize only
    expect((await client.callTool("job")).content).toEqual([{ type: "text", text: "plain" }]);
    expect(transport.requests("tools/call")[0]!.params!.task).toBeUndefined();
  });

  it("refuses a task option that is not one, naming what is taken", async () => {
    await using client = await connect(legacyServer());
    await expect(client.callTool("job", {}, { task: "yes" as never })).rejects.toThrow(/"task" must be true, false or \{ ttlMs \}/);
    await expect(client.callTool("job", {}, { task: { ttl: 5 } as never })).rejects.toThrow(/unknown key "task.ttl"; a task request takes ttlMs only/);
    await expect(client.callTool("job", {}, { task: { ttlMs: -1 } })).rejects.toThrow(/"task.ttlMs" must be a whole number/);
  });

  it("an answer to an augmented call that is the result itself is taken as it is", async () => {
    const transport = legacyServer({ "tools/call": { content: [{ type: "text", text: "at once" }] } });
    await using client = await connect(transport);
    expect((await client.callTool("job")).content).toEqual([{ type: "text", text: "at once" }]);
    expect(transport.requests("tasks/get")).toHaveLength(0);
  });
});

describe("2025-11-25: giving up before the task is created", () => {
  // basic/utilities/cancellation: "For task-augmented requests, the `tasks/cancel` request MUST be
  // used instead of the `notifications/cancelled` notification."

  /** A legacy server whose tools/call answers only when the test releases it. */
  function heldServer() {
    let release!: (answer: Record<string, unknown>) => void;
    const held = new Promise<Record<string, unknown>>((resolve) => (release = resolve));
    return { transport: legacyServer({ "tools/call": () => held }), release };
  }

  it("an abort rejects the call at once, sends no notifications/cancelled, and cancels the task once it is created", async () => {
    const { transport, release } = heldServer();
    await using client = await connect(transport);
    await client.listTools();
    const controller = new AbortController();
    const call = client.callTool("job", {}, { signal: controller.signal });
    await expect.poll(() => transport.requests("tools/call")).toHaveLength(1);
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    release({ task: task("working") });
    await expect.poll(() => transport.requests("tasks/cancel").map((request) => request.params)).toEqual([{ taskId: "task-1" }]);
    expect(transport.notifications("notifications/cancelled")).toEqual([]);
  });

  it("the timeout does the same", async () => {
    const { transport, release } = heldServer();
    await using client = await connect(transport);
    await client.listTools();
    expect(await failure(client.callTool("job", {}, { timeoutMs: 200 }))).toMatchObject({ reason: "TIMEOUT", timeoutMs: 200 });
    release({ task: task("working") });
    await expect.poll(() => transport.requests("tasks/cancel").map((request) => request.params)).toEqual([{ taskId: "task-1" }]);
    expect(transport.notifications("notifications/cancelled")).toEqual([]);
  });

  it("startToolTask does the same", async () => {
    const { transport, release } = heldServer();
    await using client = await connect(transport);
    const controller = new AbortController();
    const started = client.startToolTask("job", {}, { signal: controller.signal });
    await expect.poll(() => transport.requests("tools/call")).toHaveLength(1);
    controller.abort(new Error("stop"));
    await expect(started).rejects.toThrow("stop");
    release({ task: task("working") });
    await expect.poll(() => transport.requests("tasks/cancel").map((request) => request.params)).toEqual([{ taskId: "task-1" }]);
    expect(transport.notifications("notifications/cancelled")).toEqual([]);
  });

  it("a server that answers with the result itself after the abort is sent nothing more", async () => {
    const { transport, release } = heldServer();
    await using client = await connect(transport);
    await client.listTools();
    const controller = new AbortController();
    const call = client.callTool("job", {}, { signal: controller.signal });
    await expect.poll(() => transport.requests("tools/call")).toHaveLength(1);
    controller.abort(new Error("stop"));
    await expect(call).rejects.toThrow("stop");
    release({ content: [{ type: "text", text: "plain" }] });
    // One round trip after the late answer: what it led to would have been sent by then.
    await client.listTools();
    expect(transport.sent.filter((message) => "method" in message).map((message) => message.method)).toEqual([
      "initialize",
      "notifications/initialized",
      "tools/list",
      "tools/call",
      "tools/list",
    ]);
  });
});

describe("2025-11-25: waiting for a task", () => {
  it("waits at least the server's pollInterval between polls, and at least the floor for a 0", async () => {
    for (const [interval, least] of [
      [150, 150],
      [0, MIN_TASK_POLL_INTERVAL_MS],
    ] as const) {
      const times: number[] = [];
      const polls = [task("working", { pollInterval: interval }), task("working", { pollInterval: interval })];
      const transport = legacyServer({
        "tools/call": { task: task("working", { pollInterval: interval }) },
        "tasks/get": () => {
          times.push(performance.now());
          return polls.shift() ?? task("completed");
        },
      });
      await using client = await connect(transport);
      await client.callTool("job");
      expect(times).toHaveLength(3);
      // Timers may fire a millisecond early; the load of a busy machine only makes the gaps longer.
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(least - 2);
    }
    expect(pollDelay(undefined, 60_000)).toBe(1_000);
    expect(pollDelay({ pollIntervalMs: 5_000 } as never, 300)).toBe(300);
  });

  it("follows notifications/tasks/status: a wait woken by one needs no poll", async () => {
    const transport = legacyServer({ "tools/call": { task: task("working", { pollInterval: 600_000 }) } });
    await using client = await connect(transport, { timeoutMs: 120_000 });
    const statuses: string[] = [];
    const call = client.callTool("job", {}, { onTaskStatus: (state) => statuses.push(state.status) });
    // The call tells the task's first state as it starts to follow it: the server's notice comes after.
    await expect.poll(() => statuses, { timeout: 5_000 }).toEqual(["working"]);
    transport.notify("notifications/tasks/status", task("completed", { pollInterval: 600_000 }));
    await call;
    expect(statuses).toEqual(["working", "completed"]);
    expect(transport.requests("tasks/get")).toHaveLength(0);
  });

  it("hears the task's progress after creation on the call's own progress token", async () => {
    let token: unknown;
    const transport = legacyServer({
      "tools/call": (params: Record<string, unknown>) => {
        token = (params._meta as { progressToken: number }).progressToken;
        return { task: task("working", { pollInterval: 600_000 }) };
      },
    });
    await using client = await connect(transport, { timeoutMs: 120_000 });
    const heard: Progress[] = [];
    let following = false;
    const call = client.callTool("job", {}, { onProgress: (progress) => heard.push(progress), onTaskStatus: () => (following = true) });
    // The call tells the task's first state as it starts to follow it: the server reports after.
    await expect.poll(() => following, { timeout: 5_000 }).toBe(true);
    transport.notify("notifications/progress", { progressToken: token, progress: 1, total: 2, message: "half" });
    transport.notify("notifications/tasks/status", task("completed"));
    await call;
    expect(heard).toEqual([{ progress: 1, total: 2, message: "half" }]);
  });

  it("a task that ends cancelled (not by this call) fails with task_cancelled, and is not cancelled again", async () => {
    const transport = legacyServer({}, [task("cancelled")]);
    await using client = await connect(transport);
    const error = await failure(client.callTool("job"));
    expect(error).toMatchObject({ reason: "PROTOCOL", kind: "task_cancelled" });
    expect(transport.requests("tasks/cancel")).toHaveLength(0);
  });

  it("a failed task's JSON-RPC error from tasks/result is the call's failure (server_error, the server's words kept apart)", async () => {
    const transport = legacyServer({ "tasks/result": RecordingTransport.error(-32603, "secret server words") }, [task("failed")]);
    await using client = await connect(transport);
    const error = await failure(client.callTool("job"));
    expect(error).toMatchObject({ kind: "server_error", code: -32603, serverMessage: "secret server words" });
    expect(error.message).not.toContain("secret server words");
    expect(transport.requests("tasks/cancel")).toHaveLength(0);
  });

  it("a task that ends with -32042 has its tools/call sent again (a new task) after the URL elicitation, not its tasks/result", async () => {
    // tasks: "For tasks in a terminal status, receivers MUST return from tasks/result exactly what
    // the underlying request would have returned"; elicitation: the -32042 lists the elicitations
    // "required to complete before the original can be retried". The original is the tools/call.
    const elicitation = { mode: "url", elicitationId: "connect-1", url: "https://example.com/connect", message: "Connect." };
    let created = 0;
    const transport = legacyServer({
      "tools/call": () => ({ task: task("working", { taskId: `task-${++created}` }) }),
      "tasks/get": (params: Record<string, unknown>) => task(params.taskId === "task-1" ? "failed" : "completed", { taskId: params.taskId }),
      "tasks/result": (params: Record<string, unknown>) =>
        params.taskId === "task-1"
          ? RecordingTransport.error(-32042, "This request requires more information.", { elicitations: [elicitation] })
          : { ...done, _meta: { "io.modelcontextprotocol/related-task": { taskId: params.taskId } } },
    });
    const requiredBy: (string | undefined)[] = [];
    await using client = await connect(transport, {
      handlers: {
        elicitation: {
          url: (request) => {
            requiredBy.push(request.requiredBy);
            return { action: "accept" };
          },
        },
      },
    });
    expect((await client.callTool("job")).content).toEqual([{ type: "text", text: "done" }]);
    expect(requiredBy).toEqual(["tools/call"]);
    expect(transport.requests("tools/call").map((request) => request.params!.name)).toEqual(["job", "job"]);
    expect(transport.requests("tasks/result").map((request) => request.params!.taskId)).toEqual(["task-1", "task-2"]);
  });

  it("a task that ends with -32042 again after the retry fails url_elicitation_required, having asked the user once", async () => {
    const elicitation = { mode: "url", elicitationId: "connect-1", url: "https://example.com/connect", message: "Connect." };
    const transport = legacyServer({ "tasks/result": RecordingTransport.error(-32042, "again", { elicitations: [elicitation] }) }, [task("failed"), task("failed")]);
    let asked = 0;
    await using client = await connect(transport, { handlers: { elicitation: { url: () => (asked++, { action: "accept" }) } } });
    const error = await failure(client.callTool("job"));
    expect(error).toMatchObject({ reason: "PROTOCOL", kind: "url_elicitation_required", code: -32042 });
    expect(asked).toBe(1);
    expect(transport.requests("tools/call")).toHaveLength(2);
    expect(transport.requests("tasks/result")).toHaveLength(2);
  });

  it("a retried tools/call answered -32042 at once fails url_elicitation_required: one round of elicitations per call", async () => {
    // The -32042 lists the elicitations "required to complete before the original can be retried"
    // (client/elicitation): the retry is that one retry, not the start of another round.
    const elicitation = { mode: "url", elicitationId: "connect-1", url: "https://example.com/connect", message: "Connect." };
    let calls = 0;
    const transport = legacyServer(
      {
        "tools/call": () => (++calls === 1 ? { task: task("working") } : RecordingTransport.error(-32042, "again", { elicitations: [elicitation] })),
        "tasks/result": RecordingTransport.error(-32042, "first", { elicitations: [elicitation] }),
      },
      [task("failed")],
    );
    let asked = 0;
    await using client = await connect(transport, { handlers: { elicitation: { url: () => (asked++, { action: "accept" }) } } });
    const error = await failure(client.callTool("job"));
    expect(error).toMatchObject({ reason: "PROTOCOL", kind: "url_elicitation_required", code: -32042 });
    expect(asked).toBe(1);
    expect(transport.requests("tools/call")).toHaveLength(2);
  });

  it("a CreateTaskResult that is not one is a PROTOCOL failure naming the field", async () => {
    const transport = legacyServer({ "tools/call": { task: { taskId: 7, status: "working" } } });
    await using client = await connect(transport);
    const error = await failure(client.callTool("job"));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain('callTool "job" returned a result that does not match the MCP schema at task.taskId');
  });

  it("a poll answered badly fails the call, and the task is cancelled (best effort)", async () => {
    const transport = legacyServer({}, [{ taskId: "task-1", status: "sleeping" }]);
    await using client = await connect(transport);
    const error = await failure(client.callTool("job"));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.message).toContain('callTool "job", task "task-1": tasks/get returned a result that does not match the MCP schema at status');
    expect(transport.requests("tasks/cancel").map((request) => request.params)).toEqual([{ taskId: "task-1" }]);
  });

  it("sends no tasks/cancel to a server without tasks.cancel", async () => {
    const transport = legacyServer({}, [task("working", { pollInterval: 600_000 })], { tools: {}, tasks: { requests: { tools: { call: {} } } } });
    await using client = await connect(transport);
    const error = await failure(client.callTool("job", {}, { timeoutMs: 100 }));
    expect(error.reason).toBe("TIMEOUT");
    expect(transport.requests("tasks/cancel")).toHaveLength(0);
    // The handle says why it cannot cancel, and listing is refused for want of tasks.list.
    expect((await failure(client.task("task-1").cancel())).kind).toBe("task_unsupported");
    expect((await failure(client.listTasks())).message).toContain("the server does not list tasks (its capabilities have no tasks.list)");
  });

  it("answers a question of an input_required task through the handlers; the answer names the task in _meta", async () => {
    let answer: Record<string, unknown> | undefined;
    const transport = legacyServer(
      {
        "tasks/result": async (_params: Record<string, unknown>, { transport: server }: ScriptContext) => {
          answer = await server.request("elicitation/create", {
            message: "Which one?",
            requestedSchema: { type: "object", properties: { pick: { type: "string" } } },
            _meta: { "io.modelcontextprotocol/related-task": { taskId: "task-1" } },
          });
          return done;
        },
      },
      [task("input_required")],
    );
    await using client = await connect(transport, { handlers: { elicitation: (): ElicitResult => ({ action: "accept", content: { pick: "b" } }) } });
    expect((await client.callTool("job")).content).toEqual([{ type: "text", text: "done" }]);
    expect(answer).toEqual({ action: "accept", content: { pick: "b" }, _meta: { "io.modelcontextprotocol/related-task": { taskId: "task-1" } } });
  });

  it("tasks/* methods are refused on the raw path, naming the typed call", async () => {
    await using client = await connect(legacyServer());
    await expect(client.request("tasks/get", { taskId: "task-1" })).rejects.toThrow(/use client.task\(id\).status\(\)/);
    await expect(client.request("tasks/list")).rejects.toThrow(/use client.listTasks\(\)/);
    expect(() => client.task("")).toThrow(/the task id must be a non-empty string/);
  });
});

describe("2026-07-28: the tasks extension", () => {
  const created = { resultType: "task", taskId: "t-1", status: "working", ...STAMP, ttl: undefined, ttlMs: 60_000, pollIntervalMs: 10 };

  it("declares the extension in every request's capabilities, and polls tasks/get to the inlined result", async () => {
    const polls = [{ ...created, resultType: "complete" }];
    const transport = new RecordingTransport(
      {
        "tools/list": { tools: [tool("job")] },
        "tools/call": created,
        "tasks/get": () => polls.shift() ?? { ...created, resultType: "complete", status: "completed", result: { content: [{ type: "text", text: "ok" }] } },
      } as never,
      { era: "modern", capabilities: { tools: {}, extensions: { "io.modelcontextprotocol/tasks": {} } } },
    );
    await using client = await connect(transport);
    expect((await client.callTool("job")).content).toEqual([{ type: "text", text: "ok" }]);
    for (const request of transport.requests()) {
      const meta = request.params!._meta as Record<string, { extensions?: Record<string, unknown> }>;
      expect(meta["io.modelcontextprotocol/clientCapabilities"]!.extensions).toEqual({ "io.modelcontextprotocol/tasks": {} });
    }
    expect(transport.requests("tools/call")[0]!.params!.task).toBeUndefined();
  });

  /** A modern server whose `job` answers with a task seeded `status`, and whose tasks/get answers `get`. */
  function seededServer(status: string, get: Record<string, unknown>) {
    return new RecordingTransport(
      { "tools/list": { tools: [tool("job")] }, "tools/call": { ...created, status }, "tasks/get": { ...created, resultType: "complete", ...get }, "tasks/cancel": {} } as never,
      { era: "modern", capabilities: { tools: {}, extensions: { "io.modelcontextprotocol/tasks": {} } } },
    );
  }

  it("a task created already completed gets its result from one tasks/get (CreateTaskResult carries none)", async () => {
    const transport = seededServer("completed", { status: "completed", result: { content: [{ type: "text", text: "ok" }] } });
    await using client = await connect(transport);
    expect((await client.callTool("job")).content).toEqual([{ type: "text", text: "ok" }]);
    expect(transport.requests("tasks/get").map((request) => request.params!.taskId)).toEqual(["t-1"]);
    // A handle started on such a task does the same.
    const task = await client.startToolTask("job");
    expect(task.done).toBe(true);
    expect((await task.result()).content).toEqual([{ type: "text", text: "ok" }]);
    expect(transport.requests("tasks/cancel")).toHaveLength(0);
  });

  it("a task created already failed fails like any failed task, naming tasks/get (the extension has no tasks/result)", async () => {
    const transport = seededServer("failed", { status: "failed", error: { code: -32603, message: "secret server words" } });
    await using client = await connect(transport);
    const error = await failure(client.callTool("job"));
    expect(error).toMatchObject({ reason: "PROTOCOL", kind: "server_error", code: -32603, serverMessage: "secret server words" });
    expect(error.message).toContain('callTool "job", task "t-1": tasks/get failed: the task ended with JSON-RPC error -32603');
    expect(error.message).not.toContain("tasks/result");
    expect(error.message).not.toContain("secret server words");
    expect(transport.requests("tasks/get")).toHaveLength(1);
    expect(transport.requests("tasks/cancel")).toHaveLength(0);
  });

  it("a task created already cancelled fails with task_cancelled at once; one created finished that tasks/get calls unfinished is a PROTOCOL failure", async () => {
    const cancelled = seededServer("cancelled", { status: "cancelled" });
    await using client = await connect(cancelled);
    expect(await failure(client.callTool("job"))).toMatchObject({ reason: "PROTOCOL", kind: "task_cancelled" });
    expect(cancelled.requests("tasks/get")).toHaveLength(0);

    const reopened = seededServer("completed", { status: "working" });
    await using other = await connect(reopened);
    const error = await failure(other.callTool("job"));
    expect(error).toMatchObject({ reason: "PROTOCOL", method: "tasks/get" });
    expect(error.message).toContain('callTool "job", task "t-1": the task was created completed, yet tasks/get then answered working');
    expect(reopened.requests("tasks/get")).toHaveLength(1);
  });

  it("refuses { task: true } with a server that does not declare the extension, before anything is sent", async () => {
    const transport = new RecordingTransport({ "tools/list": { tools: [tool("job")] }, "tools/call": created } as never, { era: "modern" });
    await using client = await connect(transport);
    const error = await failure(client.callTool("job", {}, { task: true }));
    expect(error.kind).toBe("task_unsupported");
    expect(error.message).toContain("the server does not declare the tasks extension (io.modelcontextprotocol/tasks)");
    expect(transport.requests("tools/call")).toHaveLength(0);
  });

  it("routes tasks/get, tasks/update and tasks/cancel by the task id over HTTP (Mcp-Name)", () => {
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      expect(modernHeaders(method, { taskId: "t 1" }, undefined)).toEqual({ "Mcp-Method": method, "Mcp-Name": "t 1" });
    }
  });
});
