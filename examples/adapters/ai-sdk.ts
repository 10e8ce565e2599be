/**
 * The handbook server's tools in a Vercel AI SDK agent: `node --import tsx examples/adapters/ai-sdk.ts`.
 *
 * Network-free: the model here is a scripted stand-in from `ai/test` that asks for one tool call
 * and then answers. With a real model, pass it instead (say `openai("gpt-4o")`); nothing else changes.
 */
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { connect } from "../../src/index.js";
import { aiTools } from "../../src/ai.js";
import { createHandbookServer } from "../server/handbook-server.js";

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};
const model = new MockLanguageModelV3({
  doGenerate: [
    {
      content: [{ type: "tool-call", toolCallId: "call-1", toolName: "handbook__search_handbook", input: '{"query":"refund"}' }],
      finishReason: { unified: "tool-calls", raw: "tool_calls" },
      usage,
      warnings: [],
    },
    {
      content: [{ type: "text", text: "Refunds go back to the original payment method within 14 days." }],
      finishReason: { unified: "stop", raw: "stop" },
      usage,
      warnings: [],
    },
  ],
});

// Any target works the same way: a URL, { command, args }, or (here) a server object in this process.
await using client = await connect(createHandbookServer());

const tools = await aiTools(client, {
  prefix: true, // "handbook__search_handbook": tools of several servers never clash
  timeoutMs: 30_000, // past it, the model reads "the tool ... timed out after 30 s" and the run goes on
});
console.log(`tools: ${Object.keys(tools).join(", ")}`);

const result = await generateText({
  model,
  tools,
  prompt: "How do refunds work?",
  stopWhen: stepCountIs(5),
});

for (const step of result.steps) {
  for (const call of step.toolResults) {
    const output = call.output as { isError: boolean; content: { type: string; text?: string }[] };
    console.log(`${call.toolName}(${JSON.stringify(call.input)}) -> ${output.isError ? "error: " : ""}${output.content[0]?.text}`);
  }
}
console.log(`answer: ${result.text}`);
