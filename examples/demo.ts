/**
 * `npm start`: the same calls against the bundled handbook server, reached different ways.
 * Network-free: the server runs in this process, then a scripted transport answers instead.
 */
import type { McpClient} from "../src/index.js";
import { RecordingTransport, connect, type CallToolResult } from "../src/index.js";
import { createHandbookServer } from "./server/handbook-server.js";

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ");
}

/** The calls an application makes; written once, whatever the transport. */
async function tour(client: McpClient): Promise<void> {
  console.log(`  connected to ${client.serverInfo.name} ${client.serverInfo.version} over ${client.transportKind}, protocol ${client.protocolVersion}`);
  const tools = await client.listTools();
  console.log(`  tools: ${tools.map((tool) => tool.name).join(", ")}`);
  const result = await client.callTool("search_handbook", { query: "refund" });
  console.log(`  search_handbook("refund") -> ${textOf(result)}`);
}

console.log("1. In memory: the official SDK's server object, in this process (no subprocess, no port)");
{
  await using client = await connect(createHandbookServer());
  await tour(client);
}

console.log("2. Recording transport: the same calls answered from a script, for tests");
{
  const transport = new RecordingTransport({
    "tools/list": { tools: [{ name: "search_handbook", inputSchema: { type: "object" } }] },
    "tools/call": (params) => ({ content: [{ type: "text", text: `scripted answer for ${JSON.stringify(params.arguments)}` }] }),
  });
  {
    await using client = await connect(transport);
    await tour(client);
  }
  console.log(`  the script was asked: ${transport.requests().map((request) => request.method).join(", ")}`);
}

console.log("Done: every connection is closed.");
