// The smallest program that lists a stdio server's tools with @ai-sdk/mcp:
//   node bench/smallest/aisdk.mjs <command> [args...]
import { createMCPClient } from "@ai-sdk/mcp";
import { StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";

const [command, ...args] = process.argv.slice(2);
const client = await createMCPClient({ transport: new StdioMCPTransport({ command, args }) });
const { tools } = await client.listTools();
console.log(tools.map((tool) => tool.name).join("\n"));
await client.close();
