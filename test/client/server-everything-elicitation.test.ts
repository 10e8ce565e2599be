/**
 * The reference server, @modelcontextprotocol/server-everything, over stdio, Streamable HTTP and
 * legacy HTTP+SSE: its elicitation and sampling tools are listed only for a client that declares
 * what they need, and work through mcpwire's handlers: `trigger-url-elicitation` by request
 * (`elicitation/create` in URL mode) and by error (-32042, then the request sent again),
 * `trigger-elicitation-request` (form mode), `trigger-sampling-request`.
 */
import { describe, expect, it } from "vitest";
import { connect, type ConnectOptions } from "../../src/index.js";
import { EVERYTHING_ENTRY, useEverythingHttp } from "../helpers/everything-fixture.js";
import { acceptingUrlHandler } from "../helpers/url-handlers.js";

const everything = useEverythingHttp();

function allText(result: { content: unknown[] }): string {
  return result.content.map((block) => (block as { text?: string }).text ?? "").join("\n");
}

describe.each([
  ["stdio", () => `${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING_ENTRY)} stdio`],
  ["Streamable HTTP", everything.streamableHttp],
  ["HTTP+SSE", everything.sse],
])("server-everything's elicitation and sampling tools over %s", (_, target) => {
  const open = (options: ConnectOptions = {}) => connect(target(), { timeoutMs: 20_000, ...options });

  it("lists trigger-url-elicitation only for a client with a URL handler", async () => {
    await using formOnly = await open({ handlers: { elicitation: () => ({ action: "decline" }) } });
    const plain = (await formOnly.listTools()).map((tool) => tool.name);
    expect(plain).toContain("trigger-elicitation-request");
    expect(plain).not.toContain("trigger-url-elicitation");
    await using withUrl = await open({ handlers: { elicitation: { url: () => ({ action: "decline" }) } } });
    expect((await withUrl.listTools()).map((tool) => tool.name)).toContain("trigger-url-elicitation");
  });

  it("trigger-url-elicitation by request: the URL handler gets the URL, its domain and the elicitation id", async () => {
    const { seen, handlers } = acceptingUrlHandler();
    await using client = await open({
      handlers,
    });
    const result = await client.callTool("trigger-url-elicitation", {
      url: "https://example.com/settings?tab=keys",
      message: "Set your API key.",
      elicitationId: "mcpwire-1",
    });
    expect(allText(result)).toContain("User completed the URL elicitation flow");
    expect(seen).toHaveLength(1);
    expect(seen[0]!.params).toMatchObject({ mode: "url", elicitationId: "mcpwire-1", message: "Set your API key." });
    expect(seen[0]!.url.href).toBe("https://example.com/settings?tab=keys");
    expect(seen[0]!.domain).toBe("example.com");
  });

  it("trigger-url-elicitation by error: -32042, the prerequisite through the handler, then the call again", async () => {
    const { seen, handlers } = acceptingUrlHandler();
    await using client = await open({
      handlers,
    });
    const result = await client.callTool("trigger-url-elicitation", { url: "https://example.com/connect", errorPath: true });
    expect(allText(result)).toContain("User completed the URL elicitation flow");
    // First the prerequisite the -32042 listed, then (the call sent again) the server's own request.
    expect(seen.map((request) => [request.domain, request.requiredBy])).toEqual([
      ["modelcontextprotocol.io", "tools/call"],
      ["example.com", undefined],
    ]);
  });

  it("trigger-elicitation-request: a form answered, the schema's defaults filled in", async () => {
    await using client = await open({
      handlers: { elicitation: () => ({ action: "accept", content: { name: "Ada Lovelace", check: true } }) },
    });
    const text = allText(await client.callTool("trigger-elicitation-request"));
    expect(text).toContain("User provided the requested information");
    expect(text).toContain("- Name: Ada Lovelace");
    expect(text).toContain("- Favorite Integer: 42");
  });

  it("trigger-sampling-request: the sampling handler's message comes back", async () => {
    await using client = await open({
      handlers: {
        sampling: ({ params }) => ({
          role: "assistant",
          model: "mcpwire-test",
          stopReason: "endTurn",
          content: { type: "text", text: `seen ${params.messages.length} message(s), up to ${params.maxTokens} tokens` },
        }),
      },
    });
    const text = allText(await client.callTool("trigger-sampling-request", { prompt: "hello", maxTokens: 50 }));
    expect(text).toContain("seen 1 message(s), up to 50 tokens");
    expect(text).toContain("mcpwire-test");
  });
});
