// The Vercel AI SDK's MCP client (@ai-sdk/mcp 2.x), `createMCPClient` with its stdio transport
// (`@ai-sdk/mcp/mcp-stdio`) or its HTTP transport, with its defaults (over stdio it probes with
// `server/discover` before `initialize`).
export async function load() {
  const [{ createMCPClient }, { StdioMCPTransport }] = await Promise.all([import("@ai-sdk/mcp"), import("@ai-sdk/mcp/mcp-stdio")]);
  return {
    async connect(target) {
      const transport = target.command
        ? new StdioMCPTransport({ command: target.command, args: target.args, stderr: "inherit" })
        : { type: "http", url: target.url };
      const client = await createMCPClient({ transport });
      return {
        listTools: async () => (await client.listTools()).tools,
        call: (name, args) => client.callTool({ name, arguments: args, options: { timeout: 120_000 } }),
        close: () => client.close(),
      };
    },
  };
}
