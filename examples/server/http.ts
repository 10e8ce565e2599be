/**
 * The handbook server over Streamable HTTP on 127.0.0.1, with the official SDK's stateful
 * server transport (one session per client). The demo starts it on a free port; run it alone
 * with `node --import tsx examples/server/http.ts [port]`.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { createHandbookServer } from "./handbook-server.js";

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

export async function startHandbookHttpServer(port = 0): Promise<RunningServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const server = http.createServer(async (req, res) => {
    if (req.url !== "/mcp") return void res.writeHead(404).end();
    const sessionId = req.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
    if (existing) return existing.handleRequest(req, res);
    if (req.method !== "POST") return void res.writeHead(typeof sessionId === "string" ? 404 : 400).end();

    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return void res.writeHead(400).end();
    }
    if (typeof sessionId === "string" || !isInitializeRequest(body)) {
      // A session this server does not know (404), or a first request that is not initialize (400).
      return void res.writeHead(typeof sessionId === "string" ? 404 : 400, { "content-type": "application/json" }).end(
        JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "No valid session" } }),
      );
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await createHandbookServer().connect(transport);
    await transport.handleRequest(req, res, body);
  });

  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((transport) => transport.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const running = await startHandbookHttpServer(Number(process.argv[2] ?? 0));
  console.log(`handbook server listening at ${running.url}`);
}
