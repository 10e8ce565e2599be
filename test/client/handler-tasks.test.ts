/**
 * Sampling and elicitation run as tasks when a real server asks (basic/utilities/tasks,
 * 2025-11-25, "Task-Augmented Sampling Request"): server-everything's
 * `trigger-sampling-request-async` and `trigger-elicitation-request-async` over stdio, Streamable
 * HTTP and HTTP+SSE, which appear only when the client declares `tasks.requests` for them; and a
 * server of our own on the official SDK v1 that cancels a task and fills the client's store.
 */
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HANDLER_TASK_LIMITS, connect, type ClientHandlers, type ConnectOptions } from "../../src/index.js";
import { EVERYTHING_ENTRY, startEverything, type EverythingServer } from "../helpers/everything-fixture.js";
import { startHttpFixture } from "../helpers/http-fixture.js";

const node = JSON.stringify(process.execPath);
const everythingStdio = `${node} ${JSON.stringify(EVERYTHING_ENTRY)} stdio`;
const ownStdio = `${node} --import tsx test/fixtures/client-tasks-server.ts stdio`;

let everythingHttp: EverythingServer;
let everythingSse: EverythingServer;
let own: { url: string; child: ChildProcess };

beforeAll(async () => {
  [everythingHttp, everythingSse, own] = await Promise.all([
    startEverything("streamableHttp"),
    startEverything("sse"),
    startHttpFixture("test/fixtures/client-tasks-server.ts", "http"),
  ]);
}, 30_000);

afterAll(async () => {
  own?.child.kill("SIGTERM");
  await Promise.all([everythingHttp?.stop(), everythingSse?.stop()]);
});

const ASYNC_TOOLS = ["trigger-sampling-request-async", "trigger-elicitation-request-async"];

/** A sampling handler that answers with the prompt's last text, so the server's report can be checked. */
const sampling: ClientHandlers["sampling"] = ({ params }) => {
  const last = params.messages[params.messages.length - 1]!.content as { text?: string };
  return { role: "assistant", model: "mcpwire-test-model", content: { type: "text", text: `answered: ${last.text}` } };
};
const elicitation: ClientHandlers["elicitation"] = () => ({ action: "accept", content: { name: "Ada", favoriteColor: "Blue" } });

const textOf = (result: { content: unknown[] }): string => result.content.map((block) => (block as { text?: string }).text ?? "").join("\n");

/** A handler that runs until its signal aborts; `aborted` settles with the first abort's reason. */
function untilAborted(): { handler: (request: { signal: AbortSignal }) => Promise<never>; aborted: Promise<unknown>; started: () => number } {
  let count = 0;
  let markAborted!: (reason: unknown) => void;
  const aborted = new Promise<unknown>((resolve) => (markAborted = resolve));
  const handler = ({ signal }: { signal: AbortSignal }) => {
    count++;
    return new Promise<never>((_, reject) =>
      signal.addEventListener("abort", () => {
        markAborted(signal.reason);
        reject(signal.reason);
      }),
    );
  };
  return { handler, aborted, started: () => count };
}

describe.each([
  ["stdio", () => everythingStdio],
  ["Streamable HTTP", () => `${everythingHttp.origin}/mcp`],
  ["HTTP+SSE", () => `${everythingSse.origin}/sse`],
])("server-everything's async tools over %s", (_, target) => {
  const open = (options: ConnectOptions) => connect(target(), { timeoutMs: 30_000, ...options });

  it("runs trigger-sampling-request-async: the sampling handler runs as a task the server polls and fetches", async () => {
    await using client = await open({ handlers: { sampling, elicitation } });
    expect(client.protocolVersion).toBe("2025-11-25");
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(expect.arrayContaining(ASYNC_TOOLS));
    const text = textOf(await client.callTool("trigger-sampling-request-async", { prompt: "rust" }));
    expect(text).toContain("[COMPLETED] Async sampling completed!");
    expect(text).toMatch(/Task created: [0-9a-f-]{36}/);
    expect(text).toContain("completed");
    expect(text).toContain("answered: Resource trigger-sampling-request-async context: rust");
    expect(text).toContain("mcpwire-test-model");
    expect(text).toContain("io.modelcontextprotocol/related-task");
  });

  it("runs trigger-elicitation-request-async through the elicitation handler", async () => {
    await using client = await open({ handlers: { sampling, elicitation } });
    const text = textOf(await client.callTool("trigger-elicitation-request-async"));
    expect(text).toContain("[COMPLETED] User provided the requested information!");
    expect(text).toContain("- Name: Ada");
    expect(text).toContain("- Favorite Color: Blue");
  });

  it("fails the task on an invalid handler answer, and the server reads why", async () => {
    await using client = await open({
      handlers: { sampling: () => ({ role: "robot", model: "m", content: { type: "text", text: "" } }) as never, elicitation },
    });
    const text = textOf(await client.callTool("trigger-sampling-request-async", { prompt: "rust" }));
    expect(text).toContain("[FAILED] The client's sampling handler returned an invalid result");
  });
});

describe("server-everything lists its async tools by the capabilities declared (stdio)", () => {
  const toolsWith = async (handlers: ClientHandlers) => {
    await using client = await connect(everythingStdio, { timeoutMs: 30_000, handlers });
    const names = (await client.listTools()).map((tool) => tool.name);
    return ASYNC_TOOLS.filter((name) => names.includes(name));
  };

  it("shows each async tool only with its handler", async () => {
    expect(await toolsWith({})).toEqual([]);
    expect(await toolsWith({ sampling })).toEqual(["trigger-sampling-request-async"]);
    expect(await toolsWith({ elicitation })).toEqual(["trigger-elicitation-request-async"]);
  });
});

describe.each([
  ["stdio", () => ownStdio],
  ["Streamable HTTP", () => own.url],
])("a server that cancels and fills the client's tasks, over %s", (_, target) => {
  it("tasks/cancel aborts the sampling handler; the task stays cancelled and has no result", async () => {
    const running = untilAborted();
    await using client = await connect(target(), { timeoutMs: 30_000, handlers: { sampling: running.handler } });
    const report = JSON.parse(textOf(await client.callTool("sample_then_cancel")));
    expect(report.created).toMatchObject({ status: "working", ttl: 60_000 });
    expect(report.before).toBe("working");
    expect(report.cancelled).toMatchObject({ taskId: report.created.taskId, status: "cancelled" });
    expect(report.after).toBe("cancelled");
    expect(report.resultError).toBe(-32602);
    expect(report.cancelAgainError).toBe(-32602);
    await running.aborted;
    expect(running.started()).toBe(1);
  });

  it(`holds at most ${HANDLER_TASK_LIMITS.maxTasks} tasks: one more is refused with -32603, and tasks/list pages through them`, async () => {
    const running = untilAborted();
    const client = await connect(target(), { timeoutMs: 30_000, handlers: { elicitation: running.handler } });
    const report = JSON.parse(textOf(await client.callTool("fill_tasks", { count: HANDLER_TASK_LIMITS.maxTasks + 1 })));
    expect(report.accepted).toBe(HANDLER_TASK_LIMITS.maxTasks);
    expect(report.refused).toEqual([
      { code: -32603, message: expect.stringContaining(`The client already holds ${HANDLER_TASK_LIMITS.maxTasks} tasks`) },
    ]);
    expect(report.listed).toBe(HANDLER_TASK_LIMITS.maxTasks);
    expect(report.pages).toBe(Math.ceil(HANDLER_TASK_LIMITS.maxTasks / HANDLER_TASK_LIMITS.pageSize));
    expect(running.started()).toBe(HANDLER_TASK_LIMITS.maxTasks);
    // Closing the connection stops the handlers still running.
    await client.close();
    await running.aborted;
  });
});
