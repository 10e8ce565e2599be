// The official TypeScript SDK's v2 client (@modelcontextprotocol/client), with its own stdio and
// Streamable HTTP transports, as a new user would write it (its defaults: the plain `initialize`
// handshake, no era probe).
export async function load() {
  const [{ Client, StreamableHTTPClientTransport }, { StdioClientTransport }] = await Promise.all([
    import("@modelcontextprotocol/client"),
    import("@modelcontextprotocol/client/stdio"),
  ]);
  return {
    async connect(target) {
      const client = new Client({ name: "bench-sdk2", version: "1" });
      const transport = target.command
        ? new StdioClientTransport({ command: target.command, args: target.args, stderr: "inherit" })
        : new StreamableHTTPClientTransport(new URL(target.url));
      await client.connect(transport);
      return {
        listTools: async () => (await client.listTools()).tools,
        call: (name, args) => client.callTool({ name, arguments: args }, { timeout: 120_000 }),
        close: () => client.close(),
      };
    },
  };
}
