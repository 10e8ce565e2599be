/**
 * Code written against the official SDK's `Client`, on mcpwire's hardened stdio transport:
 * `node --import tsx examples/adapters/sdk-client.ts`.
 *
 * The one line that changes is the transport: instead of the SDK's `StdioClientTransport`,
 * `new SdkTransport(new StdioTransport({ ... }))`. The child runs without a shell, inherits only
 * allow-listed variables, has its stderr drained, and is gone when `close()` resolves.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioTransport } from "../../src/index.js";
import { SdkTransport } from "../../src/sdk.js";

const client = new Client({ name: "sdk-example", version: "1.0.0" });
await client.connect(
  new SdkTransport(
    new StdioTransport({ command: process.execPath, args: ["--import", "tsx", "examples/server/stdio.ts"] }),
    { limits: { maxMessageBytes: 1024 * 1024, readTimeoutMs: 60_000 } },
  ),
);

console.log(`connected to ${client.getServerVersion()?.name} over mcpwire's stdio transport`);
const { tools } = await client.listTools();
console.log(`tools: ${tools.map((tool) => tool.name).join(", ")}`);
const result = await client.callTool({ name: "count_words", arguments: { text: "the SDK's Client, unchanged" } });
console.log(`count_words -> ${(result.content as { text: string }[])[0]!.text}`);
await client.close();
console.log("closed: the child process has exited.");
