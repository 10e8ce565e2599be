/**
 * Tools in sampling (client/sampling, 2025-11-25, "Tools in Sampling") against a real server over
 * stdio and Streamable HTTP: `{ createMessage, tools: true }` declares `sampling.tools`; the
 * handler gets the tools and `toolChoice` typed, answers `tool_use`, and gets the `tool_result`
 * of the next round; a client that did not declare tools, or a conversation that breaks the
 * "Message Content Constraints", is answered -32602 before the handler runs.
 */
import { describe, expect, it } from "vitest";
import { connect, type ConnectOptions, type CreateMessageParams, type SamplingHandler } from "../../src/index.js";
import { textOf, useUrlElicitationServer } from "../helpers/url-elicitation-fixture.js";

const wires = useUrlElicitationServer();

describe.each(wires)("sampling with tools over %s", (_, target) => {
  const open = (options: ConnectOptions = {}) => connect(target(), { timeoutMs: 20_000, ...options });

  it("declares sampling.tools for { createMessage, tools: true }, and plain sampling for a function", async () => {
    const reply: SamplingHandler = () => ({ role: "assistant", content: { type: "text", text: "hi" }, model: "m" });
    for (const [sampling, expected] of [
      [{ createMessage: reply, tools: true }, { tools: {} }],
      [{ createMessage: reply }, {}],
      [reply, {}],
    ] as const) {
      await using client = await open({ handlers: { sampling } });
      expect(JSON.parse(textOf(await client.callTool("client_capabilities"))).sampling).toEqual(expected);
    }
  });

  it("runs a tool loop: tools and toolChoice reach the handler typed, tool_use goes back, tool_result comes in", async () => {
    const rounds: CreateMessageParams[] = [];
    await using client = await open({
      handlers: {
        sampling: {
          tools: true,
          createMessage: ({ params }) => {
            rounds.push(params);
            if (rounds.length === 1) {
              return {
                role: "assistant",
                model: "test-model",
                stopReason: "toolUse",
                content: [{ type: "tool_use", id: "call-7", name: params.tools![0]!.name, input: { city: "Paris" } }],
              };
            }
            const last = params.messages.at(-1)!;
            const result = (Array.isArray(last.content) ? last.content : [last.content])[0]!;
            const said = result.type === "tool_result" && result.content[0]?.type === "text" ? result.content[0].text : "?";
            return { role: "assistant", model: "test-model", stopReason: "endTurn", content: { type: "text", text: `Paris: ${said}` } };
          },
        },
      },
    });
    expect(textOf(await client.callTool("sample_tools"))).toBe("two rounds: Paris: 18 C, cloudy");
    expect(rounds).toHaveLength(2);
    expect(rounds[0]!.tools).toEqual([expect.objectContaining({ name: "get_weather", inputSchema: expect.objectContaining({ type: "object" }) })]);
    expect(rounds[0]!.toolChoice).toEqual({ mode: "auto" });
    expect(rounds[1]!.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(rounds[1]!.messages[2]!.content).toEqual([
      { type: "tool_result", toolUseId: "call-7", content: [{ type: "text", text: "18 C, cloudy" }] },
    ]);
    expect(rounds[1]!.toolChoice).toEqual({ mode: "none" });
  });

  it("answers -32602 to tools offered to a client that did not declare sampling.tools; the handler never runs", async () => {
    let calls = 0;
    await using client = await open({
      handlers: {
        sampling: () => {
          calls++;
          return { role: "assistant", content: { type: "text", text: "x" }, model: "m" };
        },
      },
    });
    expect(textOf(await client.callTool("sample_raw", { variant: "tools" }))).toBe("refused -32602");
    expect(textOf(await client.callTool("sample_raw", { variant: "plain" }))).toMatch(/^ok /);
    expect(calls).toBe(1);
  });

  it("answers -32602 to tool results mixed with other content, and to a tool use left without its result", async () => {
    let calls = 0;
    await using client = await open({
      handlers: {
        sampling: {
          tools: true,
          createMessage: () => {
            calls++;
            return { role: "assistant", content: { type: "text", text: "x" }, model: "m" };
          },
        },
      },
    });
    expect(textOf(await client.callTool("sample_raw", { variant: "mixed" }))).toBe("refused -32602");
    expect(textOf(await client.callTool("sample_raw", { variant: "missing" }))).toBe("refused -32602");
    expect(calls).toBe(0);
  });

  it("answers -32603 when the handler asks for a tool the request did not offer", async () => {
    await using client = await open({
      handlers: {
        sampling: {
          tools: true,
          createMessage: () => ({ role: "assistant", model: "m", content: { type: "tool_use", id: "c", name: "rm", input: {} } }),
        },
      },
    });
    expect(textOf(await client.callTool("sample_raw", { variant: "plain" }))).toBe("refused -32603");
  });

  it("answers -32603 when the handler asks for a tool other than the ones offered, and passes an offered one", async () => {
    let name = "delete_everything";
    await using client = await open({
      handlers: {
        sampling: {
          tools: true,
          createMessage: () => ({ role: "assistant", model: "m", stopReason: "toolUse", content: [{ type: "tool_use", id: "c", name, input: {} }] }),
        },
      },
    });
    expect(textOf(await client.callTool("sample_raw", { variant: "tools" }))).toBe("refused -32603");
    name = "get_weather";
    expect(textOf(await client.callTool("sample_raw", { variant: "tools" }))).toMatch(/^ok .*"name":"get_weather"/);
  });
  it('answers -32603 when toolChoice is "required" and the handler completes without a tool use; passes a tool use', async () => {
    // "Tool Choice Modes": `{mode: "required"}`: Model MUST use at least one tool before completing.
    let answer: "text" | "cut off" | "tool" = "text";
    await using client = await open({
      handlers: {
        sampling: {
          tools: true,
          createMessage: () =>
            answer === "tool"
              ? { role: "assistant", model: "m", stopReason: "toolUse", content: [{ type: "tool_use", id: "c", name: "get_weather", input: { city: "Paris" } }] }
              : { role: "assistant", model: "m", stopReason: answer === "text" ? "endTurn" : "maxTokens", content: { type: "text", text: "Sunny." } },
        },
      },
    });
    expect(textOf(await client.callTool("sample_raw", { variant: "required" }))).toBe("refused -32603");
    answer = "cut off";
    expect(textOf(await client.callTool("sample_raw", { variant: "required" }))).toMatch(/^ok .*"stopReason":"maxTokens"/);
    answer = "tool";
    expect(textOf(await client.callTool("sample_raw", { variant: "required" }))).toMatch(/^ok .*"name":"get_weather"/);
  });
});
