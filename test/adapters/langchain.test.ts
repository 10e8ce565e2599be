/**
 * `mcpwire/langchain` with the real LangChain core: the tools are real `DynamicStructuredTool`s,
 * invoked the way agents invoke them (with a tool call), and driven by a tool-calling loop over a
 * scripted chat model (the one part that cannot run here), against a real MCP server in this process.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { afterEach, describe, expect, it } from "vitest";
import { McpClient, MemoryTransport } from "../../src/index.js";
import { langchainTools, langchainToolSet } from "../../src/langchain.js";
import { agentServerTransport, createCatalogServer, PIXEL_PNG } from "./agent-server.js";

/** A chat model that answers from a script: each turn is an AIMessage (text, or tool calls). */
class ScriptedChatModel extends BaseChatModel {
  readonly seen: BaseMessage[][] = [];
  boundTools: ReturnType<typeof convertToOpenAITool>[] = [];
  private turn = 0;

  constructor(private readonly script: AIMessage[]) {
    super({});
  }

  _llmType(): string {
    return "scripted";
  }

  override bindTools(tools: StructuredToolInterface[]) {
    this.boundTools = tools.map((tool) => convertToOpenAITool(tool));
    return this.withConfig({});
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.seen.push([...messages]);
    const message = this.script[this.turn++];
    if (!message) throw new Error("the script has no more turns");
    return { generations: [{ message, text: typeof message.content === "string" ? message.content : "" }] };
  }
}

/** The usual tool-calling loop of a LangChain agent: ask the model, run the tools it calls, repeat. */
async function agentLoop(model: ScriptedChatModel, tools: StructuredToolInterface[], question: string): Promise<BaseMessage[]> {
  const bound = model.bindTools(tools);
  const messages: BaseMessage[] = [new HumanMessage(question)];
  for (let step = 0; step < 5; step++) {
    const reply = (await bound.invoke(messages)) as AIMessage;
    messages.push(reply);
    if (!reply.tool_calls?.length) return messages;
    for (const call of reply.tool_calls) {
      const tool = tools.find((candidate) => candidate.name === call.name)!;
      messages.push((await tool.invoke(call)) as ToolMessage);
    }
  }
  throw new Error("the agent did not finish");
}

function toolCall(name: string, args: Record<string, unknown>, id = "call-1") {
  return { name, args, id, type: "tool_call" as const };
}

const clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connectLibrary(name = "library"): Promise<McpClient> {
  const client = await McpClient.connect(agentServerTransport(name));
  clients.push(client);
  return client;
}

describe("mcpwire/langchain: MCP tools as LangChain tools", () => {
  it("runs in a tool-calling agent loop: JSON Schema to the model, the result back as a ToolMessage", async () => {
    const client = await connectLibrary();
    const tools = await langchainTools(client);
    const model = new ScriptedChatModel([
      new AIMessage({ content: "", tool_calls: [toolCall("search", { query: "dune" })] }),
      new AIMessage("Dune it is."),
    ]);
    const messages = await agentLoop(model, tools, "Find me a book.");

    const search = model.boundTools.find((tool) => (tool as { function: { name: string } }).function.name === "search");
    expect(search).toMatchObject({
      type: "function",
      function: {
        description: "Finds books whose title mentions the query.",
        parameters: { type: "object", properties: { query: { type: "string", description: "Words to look for" } }, required: ["query"] },
      },
    });
    const toolMessage = messages[2] as ToolMessage;
    expect(toolMessage).toBeInstanceOf(ToolMessage);
    expect(toolMessage).toMatchObject({
      content: '1 book matches "dune": Dune',
      status: "success",
      tool_call_id: "call-1",
      name: "search",
      artifact: { structuredContent: { books: ["Dune"] }, isError: false },
    });
    // The model's second turn saw the tool's answer.
    expect(model.seen[1]!.at(-1)!.content).toBe('1 book matches "dune": Dune');
    expect(messages.at(-1)!.content).toBe("Dune it is.");
  });

  it("keeps an isError result an error: a ToolMessage with status error, and the loop goes on", async () => {
    const client = await connectLibrary();
    const tools = await langchainTools(client);
    const model = new ScriptedChatModel([
      new AIMessage({ content: "", tool_calls: [toolCall("refuse", {})] }),
      new AIMessage("The catalog is closed."),
    ]);
    const messages = await agentLoop(model, tools, "Find me a book.");
    expect(messages[2]).toMatchObject({ content: "the catalog is closed on Sundays", status: "error" });
    expect(messages.at(-1)!.content).toBe("The catalog is closed.");
  });

  it("turns a timed-out call into an error ToolMessage that says so, and the loop goes on", async () => {
    const client = await connectLibrary();
    const tools = await langchainTools(client, { timeoutMs: 300 });
    const model = new ScriptedChatModel([
      new AIMessage({ content: "", tool_calls: [toolCall("slow", { ms: 60_000 })] }),
      new AIMessage("It timed out."),
    ]);
    const messages = await agentLoop(model, tools, "Take your time.");
    expect(messages[2]).toMatchObject({
      content: 'the tool "slow" timed out after 300 ms; try again, or with a smaller request',
      status: "error",
      artifact: { failure: { kind: "TIMEOUT", retryable: true } },
    });
    expect(messages.at(-1)!.content).toBe("It timed out.");
  });

  it("turns a lost connection into an error ToolMessage, not an exception", async () => {
    const client = await connectLibrary();
    const [crash] = await langchainTools(client, { filter: (tool) => tool.tool.name === "crash" });
    const message = (await crash!.invoke(toolCall("crash", {}))) as ToolMessage;
    expect(message.status).toBe("error");
    expect(message.content).toContain('the connection to the server of the tool "crash" was lost before it answered');
  });

  it("turns a call cancelled through the run's signal into an error ToolMessage", async () => {
    const client = await connectLibrary();
    const [slow] = await langchainTools(client, { filter: (tool) => tool.tool.name === "slow" });
    const controller = new AbortController();
    // However late this fires, the call is still waiting: the tool sleeps a minute.
    setTimeout(() => controller.abort(), 50);
    const message = (await slow!.invoke(toolCall("slow", { ms: 60_000 }), { signal: controller.signal })) as ToolMessage;
    expect(message).toMatchObject({
      status: "error",
      content: 'the call to the tool "slow" was cancelled before it finished; it may or may not have taken effect',
      artifact: { failure: { kind: "CANCELLED" } },
    });
  });

  it("gives images as image blocks beside the text, and structured-only results as JSON text", async () => {
    const client = await connectLibrary();
    const tools = await langchainTools(client);
    const picture = (await tools.find((tool) => tool.name === "picture")!.invoke(toolCall("picture", {}))) as ToolMessage;
    expect(picture.content).toEqual([
      { type: "text", text: "the cover of Dune" },
      { type: "image", mimeType: "image/png", data: PIXEL_PNG },
    ]);
    const counted = (await tools.find((tool) => tool.name === "structured_only")!.invoke(toolCall("structured_only", {}))) as ToolMessage;
    expect(counted.content).toBe('{"count":3}');
  });

  it("returns the content alone when invoked with plain arguments", async () => {
    const client = await connectLibrary();
    const [search] = await langchainTools(client, { filter: (tool) => tool.tool.name === "search" });
    expect(await search!.invoke({ query: "dune" })).toBe('1 book matches "dune": Dune');
  });

  it("prefixes names with the server's name, and keeps the server's own name for the call", async () => {
    const client = await connectLibrary("city-library");
    const tools = await langchainTools(client, { prefix: true });
    const search = tools.find((tool) => tool.name === "city-library__search")!;
    expect(search).toBeDefined();
    expect(search.metadata).toEqual({ mcpServer: "city-library", mcpTool: "search" });
    const message = (await search.invoke(toolCall("city-library__search", { query: "dune" }))) as ToolMessage;
    expect(message).toMatchObject({ status: "success", name: "city-library__search" });
  });
});

async function connectCatalog() {
  const catalog = createCatalogServer();
  const client = await McpClient.connect(new MemoryTransport(catalog.server, "catalog"));
  clients.push(client);
  return { catalog, client };
}

describe("mcpwire/langchain: langchainToolSet follows notifications/tools/list_changed", () => {
  it("gives a new array with the tools the server added and without those it removed, and says when", async () => {
    const { catalog, client } = await connectCatalog();
    using set = await langchainToolSet(client);
    const first = set.tools;
    expect(first.map((tool) => tool.name)).toEqual(["lookup", "append", "erase", "plain", "add_tool", "remove_tool"]);
    const changed = new Promise<void>((resolve) => set.onChange(resolve));
    const heardBoth = new Promise<void>((resolve) => {
      let left = 2;
      client.onToolsListChanged(() => --left === 0 && resolve());
    });
    await catalog.addTool("shelve");
    await catalog.removeTool("erase");
    await Promise.all([changed, heardBoth]);
    const now = await set.current();
    expect(now).toBe(set.tools);
    expect(now.map((tool) => tool.name)).toEqual(["lookup", "append", "plain", "add_tool", "remove_tool", "shelve"]);
    // The array given before is left as it was: a model bound to it is rebound from the new one.
    expect(first.map((tool) => tool.name)).toContain("erase");

    const model = new ScriptedChatModel([new AIMessage({ content: "", tool_calls: [toolCall("shelve", {})] }), new AIMessage("Shelved.")]);
    const messages = await agentLoop(model, now, "Shelve it.");
    expect(messages[2]).toMatchObject({ content: "shelve", status: "success" });
    expect(catalog.calls).toEqual(["shelve"]);
  });

  it("a tool from before the change, invoked after it, is not sent: an error ToolMessage says it is gone", async () => {
    const { catalog, client } = await connectCatalog();
    using set = await langchainToolSet(client);
    const erase = set.tools.find((tool) => tool.name === "erase")!;
    const changed = new Promise<void>((resolve) => set.onChange(resolve));
    await catalog.removeTool("erase");
    await changed;
    const message = (await erase.invoke(toolCall("erase", {}))) as ToolMessage;
    expect(message).toMatchObject({
      status: "error",
      content: expect.stringContaining('the tool "erase" is no longer offered by its server (its tool list changed), so it was not called'),
      artifact: { failure: { kind: "REMOVED", retryable: false } },
    });
    expect(catalog.calls).toEqual([]);
  });

  it("close() stops following: the tools stay as they were", async () => {
    const { catalog, client } = await connectCatalog();
    const set = await langchainToolSet(client);
    set.close();
    set.close();
    await catalog.addTool("late");
    // The client heard of it (and would list again); the closed set did not.
    await client.listTools();
    expect((await set.current()).map((tool) => tool.name)).not.toContain("late");
  });
});

describe("mcpwire/langchain: a source of the wrong kind", () => {
  it("is a TypeError that says what was expected, never a JS error from inside", async () => {
    await expect(langchainTools(null as never)).rejects.toThrow(/^expected a client \(from connect\(\)\), the servers of connectAll\(\)/);
    await expect(langchainTools([{}] as never)).rejects.toThrow("tools[0] is not a listed tool");
  });
});

describe("mcpwire/langchain: the tools' hints", () => {
  it("refuses needsApproval, which only the AI SDK applies, and says where the hints are", async () => {
    const { client } = await connectCatalog();
    const options = { needsApproval: "destructive" } as never;
    await expect(langchainTools(client, options)).rejects.toThrow('"needsApproval" applies to the AI SDK\'s tools (mcpwire/ai)');
    await expect(langchainToolSet(client, options)).rejects.toThrow("read the hints from tool.metadata");
  });

  it("travel in metadata, which LangChain hands to the tool's callbacks", async () => {
    const { client } = await connectCatalog();
    const tools = await langchainTools(client);
    const byName = (name: string) => tools.find((tool) => tool.name === name)!;
    expect(byName("lookup").metadata).toEqual({ mcpServer: "catalog", mcpTool: "lookup", readOnlyHint: true });
    expect(byName("erase").metadata).toEqual({ mcpServer: "catalog", mcpTool: "erase", destructiveHint: true, openWorldHint: false });
    expect(byName("plain").metadata).toEqual({ mcpServer: "catalog", mcpTool: "plain" });

    const seen: Record<string, unknown>[] = [];
    const handler = BaseCallbackHandler.fromMethods({
      handleToolStart: (_tool, _input, _runId, _parentRunId, _tags, metadata) => void seen.push(metadata ?? {}),
    });
    await byName("erase").invoke(toolCall("erase", {}), { callbacks: [handler] });
    expect(seen).toEqual([expect.objectContaining({ mcpTool: "erase", destructiveHint: true })]);
  });
});
