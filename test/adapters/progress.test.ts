/**
 * A tool that works for longer than the call's `timeoutMs` and reports progress on the way finishes
 * through every adapter, with no progress listener given: the call carries a progress token
 * whenever its timeout restarts on progress (the default), so the server can keep it alive.
 */
import { describe, expect, it } from "vitest";
import { McpClient, connectAll, type ConnectedServers, type LayeredToolCallSettings, type Progress } from "../../src/index.js";
import { aiTools } from "../../src/ai.js";
import { langchainTools } from "../../src/langchain.js";
import { closedAfterEach } from "../helpers/owned.js";
import { agentServerTransport } from "./agent-server.js";

/** Four steps of one second against a 2.5 s timeout: only progress can carry the call to its end. */
const LONG_CALL = { reports: 4, everyMs: 1_000 } as const;
const TIMEOUT_MS = 2_500;
const FINISHED = "reported progress 4 times";

const own = closedAfterEach();

async function client(): Promise<McpClient> {
  const connected = await McpClient.connect(agentServerTransport());
  return own(connected);
}

async function servers(calls: LayeredToolCallSettings): Promise<ConnectedServers> {
  const file = { source: "test", servers: { library: { name: "library", transport: "stdio" as const, command: "unused" } }, disabled: [] };
  const connected = await connectAll(file, { transportFor: () => agentServerTransport(), calls });
  return own(connected);
}

describe("a long tool call that reports progress", () => {
  it("finishes through mcpwire/ai with a timeout shorter than the call, and the progress callback hears it", async () => {
    const heard: { progress: Progress; tool: string }[] = [];
    const tools = await aiTools(await client(), { timeoutMs: TIMEOUT_MS, onProgress: (progress, tool) => heard.push({ progress, tool: tool.name }) });
    const result = await tools.steady!.execute!(LONG_CALL, { toolCallId: "1", messages: [] });
    expect(result).toMatchObject({ isError: false, content: [{ type: "text", text: FINISHED }] });
    expect(heard.map((h) => h.progress.progress)).toEqual([1, 2, 3, 4]);
    expect(heard[0]!.tool).toBe("steady");
  });

  it("finishes through mcpwire/langchain, with per-server settings", async () => {
    const source = await client();
    const tools = await langchainTools(source, { timeoutMs: 60_000, servers: { library: { timeoutMs: TIMEOUT_MS } } });
    const steady = tools.find((tool) => tool.name === "steady")!;
    expect(await steady.invoke(LONG_CALL)).toBe(FINISHED);
  });

  it("finishes through connectAll's tools, per server, in an adapter and in servers.callTool", async () => {
    const connected = await servers({ servers: { library: { timeoutMs: TIMEOUT_MS } } });
    const { tools } = await connected.listTools();
    const steady = tools.find((tool) => tool.name === "library__steady")!;
    expect(steady.call).toEqual({ timeoutMs: TIMEOUT_MS });
    const viaAdapter = await aiTools(tools);
    expect(await viaAdapter.library__steady!.execute!(LONG_CALL, { toolCallId: "1", messages: [] })).toMatchObject({ isError: false });
    const progress: number[] = [];
    const direct = await connected.callTool("library__steady", LONG_CALL, { onProgress: (update) => progress.push(update.progress) });
    expect(direct.content).toEqual([{ type: "text", text: FINISHED }]);
    expect(progress).toEqual([1, 2, 3, 4]);
  });

  it("is cut at timeoutMs when told not to restart on progress, and the model reads that it timed out", async () => {
    const tools = await aiTools(await client(), { timeoutMs: 1_500, resetTimeoutOnProgress: false });
    const result = await tools.steady!.execute!(LONG_CALL, { toolCallId: "1", messages: [] });
    expect(result).toMatchObject({ isError: true, failure: { kind: "TIMEOUT" } });
  });

  it("is bounded by maxTotalTimeoutMs however often progress comes", async () => {
    const connected = await servers({ timeoutMs: TIMEOUT_MS, maxTotalTimeoutMs: 1_500 });
    await connected.listTools();
    await expect(connected.callTool("library__steady", LONG_CALL)).rejects.toMatchObject({ reason: "TIMEOUT" });
  });

  it("refuses bad settings where they are given, naming them", async () => {
    await expect(servers({ servers: { library: { timeoutMs: 0 } } })).rejects.toThrow(/servers\["library"\]: "timeoutMs" must be a whole number/);
    await expect(aiTools(await client(), { resetTimeoutOnProgress: "yes" as never })).rejects.toThrow(/"resetTimeoutOnProgress" must be true or false/);
    const connected = await servers({});
    await expect(connected.callTool("library__steady", {})).rejects.toThrow("list the tools first");
    await connected.listTools();
    await expect(connected.callTool("library__stedy", {})).rejects.toThrow('(did you mean "library__steady"?)');
  });
});
