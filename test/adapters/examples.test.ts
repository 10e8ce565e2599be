/** The adapters' examples run as a user would run them, and print what they promise. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

async function example(name: string): Promise<string> {
  const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", `examples/adapters/${name}.ts`], { timeout: 90_000 });
  expect(stderr).toBe("");
  return stdout;
}

describe("adapter examples (examples/adapters)", () => {
  it("ai-sdk.ts: an AI SDK tool loop calls the handbook's search tool and answers", async () => {
    const stdout = await example("ai-sdk");
    expect(stdout).toContain("tools: handbook__search_handbook, handbook__count_words");
    expect(stdout).toContain('handbook__search_handbook({"query":"refund"}) -> refunds: Refunds are issued within 14 days');
    expect(stdout).toContain("answer: Refunds go back to the original payment method within 14 days.");
  });

  it("langchain.ts: LangChain tools answer with ToolMessages, a cancelled call too", async () => {
    const stdout = await example("langchain");
    expect(stdout).toContain("ToolMessage (success): shipping: Orders ship within 2 business days");
    expect(stdout).toContain('artifact.structuredContent: {"sections":["shipping"]}');
    expect(stdout).toContain('ToolMessage (error): the call to the tool "handbook__count_words" was cancelled');
  });

  it("sdk-client.ts: the official SDK's Client runs over mcpwire's stdio transport", async () => {
    const stdout = await example("sdk-client");
    expect(stdout).toContain("connected to handbook over mcpwire's stdio transport");
    expect(stdout).toContain("count_words -> 4");
    expect(stdout).toContain("closed: the child process has exited.");
  });

  it("connect-all.ts: the servers of a file, the broken one reported, tools prefixed", async () => {
    const stdout = await example("connect-all");
    expect(stdout).toContain("connected: handbook, everything");
    expect(stdout).toMatch(/failed: broken \(UNAVAILABLE\)/);
    expect(stdout).toContain("for the agent: handbook__search_handbook, handbook__count_words");
    expect(stdout).toContain("handbook__search_handbook -> escalation: Escalate to the on-call lead");
  });
});
