// mcpwire, from its build (dist/), with the transports it picks for the targets.
export async function load() {
  const { connect } = await import("../../dist/index.js");
  return {
    async connect(target) {
      // Large enough for the 16 MiB messages of the benchmark, envelope included.
      const client = await connect(target.command ? { command: target.command, args: target.args, stderr: process.stderr } : target.url, {
        maxMessageBytes: 64 * 1024 * 1024,
        timeoutMs: 120_000,
        protocolVersion: "legacy",
      });
      return {
        listTools: () => client.listTools(),
        call: (name, args) => client.callTool(name, args),
        close: () => client.close(),
      };
    },
  };
}
