/**
 * JSON-RPC batches from the server, on the wires whose own tests do not cover them (stdio's are in
 * test/stdio/misbehaving.test.ts, Streamable HTTP's in test/http/exchange.test.ts): the in-memory
 * pair, WebSocket and legacy HTTP+SSE, each reaching the same scripted server.
 *
 * 2025-03-26, basic, "Batching": "MCP implementations MAY support sending JSON-RPC batches, but
 * MUST support receiving JSON-RPC batches"; custom transports "MUST ensure they preserve the
 * JSON-RPC message format" (basic/transports). 2025-06-18 removed batches, so under any other
 * revision a batch is not a message and fails with PROTOCOL.
 */
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { McpClient, WebSocketTransport, createMemoryPair, type McpTransport } from "../../src/index.js";
import { HttpTransport } from "../../src/transport/http/http-fallback.js";
import { SseTransport } from "../../src/transport/http/sse.js";
import { startSseEndpoint } from "../fixtures/sse-endpoint.js";
import { failure } from "../helpers/failure.js";
import { closedAfterEach } from "../helpers/owned.js";

const own = closedAfterEach();

type Message = { id?: unknown; method?: string };

/**
 * A server of `revision` that answers every `tools/call` with a batch: a log notification, then
 * the answer. What it sends for `message` (one message, or an array for a batch), or nothing.
 */
function scriptedReply(revision: string, message: Message): object | undefined {
  if (message.id === undefined || message.method === undefined) return undefined;
  const id = message.id;
  switch (message.method) {
    case "initialize":
      return {
        jsonrpc: "2.0",
        id,
        result: { protocolVersion: revision, capabilities: { tools: {}, logging: {} }, serverInfo: { name: "batching", version: "1.0.0" } },
      };
    case "tools/list":
      return { jsonrpc: "2.0", id, result: { tools: [{ name: "batched", inputSchema: { type: "object" } }] } };
    case "tools/call":
      return [
        { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "in the batch" } },
        { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "answered in the batch" }] } },
      ];
    default:
      return { jsonrpc: "2.0", id, result: {} };
  }
}

/** Each wire: a transport to the scripted server of `revision`, the server closed after the test. */
const wires: Record<string, (revision: string) => Promise<McpTransport>> = {
  async memory(revision) {
    const { transport, server } = createMemoryPair();
    // What the server end sends in one `send` is one message: the array is a batch.
    server.onmessage = (message) => {
      const reply = scriptedReply(revision, message as Message);
      if (reply) void server.send(reply);
    };
    return transport;
  },

  async websocket(revision) {
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, handleProtocols: (protocols) => (protocols.has("mcp") ? "mcp" : false) });
    await new Promise<void>((resolve) => wss.once("listening", resolve));
    own({
      close: () => {
        for (const socket of wss.clients) socket.terminate();
        return new Promise<void>((resolve) => wss.close(() => resolve()));
      },
    });
    wss.on("connection", (socket) => {
      socket.on("message", (data) => {
        const reply = scriptedReply(revision, JSON.parse(String(data)) as Message);
        // One text frame: a batch is one message on this wire.
        if (reply) socket.send(JSON.stringify(reply));
      });
    });
    return new WebSocketTransport(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}/mcp`, { keepAlive: { intervalMs: 0 } });
  },

  async sse(revision) {
    const endpoint = own(
      await startSseEndpoint({
        onMessage(request, res, stream) {
          res.writeHead(202).end("Accepted");
          const reply = scriptedReply(revision, (request.body ?? {}) as Message);
          // One `message` event: a batch is one message on this wire.
          if (reply) stream.event(JSON.stringify(reply), "message");
          return true;
        },
      }),
    );
    return new SseTransport(endpoint.url);
  },

  // The same server reached from its base URL: Streamable HTTP is refused, the legacy stream found.
  async "sse (by fallback from the base URL)"(revision) {
    const transport = (await wires.sse!(revision)) as SseTransport;
    return new HttpTransport(new URL("/", transport.url).href);
  },
};

describe.each(Object.keys(wires))("a server that answers with a JSON-RPC batch over %s", (wire) => {
  const connect = async (revision: string) =>
    own(await McpClient.connect(await wires[wire]!(revision), { timeoutMs: 20_000 }));

  it("reads each message of the batch, in order, from a server that negotiated 2025-03-26", async () => {
    const client = await connect("2025-03-26");
    expect(client.protocolVersion).toBe("2025-03-26");
    const seen: string[] = [];
    client.session.onNotification("notifications/message", (params) => seen.push(String(params.data)));
    const result = await client.callTool("batched", {}, { validateOutput: false });
    expect(result.content).toEqual([{ type: "text", text: "answered in the batch" }]);
    // The batch's other message, a notification, was delivered too.
    expect(seen).toEqual(["in the batch"]);
  });

  it("fails with PROTOCOL under a revision without batches (2025-06-18)", async () => {
    const client = await connect("2025-06-18");
    expect(client.protocolVersion).toBe("2025-06-18");
    expect((await failure(client.callTool("batched", {}, { validateOutput: false }))).reason).toBe("PROTOCOL");
  });
});
