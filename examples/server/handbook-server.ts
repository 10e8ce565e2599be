/**
 * The example server bundled with mcpwire: a small support handbook, built with the official SDK.
 * The demo reaches this same server in-memory, over stdio and over HTTP.
 */
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

const SECTIONS: Record<string, { title: string; text: string }> = {
  refunds: { title: "Refunds", text: "Refunds are issued within 14 days to the original payment method." },
  shipping: { title: "Shipping", text: "Orders ship within 2 business days; tracking links arrive by email." },
  escalation: { title: "Escalation", text: "Escalate to the on-call lead when a customer reports data loss." },
};

export function createHandbookServer(): McpServer {
  const server = new McpServer(
    { name: "handbook", version: "1.0.0" },
    { instructions: "Search the support handbook before answering a customer." },
  );

  server.registerTool(
    "search_handbook",
    {
      title: "Search the handbook",
      description: "Finds handbook sections whose text mentions the query.",
      inputSchema: { query: z.string().describe("Words to look for") },
    },
    async ({ query }) => {
      const needle = query.toLowerCase();
      const hits = Object.entries(SECTIONS).filter(([, s]) => `${s.title} ${s.text}`.toLowerCase().includes(needle));
      const text = hits.length === 0 ? `No section mentions "${query}".` : hits.map(([id, s]) => `${id}: ${s.text}`).join("\n");
      return { content: [{ type: "text", text }], structuredContent: { sections: hits.map(([id]) => id) } };
    },
  );

  server.registerTool(
    "count_words",
    { description: "Counts the words of a text.", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text: String(text.split(/\s+/).filter(Boolean).length) }] }),
  );

  server.registerResource(
    "section",
    new ResourceTemplate("handbook://sections/{id}", {
      list: async () => ({
        resources: Object.entries(SECTIONS).map(([id, s]) => ({ uri: `handbook://sections/${id}`, name: s.title })),
      }),
    }),
    { description: "One section of the handbook", mimeType: "text/plain" },
    async (uri, { id }) => {
      const section = SECTIONS[String(id)];
      if (!section) throw new Error(`no section ${String(id)}`);
      return { contents: [{ uri: uri.href, mimeType: "text/plain", text: section.text }] };
    },
  );

  server.registerPrompt(
    "answer_customer",
    { description: "Drafts an answer to a customer from the handbook.", argsSchema: { question: z.string() } },
    ({ question }) => ({
      messages: [{ role: "user", content: { type: "text", text: `Using the handbook, answer: ${question}` } }],
    }),
  );

  return server;
}
