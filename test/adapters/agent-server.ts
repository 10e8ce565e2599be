/**
 * The server the agent-adapter tests hand to an agent, built with the official SDK and reached in
 * memory: one tool per kind of outcome an agent must be able to read.
 *
 * - `search { query }`: text and structured content.
 * - `structured_only`: structured content and no text block.
 * - `picture`: a text block and a 1x1 PNG.
 * - `refuse`: an `isError` result written by the tool.
 * - `slow { ms }`: answers after `ms`, or never if cancelled first.
 * - `crash`: closes the connection before answering.
 * - `steady { reports, everyMs }`: works `reports` times `everyMs`, reporting progress after each
 *   step when the request carries a progress token, then answers how often it reported.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { MemoryTransport } from "../../src/index.js";

/** A 1x1 transparent PNG. */
export const PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

export function createAgentServer(name = "library"): McpServer {
  const server = new McpServer({ name, version: "1.0.0" });

  server.registerTool(
    "search",
    {
      title: "Search the catalog",
      description: "Finds books whose title mentions the query.",
      inputSchema: { query: z.string().describe("Words to look for") },
    },
    async ({ query }) => ({
      content: [{ type: "text", text: `1 book matches "${query}": Dune` }],
      structuredContent: { books: ["Dune"] },
    }),
  );

  server.registerTool("structured_only", { description: "Counts the books." }, async () => ({
    content: [],
    structuredContent: { count: 3 },
  }));

  server.registerTool("picture", { description: "Shows the cover." }, async () => ({
    content: [
      { type: "text", text: "the cover of Dune" },
      { type: "image", data: PIXEL_PNG, mimeType: "image/png" },
    ],
  }));

  server.registerTool("refuse", { description: "Always refuses." }, async () => ({
    content: [{ type: "text", text: "the catalog is closed on Sundays" }],
    isError: true,
  }));

  server.registerTool("slow", { inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      extra.signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
    });
    return { content: [{ type: "text", text: `slept ${ms}` }] };
  });

  server.registerTool("steady", { inputSchema: { reports: z.number(), everyMs: z.number() } }, async ({ reports, everyMs }, extra) => {
    const token = extra._meta?.progressToken;
    let reported = 0;
    for (let step = 1; step <= reports; step++) {
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      if (extra.signal.aborted) return { content: [{ type: "text", text: "cancelled" }] };
      if (token === undefined) continue;
      await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: step, total: reports } });
      reported++;
    }
    return { content: [{ type: "text", text: `reported progress ${reported} times` }] };
  });

  server.registerTool("crash", {}, async () => {
    void server.close();
    return new Promise(() => {});
  });

  return server;
}

/** A transport to a new agent server in this process. */
export function agentServerTransport(name = "library"): MemoryTransport {
  return new MemoryTransport(createAgentServer(name), name);
}
