// The smallest program that lists a stdio server's tools with the official SDK v1:
//   node bench/smallest/sdk.mjs <command> [args...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: "smallest", version: "1" });
await client.connect(new StdioClientTransport({ command, args }));
const { tools } = await client.listTools();
console.log(tools.map((tool) => tool.name).join("\n"));
await client.close();
