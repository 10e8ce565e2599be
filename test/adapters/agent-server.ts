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
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
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

/** A server whose tool list changes, for the live tool sets; see `createCatalogServer`. */
export interface CatalogServer {
  server: Server;
  /** The tools called, by name, in order: what the server ran. */
  calls: string[];
  /** How many `tools/list` requests it answered. */
  lists(): number;
  /** Adds a tool that answers its own name; tells the client when the server announces changes. */
  addTool(name: string): Promise<void>;
  removeTool(name: string): Promise<void>;
  /** Makes `tools/list` fail with a JSON-RPC error (or work again), and says the list changed. */
  breakListing(broken: boolean): Promise<void>;
  /** Holds every `tools/list` answer until the returned function is called. */
  holdListings(): () => void;
}

/**
 * A server (the official SDK's low-level `Server`, reached in memory) whose tools carry hints and
 * whose list changes:
 *
 * - `lookup` (`readOnlyHint: true`), `append` (`readOnlyHint: false`, `destructiveHint: false`),
 *   `erase` (`destructiveHint: true`, `openWorldHint: false`), `plain` (no annotations): each
 *   answers its name.
 * - `add_tool { name }`, `remove_tool { name }`: change the list, then answer.
 *
 * With `announces` (the default) it declares `tools.listChanged` and sends
 * `notifications/tools/list_changed` before answering a call that changed the list; without, it
 * declares neither and never notifies.
 */
export function createCatalogServer(options: { name?: string; announces?: boolean } = {}): CatalogServer {
  const announces = options.announces ?? true;
  const server = new Server({ name: options.name ?? "catalog", version: "1.0.0" }, { capabilities: { tools: announces ? { listChanged: true } : {} } });
  const input = { type: "object" as const, properties: {} };
  const tools = new Map<string, Tool>([
    ["lookup", { name: "lookup", description: "Reads a record.", inputSchema: input, annotations: { readOnlyHint: true } }],
    ["append", { name: "append", description: "Adds a record.", inputSchema: input, annotations: { readOnlyHint: false, destructiveHint: false } }],
    ["erase", { name: "erase", description: "Deletes every record.", inputSchema: input, annotations: { destructiveHint: true, openWorldHint: false } }],
    ["plain", { name: "plain", description: "Says nothing about itself.", inputSchema: input }],
    ["add_tool", { name: "add_tool", inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }],
    ["remove_tool", { name: "remove_tool", inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }],
  ]);
  const calls: string[] = [];
  let lists = 0;
  let listingBroken = false;
  let held: Promise<void> | undefined;
  const changed = async () => {
    if (announces) await server.sendToolListChanged();
  };
  const catalog: CatalogServer = {
    server,
    calls,
    lists: () => lists,
    async addTool(name) {
      tools.set(name, { name, description: `Added as ${name}.`, inputSchema: input });
      await changed();
    },
    async removeTool(name) {
      tools.delete(name);
      await changed();
    },
    async breakListing(broken) {
      listingBroken = broken;
      await changed();
    },
    holdListings() {
      let release!: () => void;
      held = new Promise((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    await held;
    lists++;
    if (listingBroken) throw new McpError(-32603, "the tool index is being rebuilt");
    return { tools: [...tools.values()] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name } = request.params;
    if (!tools.has(name)) return { content: [{ type: "text", text: `no tool ${name}` }], isError: true };
    calls.push(name);
    const target = String(request.params.arguments?.name ?? "");
    if (name === "add_tool") await catalog.addTool(target);
    if (name === "remove_tool") await catalog.removeTool(target);
    return { content: [{ type: "text", text: name === "add_tool" || name === "remove_tool" ? `${name} ${target}` : name }] };
  });
  return catalog;
}
