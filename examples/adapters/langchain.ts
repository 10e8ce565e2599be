/**
 * The handbook server's tools as LangChain tools: `node --import tsx examples/adapters/langchain.ts`.
 *
 * A LangChain agent binds them to its model (`model.bindTools(tools)`) and invokes each tool with
 * the tool call the model made; this example makes those invocations itself, so it runs without
 * a model or a network.
 */
import { connect } from "../../src/index.js";
import { langchainTools } from "../../src/langchain.js";
import { createHandbookServer } from "../server/handbook-server.js";

await using client = await connect(createHandbookServer());

const tools = await langchainTools(client, { prefix: "handbook", timeoutMs: 30_000 });
console.log(`tools: ${tools.map((tool) => tool.name).join(", ")}`);

const search = tools.find((tool) => tool.name === "handbook__search_handbook")!;
const message = await search.invoke({ name: search.name, args: { query: "shipping" }, id: "call-1", type: "tool_call" });
console.log(`ToolMessage (${message.status}): ${message.content}`);
console.log(`artifact.structuredContent: ${JSON.stringify(message.artifact.structuredContent)}`);

// A failure is a ToolMessage too: the agent's model reads it and the run goes on.
const count = tools.find((tool) => tool.name === "handbook__count_words")!;
const cancelled = await count.invoke(
  { name: count.name, args: { text: "one two three" }, id: "call-2", type: "tool_call" },
  { signal: AbortSignal.abort() },
);
console.log(`ToolMessage (${cancelled.status}): ${cancelled.content}`);
