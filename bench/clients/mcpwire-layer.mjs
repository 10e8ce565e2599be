// mcpwire cut at one of its layers, to tell what each layer adds to a call (bench/layers.mjs).
// BENCH_LAYER says where the calls enter:
//   transport  the stdio connection alone (framing, the read-stall watch, the turn batch, the
//              message check); ids matched here in a Map, as the floor does
//   session    the session (ids, the in-flight ceiling, the deadline, the progress token) over it
// The whole client (tools/call through McpClient.callTool) is `mcpwire.mjs`. The handshake is
// done by the layer itself, or by McpClient for the session, with the options mcpwire.mjs uses.
const LAYERS = ["transport", "session"];

export async function load() {
  const layer = process.env.BENCH_LAYER;
  if (!LAYERS.includes(layer)) throw new Error(`BENCH_LAYER must be one of ${LAYERS.join(", ")}, got ${layer}`);
  const { McpClient, StdioTransport } = await import("../../dist/index.js");
  const limits = { maxMessageBytes: 64 * 1024 * 1024, timeoutMs: 120_000 };
  return {
    async connect(target) {
      if (!target.command) throw new Error("mcpwire-layer is a stdio client only");
      const transport = new StdioTransport({ command: target.command, args: target.args, stderr: process.stderr });
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
  await request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "layer", version: "1" } });
  await connection.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    listTools: async () => (await request("tools/list", {})).result.tools,
    call: async (name, args) => (await request("tools/call", { name, arguments: args })).result,
    close: () => connection.close(),
  };
}
