// mcpwire cut at one of its layers, to tell what each layer adds to a call (bench/layers.mjs).
// BENCH_LAYER says where the calls enter:
//   transport  the connection alone: over stdio the framing, the read-stall watch, the turn
//              batch and the message check; over HTTP the Streamable HTTP exchange of each
//              request (headers, session, redirect policy, reply checks, read-stall watch);
//              ids matched here in a Map, as the floor does
//   session    the session (ids, the in-flight ceiling, the deadline, the progress token) over it
// The whole client (tools/call through McpClient.callTool) is `mcpwire.mjs`. The handshake is
// done by the layer itself, or by McpClient for the session, with the options mcpwire.mjs uses.
const LAYERS = ["transport", "session"];

export async function load() {
  const layer = process.env.BENCH_LAYER;
  if (!LAYERS.includes(layer)) throw new Error(`BENCH_LAYER must be one of ${LAYERS.join(", ")}, got ${layer}`);
  const { McpClient, StdioTransport, StreamableHttpTransport } = await import("../../dist/index.js");
  const limits = { maxMessageBytes: 64 * 1024 * 1024, timeoutMs: 120_000 };
  return {
    async connect(target) {
      const transport = target.command
        ? new StdioTransport({ command: target.command, args: target.args, stderr: process.stderr })
        : new StreamableHttpTransport(target.url);
      if (layer === "transport") return overConnection(transport, limits);
      const client = await McpClient.connect(transport, { ...limits, protocolVersion: "legacy" });
      const session = client.session;
      return {
        listTools: () => client.listTools(),
        call: (name, args) => session.request("tools/call", { name, arguments: args }),
        close: () => client.close(),
      };
    },
  };
}

async function overConnection(transport, { maxMessageBytes, timeoutMs }) {
  const pending = new Map();
  let nextId = 1;
  const events = {
    message(message) {
      pending.get(message.id)?.(message);
      pending.delete(message.id);
    },
    requestFailed() {},
    closed() {},
    waitingForUser() {},
  };
  // The defaults mcpwire.mjs gets for the two it does not set.
  const limits = { maxMessageBytes, readTimeoutMs: 300_000, maxInFlight: 64, timeoutMs };
  const connection = await transport.open(events, { limits });
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      connection.send({ jsonrpc: "2.0", id, method, params });
    });
  const initialized = await request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "layer", version: "1" } });
  // As the session does once the revision is agreed (over HTTP, its MCP-Protocol-Version header).
  connection.setProtocolVersion?.(initialized.result.protocolVersion);
  await connection.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    listTools: async () => (await request("tools/list", {})).result.tools,
    call: async (name, args) => (await request("tools/call", { name, arguments: args })).result,
    close: () => connection.close(),
  };
}
