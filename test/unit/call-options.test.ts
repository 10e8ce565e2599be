import { describe, expect, it } from "vitest";
import { RecordingTransport, connect } from "../../src/index.js";

const tools = { tools: [{ name: "echo", inputSchema: { type: "object" } }] };

/** A client whose server answers every call it could be asked, so that only the option check can fail. */
async function client() {
  const transport = new RecordingTransport({
    "tools/list": tools,
    "tools/call": { content: [{ type: "text", text: "ok" }] },
    "resources/list": { resources: [] },
    "resources/templates/list": { resourceTemplates: [] },
    "resources/read": { contents: [] },
    "prompts/list": { prompts: [] },
    "prompts/get": { messages: [] },
    "completion/complete": { completion: { values: [] } },
    "logging/setLevel": {},
    ping: {},
  });
  return { transport, client: await connect(transport) };
}

/** The TypeError a call rejects with (or throws). */
async function refusal(call: () => unknown): Promise<TypeError> {
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return error as TypeError;
  }
  throw new Error("the call was not refused");
}

describe("McpClient: an option no call reads is refused, never dropped", () => {
  it("a page's cursor that is not a string is refused before anything is sent (basic/utilities/pagination: an opaque string)", async () => {
    const { transport, client: c } = await client();
    await using _ = c;
    const pages = [
      () => c.listToolsPage({ cursor: 5 as never }),
      () => c.listResourcesPage({ cursor: {} as never }),
      () => c.listResourceTemplatesPage({ cursor: null as never }),
      () => c.listPromptsPage({ cursor: ["next"] as never }),
      () => c.listTasksPage({ cursor: 2 as never }),
    ];
    for (const page of pages) expect((await refusal(page)).message).toMatch(/: "cursor" must be a string, the nextCursor of the page before, got /);
    expect(transport.sent.filter((message) => "method" in message && message.method.endsWith("/list"))).toEqual([]);
    await expect(c.listToolsPage({ cursor: "next" })).resolves.toEqual(tools);
  });

  it("callTool refuses a misspelt option before anything is sent, naming it and the nearest name", async () => {
    const { transport, client: c } = await client();
    await using _ = c;
    const error = await refusal(() => c.callTool("echo", {}, { timeout: 5000 } as never));
    expect(error.message).toContain('callTool "echo": unknown option "timeout" (did you mean "timeoutMs"?)');
    expect(error.message).toContain("validateOutput");
    expect(transport.requests("tools/call")).toEqual([]);
    // The call rejects rather than throws, like any bad input of callTool.
    const rejected = c.callTool("echo", {}, { tmeoutMs: 1 } as never);
    expect(rejected).toBeInstanceOf(Promise);
    await expect(rejected).rejects.toThrow(/unknown option "tmeoutMs"/);
  });

  it("callTool takes every option it reads, and no options at all", async () => {
    const { client: c } = await client();
    await using _ = c;
    await expect(c.callTool("echo")).resolves.toMatchObject({ content: [{ type: "text", text: "ok" }] });
    const options = { timeoutMs: 5000, signal: new AbortController().signal, onProgress: () => {}, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 10_000, validateOutput: true, onTaskStatus: () => {}, meta: { trace: "1" } };
    await expect(c.callTool("echo", {}, options)).resolves.toMatchObject({ content: [{ type: "text", text: "ok" }] });
  });

  it("options that are not an object are refused", async () => {
    const { client: c } = await client();
    await using _ = c;
    expect((await refusal(() => c.callTool("echo", {}, "fast" as never))).message).toContain("the options must be an object");
    expect((await refusal(() => c.ping([] as never))).message).toContain("ping: the options must be an object");
  });

  it("a signal that is not an AbortSignal, or an onProgress that is not a function, is refused before anything is sent", async () => {
    const { transport, client: c } = await client();
    await using _ = c;
    const signal = await refusal(() => c.callTool("echo", {}, { signal: "stop" } as never));
    expect(signal.message).toBe('callTool "echo": "signal" must be an AbortSignal (AbortController\'s signal, AbortSignal.timeout()), got "stop"');
    expect((await refusal(() => c.callTool("echo", {}, { signal: {} } as never))).message).toContain('"signal" must be an AbortSignal');
    expect((await refusal(() => c.listTools({ signal: null } as never))).message).toMatch(/^listTools: "signal" must be an AbortSignal .*, got null$/);
    expect((await refusal(() => c.callTool("echo", {}, { onProgress: 5 } as never))).message).toBe('callTool "echo": "onProgress" must be a function of the progress, got 5');
    expect(transport.requests("tools/call")).toEqual([]);
    expect(transport.requests("tools/list")).toEqual([]);
    // A real signal still goes through, and so does an undefined one.
    await expect(c.callTool("echo", {}, { signal: AbortSignal.timeout(60_000), onProgress: undefined })).resolves.toMatchObject({ content: [{ type: "text", text: "ok" }] });
  });

  it("every other call checks its own options: a cursor is a page's option, not a whole listing's", async () => {
    const { transport, client: c } = await client();
    await using _ = c;
    const wrong = { timout: 1 } as never;
    const cases: Array<[string, () => unknown]> = [
      ["listTools", () => c.listTools({ cursor: "x" } as never)],
      ["listTools", () => c.listToolsPage(wrong)],
      ["listResources", () => c.listResources(wrong)],
      ["listResources", () => c.listResourcesPage(wrong)],
      ["listResourceTemplates", () => c.listResourceTemplates(wrong)],
      ["readResource", () => c.readResource("file:///x", wrong)],
      ["subscribeResource", () => c.subscribeResource("file:///x", wrong)],
      ["listPrompts", () => c.listPrompts(wrong)],
      ["getPrompt", () => c.getPrompt("p", {}, wrong)],
      ["complete", () => c.complete({ type: "ref/prompt", name: "p" }, { name: "a", value: "" }, wrong)],
      ["setLoggingLevel", () => c.setLoggingLevel("info", wrong)],
      ["ping", () => c.ping(wrong)],
      ["request", () => c.request("x/y", {}, wrong)],
      ["notify", () => c.notify("notifications/x", {}, { timeoutMs: 1 } as never)],
      ["startToolTask", () => c.startToolTask("echo", {}, wrong)],
      ["listTasks", () => c.listTasks(wrong)],
      ["listTasksPage", () => c.listTasksPage(wrong)],
      ["client.task", () => c.task("t1", { tol: "echo" } as never)],
    ];
    for (const [label, call] of cases) {
      const error = await refusal(call);
      expect(error.message, label).toContain(label);
      expect(error.message, label).toMatch(/unknown option "(timout|cursor|timeoutMs|tol)"/);
    }
    const sent = transport.sent.filter((m) => "method" in m && m.method !== "initialize" && m.method !== "notifications/initialized");
    expect(sent).toEqual([]);
  });

  it("the pages of a listing take their cursor", async () => {
    const { client: c } = await client();
    await using _ = c;
    await expect(c.listTools({ timeoutMs: 5000 })).resolves.toHaveLength(1);
    await expect(c.listToolsPage({ cursor: undefined, timeoutMs: 5000 })).resolves.toMatchObject(tools);
    await expect(c.complete({ type: "ref/prompt", name: "p" }, { name: "a", value: "" }, { context: { arguments: {} } })).resolves.toBeDefined();
  });
});
