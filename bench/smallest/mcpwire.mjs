// The smallest program that lists a stdio server's tools with mcpwire (from dist/):
//   node bench/smallest/mcpwire.mjs <command> [args...]
import { connect } from "../../dist/index.js";

const [command, ...args] = process.argv.slice(2);
const client = await connect({ command, args });
const tools = await client.listTools();
console.log(tools.map((tool) => tool.name).join("\n"));
await client.close();
