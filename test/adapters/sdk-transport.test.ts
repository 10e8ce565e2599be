/**
 * `mcpwire/sdk`: the official SDK's own `Client`, unchanged, over mcpwire transports wrapped as
 * its `Transport`: in memory, over stdio (a real child process) and over Streamable HTTP (a real
 * server on 127.0.0.1), against the contract server built with the same SDK.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  LATEST_PROTOCOL_VERSION,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import {
  McpTransportError,
  MemoryTransport,
  StdioTransport,
  createMemoryPair,
  StreamableHttpTransport,
  type ConnectionEvents,
  type McpConnection,
  type McpTransport,
  type OpenOptions,
  type RequestId,
} from "../../src/index.js";
import { SDK_REQUEST_TIMEOUT_CODE, SdkTransport } from "../../src/sdk.js";
import { createContractServer } from "../fixtures/contract-server.js";

// Compile-time proof that the wrapper is the SDK's Transport, as the SDK's Client takes it.
const _isSdkTransport: (transport: SdkTransport) => Transport = (transport) => transport;

/** A real in-memory transport, seen from the outside: what the wrapper tells the connection. */
class WatchedTransport implements McpTransport {
  readonly kind = "memory";
  readonly description = "memory: watched contract server";
  readonly protocolVersions: string[] = [];
  readonly abandoned: RequestId[] = [];
  private readonly inner = new MemoryTransport(createContractServer({ crash: () => void this.server?.close() }));
  private server: { close(): Promise<void> } | undefined;

  async open(events: ConnectionEvents, options: OpenOptions): Promise<McpConnection> {
    const connection = await this.inner.open(events, options);
    return {
      send: (message) => connection.send(message),
      abandon: (id) => {
        this.abandoned.push(id);
        connection.abandon(id);
      },
      close: () => connection.close(),
      setProtocolVersion: (version) => {
        this.protocolVersions.push(version);
        connection.setProtocolVersion?.(version);
      },
    };
  }
}

function contractServerTransport(): MemoryTransport {
  const server = createContractServer({ crash: () => void server.close() });
  return new MemoryTransport(server, "contract server");
}

const clients: Client[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The official SDK's Client, with a roots handler, connected over `transport`. */
async function sdkClient(transport: SdkTransport): Promise<Client> {
  const client = new Client({ name: "sdk-over-mcpwire", version: "1.0.0" }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///work", name: "work" }] }));
  clients.push(client);
  await client.connect(transport);
  return client;
}

/** What the SDK's Transport callbacks saw, wrapped around the ones the Client installs. */
function watchCallbacks(transport: SdkTransport): { errors: Error[]; closes: () => number } {
  const errors: Error[] = [];
  let closes = 0;
  const onerror = transport.onerror;
  const onclose = transport.onclose;
  transport.onerror = (error) => {
    errors.push(error);
    onerror?.(error);
  };
  transport.onclose = () => {
    closes++;
    onclose?.();
  };
  return { errors, closes: () => closes };
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0]!).text;
}

describe("mcpwire/sdk: the official SDK's Client over an mcpwire transport", () => {
  it("runs the handshake, lists and calls tools, and answers server-to-client requests", async () => {
    const client = await sdkClient(new SdkTransport(contractServerTransport()));
    expect(client.getServerVersion()).toMatchObject({ name: "contract-server" });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("echo");
    expect(textOf(await client.callTool({ name: "echo", arguments: { text: "hello" } }))).toBe("hello");
    expect(JSON.parse(textOf(await client.callTool({ name: "ask_roots", arguments: {} })))).toEqual([{ uri: "file:///work", name: "work" }]);
  });

  it("hands the negotiated protocol version to the connection", async () => {
    const watched = new WatchedTransport();
    const client = await sdkClient(new SdkTransport(watched));
    expect(client.getServerVersion()).toBeDefined();
    expect(watched.protocolVersions).toEqual([LATEST_PROTOCOL_VERSION]);
  });

  it("fails a request the wire gave up on at once, with a JSON-RPC error naming the reason, and stays usable", async () => {
    const transport = new SdkTransport(contractServerTransport(), { limits: { readTimeoutMs: 300 } });
    const client = await sdkClient(transport);
    const seen = watchCallbacks(transport);
    // The SDK's own timeout is a minute: only the wire's read-stall ceiling can end this call early.
    const error = await client.callTool({ name: "silent", arguments: {} }, undefined, { timeout: 60_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: SDK_REQUEST_TIMEOUT_CODE, data: { reason: "TIMEOUT", retryable: true } });
    expect(seen.errors).toHaveLength(1);
    expect(seen.errors[0]).toBeInstanceOf(McpTransportError);
    expect(seen.closes()).toBe(0);
    expect(textOf(await client.callTool({ name: "echo", arguments: { text: "still here" } }))).toBe("still here");
  });

  it("reports a connection that ended with an error: onerror, then onclose once, and pending calls fail", async () => {
    const transport = new SdkTransport(contractServerTransport());
    const client = await sdkClient(transport);
    const seen = watchCallbacks(transport);
    await expect(client.callTool({ name: "crash", arguments: {} })).rejects.toThrow();
    await expect.poll(() => seen.closes(), { timeout: 15_000 }).toBe(1);
    expect(seen.errors.map((error) => (error as McpTransportError).reason)).toEqual(["DISCONNECTED"]);
    await expect(transport.send({ jsonrpc: "2.0", method: "notifications/initialized" })).rejects.toMatchObject({ reason: "DISCONNECTED" });
    await transport.close();
    expect(seen.closes()).toBe(1);
  });

  it("keeps the byte ceiling: an answer past maxMessageBytes ends the connection with LIMIT", async () => {
    const transport = new SdkTransport(contractServerTransport(), { limits: { maxMessageBytes: 4_096 } });
    const client = await sdkClient(transport);
    const seen = watchCallbacks(transport);
    await expect(client.callTool({ name: "blob", arguments: { bytes: 10_000 } })).rejects.toThrow();
    await expect.poll(() => seen.closes(), { timeout: 15_000 }).toBe(1);
    expect(seen.errors.map((error) => (error as McpTransportError).reason)).toEqual(["LIMIT"]);
  });

  it("tells the wire to stop waiting for a request the SDK cancelled", async () => {
    const watched = new WatchedTransport();
    const client = await sdkClient(new SdkTransport(watched));
    const controller = new AbortController();
    const call = client.callTool({ name: "sleep", arguments: { ms: 60_000 } }, undefined, { signal: controller.signal });
    // However late this fires, the call is still waiting: the tool sleeps a minute.
    setTimeout(() => controller.abort(), 50);
    await expect(call).rejects.toThrow();
    await expect.poll(() => watched.abandoned, { timeout: 15_000 }).toHaveLength(1);
    expect(typeof watched.abandoned[0]).toBe("number");
  });

  it("closes once however often close() is called, and starts only once", async () => {
    const transport = new SdkTransport(contractServerTransport());
    await sdkClient(transport);
    const seen = watchCallbacks(transport);
    await Promise.all([transport.close(), transport.close()]);
    await transport.close();
    expect(seen.closes()).toBe(1);
    await expect(transport.start()).rejects.toThrow("already closed");
  });

  it("refuses to send before start(), and reports a close before start() once", async () => {
    const transport = new SdkTransport(contractServerTransport());
    await expect(transport.send({ jsonrpc: "2.0", id: 1, method: "ping" })).rejects.toMatchObject({ reason: "DISCONNECTED" });
    let closes = 0;
    transport.onclose = () => closes++;
    await transport.close();
    await transport.close();
    expect(closes).toBe(1);
  });

  it("refuses an option nobody reads, naming it, instead of dropping it", () => {
    const inner = contractServerTransport();
    // A ceiling given beside limits, not in it, would leave the 16 MiB default in force.
    expect(() => new SdkTransport(inner, { maxMessageBytes: 1_000 } as never)).toThrow(
      'SdkTransport: unknown option "maxMessageBytes"; the options are limits, signal (ceilings go in options.limits)',
    );
    expect(() => new SdkTransport(inner, { limit: {} } as never)).toThrow('unknown option "limit" (did you mean "limits"?)');
    expect(() => new SdkTransport(inner, { limits: { maxMessageByte: 1_000 } } as never)).toThrow(
      'SdkTransport: options.limits has an unknown ceiling "maxMessageByte" (did you mean "maxMessageBytes"?)',
    );
    expect(() => new SdkTransport(inner, { limits: { maxMessageBytes: 1_000, readTimeoutMs: 5_000 }, signal: AbortSignal.timeout(60_000) })).not.toThrow();
  });

  it("refuses what is not an mcpwire transport, and a signal that is not an AbortSignal, at construction", async () => {
    expect(() => new SdkTransport(null as never)).toThrow(
      new TypeError("SdkTransport: expected an mcpwire transport (new StdioTransport(...), transportFor(config), ...), got null"),
    );
    expect(() => new SdkTransport("http://localhost:8000/mcp" as never)).toThrow('SdkTransport: expected an mcpwire transport');
    // The official SDK's own transport, given by mistake: it has start() and send(), not open().
    const sdkOwn = { start: async () => {}, send: async () => {}, close: async () => {} };
    expect(() => new SdkTransport(sdkOwn as never)).toThrow("this looks like an SDK transport, which the SDK's Client takes as it is");
    expect(() => new SdkTransport(contractServerTransport(), { signal: "stop" } as never)).toThrow(
      new TypeError('SdkTransport options: "signal" must be an AbortSignal (AbortController\'s signal, AbortSignal.timeout()), got "stop"'),
    );
  });

  it("fails start() with the transport's own error when the server cannot start", async () => {
    const transport = new SdkTransport(
      new MemoryTransport({
        connect: async () => {
          throw new Error("no server here");
        },
      }),
    );
    const client = new Client({ name: "sdk", version: "1.0.0" });
    await expect(client.connect(transport)).rejects.toMatchObject({ reason: "UNAVAILABLE" });
  });
});

/**
 * A server of `revision` that answers `tools/call` with a JSON-RPC batch: a log notification,
 * then the answer. 2025-03-26, basic, "Batching": "MCP implementations MAY support sending
 * JSON-RPC batches, but MUST support receiving JSON-RPC batches"; 2025-06-18 removed batches.
 */
function batchingServer(revision: string): SdkTransport {
  const { transport, server } = createMemoryPair();
  server.onmessage = (message) => {
    const { id, method } = message as { id?: RequestId; method?: string };
    if (id === undefined || method === undefined) return;
    // What the server end sends in one `send` is one message: the array is a batch.
    if (method === "tools/call") {
      void server.send([
        { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "in the batch" } },
        { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "answered in the batch" }] } },
      ]);
      return;
    }
    const result =
      method === "initialize"
        ? { protocolVersion: revision, capabilities: { tools: {}, logging: {} }, serverInfo: { name: "batching", version: "1.0.0" } }
        : {};
    void server.send({ jsonrpc: "2.0", id, result });
  };
  return new SdkTransport(transport);
}

describe("mcpwire/sdk follows the negotiated revision's wire rules", () => {
  it("reads a JSON-RPC batch from a server that negotiated 2025-03-26, each message in order", async () => {
    const client = await sdkClient(batchingServer("2025-03-26"));
    expect(client.getServerVersion()).toMatchObject({ name: "batching" });
    const seen: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void seen.push(notification.params.data));
    expect(textOf(await client.callTool({ name: "batched", arguments: {} }))).toBe("answered in the batch");
    expect(seen).toEqual(["in the batch"]);
  });

  it("still refuses a batch under a revision without batches (2025-06-18): the call fails, PROTOCOL reported", async () => {
    const transport = batchingServer("2025-06-18");
    const client = await sdkClient(transport);
    const seen = watchCallbacks(transport);
    await expect(client.callTool({ name: "batched", arguments: {} }, undefined, { timeout: 60_000 })).rejects.toThrow();
    expect(seen.errors[0]).toMatchObject({ reason: "PROTOCOL" });
  });
});

describe("mcpwire/sdk over real wires", () => {
  it("runs the SDK's Client over mcpwire's stdio transport against a real child process", async () => {
    const stdio = new StdioTransport({
      command: process.execPath,
      args: ["--import", "tsx", "test/fixtures/contract-server-stdio.ts"],
      stdinCloseGraceMs: 2_000,
      terminateGraceMs: 2_000,
    });
    const transport = new SdkTransport(stdio);
    const client = await sdkClient(transport);
    const pid = stdio.pid;
    expect(pid).toBeTypeOf("number");
    expect(textOf(await client.callTool({ name: "echo", arguments: { text: "over stdio" } }))).toBe("over stdio");
    expect(JSON.parse(textOf(await client.callTool({ name: "ask_roots", arguments: {} })))).toEqual([{ uri: "file:///work", name: "work" }]);
    await client.close();
    // close() resolved: the child is gone, not orphaned.
    expect(isRunning(pid!)).toBe(false);
  });

  it("close() during start() stops the opening: start() rejects, onclose is told once, no child is left", async () => {
    const stdio = new StdioTransport({ command: process.execPath, args: ["--import", "tsx", "test/fixtures/contract-server-stdio.ts"] });
    const transport = new SdkTransport(stdio);
    let closes = 0;
    transport.onclose = () => closes++;
    const starting = transport.start();
    await transport.close();
    await expect(starting).rejects.toBeDefined();
    expect(closes).toBe(1);
    const pid = stdio.pid;
    if (pid !== undefined) expect(isRunning(pid)).toBe(false);
  });

  it("reports a child that dies mid-call: the call fails, onerror carries its exit code", async () => {
    const transport = new SdkTransport(
      new StdioTransport({ command: process.execPath, args: ["--import", "tsx", "test/fixtures/contract-server-stdio.ts"] }),
    );
    const client = await sdkClient(transport);
    const seen = watchCallbacks(transport);
    await expect(client.callTool({ name: "crash", arguments: {} })).rejects.toThrow();
    await expect.poll(() => seen.closes(), { timeout: 15_000 }).toBe(1);
    expect(seen.errors[0]).toMatchObject({ reason: "DISCONNECTED", exitCode: 3 });
  });

  it("runs the SDK's Client over mcpwire's Streamable HTTP transport against a real HTTP server", async () => {
    const server = await startHttpServer();
    const transport = new SdkTransport(new StreamableHttpTransport(server.url));
    const client = await sdkClient(transport);
    expect(transport.sessionId).toBeTypeOf("string");
    expect(server.sessionIds()).toEqual([transport.sessionId]);
    expect(textOf(await client.callTool({ name: "echo", arguments: { text: "over http" } }))).toBe("over http");
    expect(JSON.parse(textOf(await client.callTool({ name: "ask_roots", arguments: {} })))).toEqual([{ uri: "file:///work", name: "work" }]);
    // The negotiated version, handed over by the SDK after initialize, travels as a header.
    expect(server.protocolVersionHeaders().at(-1)).toBe(LATEST_PROTOCOL_VERSION);
  });

  it("fails one request the server refused over HTTP at once, and the connection stays usable", async () => {
    const server = await startHttpServer();
    const transport = new SdkTransport(new StreamableHttpTransport(server.url));
    const client = await sdkClient(transport);
    const seen = watchCallbacks(transport);
    // The refusal comes back on the request's own POST: the SDK's call fails with mcpwire's error.
    const error = await client.callTool({ name: "refused_with_503", arguments: {} }, undefined, { timeout: 60_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpTransportError);
    expect(error).toMatchObject({ reason: "UNAVAILABLE", httpStatus: 503 });
    expect((error as Error).message).not.toContain("BODY-FROM-THE-SERVER");
    expect(seen.closes()).toBe(0);
    expect(textOf(await client.callTool({ name: "echo", arguments: { text: "still here" } }))).toBe("still here");
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A Streamable HTTP server on 127.0.0.1 (the SDK's own server side), one contract server per
 * session. A call of the tool `refused_with_503` is answered 503, as an overloaded proxy would.
 */
async function startHttpServer(): Promise<{ url: string; sessionIds(): string[]; protocolVersionHeaders(): (string | undefined)[] }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const versions: (string | undefined)[] = [];
  const http: Server = createServer((req: IncomingMessage, res) => {
    void (async () => {
      versions.push(req.headers["mcp-protocol-version"] as string | undefined);
      const body = req.method === "POST" ? await readJson(req) : undefined;
      if ((body as { params?: { name?: string } } | undefined)?.params?.name === "refused_with_503") {
        res.writeHead(503, { "content-type": "text/plain" }).end("BODY-FROM-THE-SERVER");
        return;
      }
      const sessionId = req.headers["mcp-session-id"] as string | undefined;
      let transport = sessionId ? sessions.get(sessionId) : undefined;
      if (!transport) {
        if (sessionId) {
          res.writeHead(404).end();
          return;
        }
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, created),
        });
        await createContractServer({ crash: () => void created.close() }).connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    await Promise.allSettled([...sessions.values()].map((transport) => transport.close()));
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sessionIds: () => [...sessions.keys()],
    protocolVersionHeaders: () => versions,
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}
