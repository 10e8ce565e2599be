// The smallest program that lists a stdio server's tools with the official v2 client:
//   node bench/smallest/sdk2.mjs <command> [args...]
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: "smallest", version: "1" });
await client.connect(new StdioClientTransport({ command, args }));
const { tools } = await client.listTools();
console.log(tools.map((tool) => tool.name).join("\n"));
await client.close();
