// The official TypeScript SDK's client (@modelcontextprotocol/sdk), with its own transports.
export async function load() {
  const [{ Client }, { StdioClientTransport }, { StreamableHTTPClientTransport }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ]);
  return {
    async connect(target) {
      const client = new Client({ name: "bench-sdk", version: "1" });
      const transport = target.command
        ? new StdioClientTransport({ command: target.command, args: target.args, stderr: "inherit" })
        : new StreamableHTTPClientTransport(new URL(target.url));
      await client.connect(transport);
      return {
        listTools: async () => (await client.listTools()).tools,
        call: (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }),
        close: () => client.close(),
      };
    },
  };
}
