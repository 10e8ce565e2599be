/**
 * Tasks of revision 2025-11-25 (basic/utilities/tasks) against a real peer:
 * @modelcontextprotocol/server-everything's `simulate-research-query` (`execution.taskSupport:
 * "required"`, four stages of a second each, a clarifying elicitation when `ambiguous` and the
 * client can elicit), over stdio, Streamable HTTP and the legacy HTTP+SSE transport.
 */
import { describe, expect, it } from "vitest";
import { connect, McpTransportError, type ClientOptions, type ConnectTarget, type ElicitationRequest, type TaskState } from "../../src/index.js";
import { EVERYTHING_ENTRY, useEverythingHttp } from "../helpers/everything-fixture.js";
import { failure, rejection } from "../helpers/failure.js";

const RESEARCH = "simulate-research-query";

const everything = useEverythingHttp();

const wires: { name: string; kind: string; target: () => ConnectTarget }[] = [
  { name: "stdio", kind: "stdio", target: () => ({ command: process.execPath, args: [EVERYTHING_ENTRY, "stdio"] }) },
  { name: "Streamable HTTP", kind: "streamable-http", target: everything.streamableHttp },
  { name: "legacy HTTP+SSE", kind: "sse", target: everything.sse },
];

/** A clarification, as a person choosing one of the server's interpretations would give it. */
function clarify(asked: ElicitationRequest[]) {
  return ({ params, signal }: ElicitationRequest) => {
    asked.push({ params, signal });
    return { action: "accept" as const, content: { interpretation: "historical" } };
  };
}

describe.each(wires)("simulate-research-query over $name", ({ kind, target }) => {
  async function connected(options: ClientOptions = {}) {
    const client = await connect(target(), { timeoutMs: 30_000, ...options });
    expect(client.transportKind).toBe(kind);
    return client;
  }

  it("callTool runs the required task to its result and reports each state it sees", async () => {
    await using client = await connected();
    const states: TaskState[] = [];
    const result = await client.callTool(RESEARCH, { topic: "rust" }, { onTaskStatus: (state) => states.push(state) });
    expect(result.isError ?? false).toBe(false);
    expect(JSON.stringify(result.content)).toContain("# Research Report: rust");
    // The task's id comes back with the result ("tasks/result MUST include this metadata in its response").
    const taskId = states[0]!.taskId;
    expect(result._meta?.["io.modelcontextprotocol/related-task"]).toEqual({ taskId });
    expect(states.every((state) => state.taskId === taskId)).toBe(true);
    expect(states[0]).toMatchObject({ status: "working", pollIntervalMs: 1000, ttlMs: 300_000 });
    expect(states.at(-1)!.status).toBe("completed");
    expect(states.map((state) => state.statusMessage)).toContain("Gathering sources...");
    // The server said: no clarification is asked of a client that cannot elicit.
    expect(states.map((state) => state.status)).not.toContain("input_required");
  });

  it("answers the server's clarifying question (input_required, delivered by tasks/result) through the elicitation handler", async () => {
    const asked: ElicitationRequest[] = [];
    await using client = await connected({ handlers: { elicitation: clarify(asked) } });
    const states: TaskState[] = [];
    const result = await client.callTool(RESEARCH, { topic: "rust", ambiguous: true }, { onTaskStatus: (state) => states.push(state) });
    expect(JSON.stringify(result.content)).toContain("# Research Report: rust (historical)");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.params.message).toContain("multiple interpretations");
    // The question belongs to the task ("The receiver MUST include the related-task metadata in the request").
    const meta = (asked[0]!.params as { _meta?: Record<string, unknown> })._meta;
    expect(meta?.["io.modelcontextprotocol/related-task"]).toEqual({ taskId: states[0]!.taskId });
    expect(states.map((state) => state.status)).toContain("input_required");
  });

  it("an abort sends tasks/cancel: the call rejects with the abort's reason, and the server has cancelled the task", async () => {
    await using client = await connected();
    const controller = new AbortController();
    let taskId: string | undefined;
    const stop = new Error("the user stopped it");
    const error = await rejection(
      client.callTool(RESEARCH, { topic: "rust" }, {
        signal: controller.signal,
        onTaskStatus: (state) => {
          taskId = state.taskId;
          controller.abort(stop);
        },
      }),
    );
    expect(error).toBe(stop);
    // The rejection came after tasks/cancel was answered, and a 2025-11-25 server moves the task to cancelled before it answers.
    expect((await client.task(taskId!).status()).status).toBe("cancelled");
  });

  it("timeoutMs bounds the whole task: TIMEOUT naming the task, and tasks/cancel sent", async () => {
    await using client = await connected();
    await client.listTools(); // the tool's task support is known before the clock starts
    let taskId: string | undefined;
    const error = await failure(client.callTool(RESEARCH, { topic: "rust" }, { timeoutMs: 2_500, onTaskStatus: (state) => (taskId = state.taskId) }));
    expect(error.reason).toBe("TIMEOUT");
    expect(error.timeoutMs).toBe(2_500);
    expect(error.message).toContain(`callTool "${RESEARCH}", task "${taskId}" timed out after 2500 ms`);
    expect((await client.task(taskId!).status()).status).toBe("cancelled");
  });

  it("refuses { task: true } on a tool that runs no tasks, before anything is sent", async () => {
    await using client = await connected();
    const error = await failure(client.callTool("echo", { message: "x" }, { task: true }));
    expect(error).toBeInstanceOf(McpTransportError);
    expect(error.reason).toBe("PROTOCOL");
    expect(error.kind).toBe("task_unsupported");
    expect(error.message).toContain('callTool "echo" cannot run as a task: the tool does not run as a task');
    // The same tool called plainly works.
    expect(JSON.stringify((await client.callTool("echo", { message: "x" })).content)).toContain("x");
  });
});

describe("the handle API against server-everything (stdio)", () => {
  it("startToolTask, onStatus, status(), listTasks(), result(); cancel() of another task", async () => {
    await using client = await connect({ command: process.execPath, args: [EVERYTHING_ENTRY, "stdio"] }, { timeoutMs: 30_000 });
    const task = await client.startToolTask(RESEARCH, { topic: "go" });
    expect(task.id).toMatch(/^\S+$/);
    expect(task.state).toMatchObject({ taskId: task.id, status: "working" });
    expect((await client.task(task.id!).status()).taskId).toBe(task.id);
    const seen: string[] = [];
    task.onStatus((state) => seen.push(state.status));

    const other = await client.startToolTask(RESEARCH, { topic: "zig" });
    await other.cancel();
    expect(other.state?.status).toBe("cancelled");
    expect((await other.status()).status).toBe("cancelled");
    const cancelled = await failure(other.result());
    expect(cancelled.kind).toBe("task_cancelled");

    const listed = await client.listTasks();
    expect(listed.map((state) => state.taskId)).toEqual(expect.arrayContaining([task.id, other.id]));

    const result = await task.result();
    expect(JSON.stringify(result.content)).toContain("# Research Report: go");
    expect(seen.at(-1)).toBe("completed");
    expect(task.done).toBe(true);
    // A handle made from the id alone reads the same result.
    expect(JSON.stringify((await client.task(task.id!).result()).content)).toContain("# Research Report: go");
  });
});
