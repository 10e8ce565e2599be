// mcpwire, from its build (dist/), with the transports it picks for the targets.
// `load({ defaults: true })` (the cold start) connects as a new user would, with no options: the
// era found out (`protocolVersion: "auto"`), the default ceilings.
export async function load({ defaults = false } = {}) {
  const { connect } = await import("/tmp/b/cur/dist/index.js");
  return {
    async connect(target) {
      const where = target.command ? { command: target.command, args: target.args, stderr: process.stderr } : target.url;
      // Large enough for the 16 MiB messages of the benchmark, envelope included.
      const options = defaults ? {} : { maxMessageBytes: 64 * 1024 * 1024, timeoutMs: 120_000, protocolVersion: "legacy" };
      const client = await connect(where, options);
      return {
        listTools: () => client.listTools(),
        call: (name, args) => client.callTool(name, args),
        close: () => client.close(),
      };
    },
  };
}
