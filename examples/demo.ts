/**
 * `npm start`: the bundled handbook server reached three ways by the same code, only the
 * declaration changing: a child process over stdio, Streamable HTTP on a free 127.0.0.1 port
 * (started here), and in-memory. Then a scripted transport answers the same calls, as a test
 * would. Nothing is left running at the end.
 */
import type { McpClient} from "../src/index.js";
import { RecordingTransport, connect, type CallToolResult, type ConnectTarget, type McpServerConfig } from "../src/index.js";
import { createHandbookServer } from "./server/handbook-server.js";
import { startHandbookHttpServer } from "./server/http.js";

function textOf(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ");
}

/** The calls an application makes; written once, whatever the transport. */
async function tour(client: McpClient): Promise<void> {
  console.log(
    `  connected to ${client.serverInfo.name} ${client.serverInfo.version} over ${client.transportKind}, ` +
      `protocol ${client.protocolVersion} (${client.era} era)`,
  );
  const tools = await client.listTools();
  console.log(`  tools: ${tools.map((tool) => tool.name).join(", ")}`);
  const result = await client.callTool("search_handbook", { query: "refund" });
  console.log(`  search_handbook("refund") -> ${textOf(result)}`);
}

async function visit(title: string, target: ConnectTarget): Promise<void> {
  console.log(title);
  await using client = await connect(target);
  await tour(client);
}

const laptop: McpServerConfig = {
  name: "handbook",
  transport: "stdio",
  command: process.execPath,
  args: ["--import", "tsx", new URL("./server/stdio.ts", import.meta.url).pathname],
};
await visit("1. stdio: the server as a child process (no shell, allow-listed environment)", laptop);

const http = await startHandbookHttpServer();
try {
  const cluster: McpServerConfig = { name: "handbook", transport: "http", url: http.url };
  await visit(`2. Streamable HTTP: the same server at ${http.url}`, cluster);
} finally {
  await http.close();
}

await visit("3. In memory: the official SDK's server object in this process (no subprocess, no port)", createHandbookServer());

console.log("4. Recording transport: the same calls answered from a script, for tests");
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

console.log("Done: every connection is closed and nothing is left running.");
