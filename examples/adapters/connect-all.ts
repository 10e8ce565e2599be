/**
 * Every server of an `mcpServers` file at once, for an agent: `node --import tsx examples/adapters/connect-all.ts`.
 *
 * `examples/adapters/mcp-servers.json` declares two servers that start and one that cannot; the
 * broken one is reported, and the others are used.
 */
import { connectAll } from "../../src/index.js";
import { aiTools } from "../../src/ai.js";

await using servers = await connectAll("examples/adapters/mcp-servers.json");

console.log(`connected: ${Object.keys(servers.clients).join(", ")}`);
for (const [name, error] of Object.entries(servers.failures)) {
  console.log(`failed: ${name} (${error.reason}): ${error.message}`);
}

const { tools } = await servers.listTools();
console.log(`${tools.length} tools, e.g. ${tools.filter((tool) => tool.tool.name === "echo" || tool.server === "handbook").map((tool) => tool.name).join(", ")}`);

// The same servers as AI SDK tools (langchainTools(servers) works the same way).
const agentTools = await aiTools(servers, { filter: (tool) => tool.server === "handbook" });
console.log(`for the agent: ${Object.keys(agentTools).join(", ")}`);

const search = tools.find((tool) => tool.name === "handbook__search_handbook")!;
const result = await search.client.callTool(search.tool.name, { query: "escalate" });
console.log(`${search.name} -> ${result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ")}`);
// Leaving the block closes every server.
