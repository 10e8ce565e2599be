// The benchmark server: no framework, the same for every client, so only the client differs.
// It answers initialize, tools/list and tools/call for `echo` (returns its text), `blob` (returns
// a text of N bytes) and `sink` (returns the length of the text it was sent).
//
//   node bench/servers/minimal-server.mjs stdio
//   node bench/servers/minimal-server.mjs http-json <port>   (JSON replies)
//   node bench/servers/minimal-server.mjs http-sse <port>    (SSE replies)
import { createServer } from "node:http";
import { onLines } from "./line-reader.mjs";

const TOOLS = [
  { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
  { name: "blob", inputSchema: { type: "object", properties: { bytes: { type: "integer" } } } },
  { name: "sink", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
];

function answer(message) {
  if (message.id === undefined) return undefined; // notifications get no answer
  const { method, params } = message;
  let result;
  if (method === "initialize") {
    result = {
      protocolVersion: params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "bench-server", version: "1.0.0" },
    };
  } else if (method === "tools/list") {
    result = { tools: TOOLS };
  } else if (method === "tools/call") {
    const args = params.arguments ?? {};
    const text =
      params.name === "echo" ? String(args.text) : params.name === "blob" ? "x".repeat(args.bytes) : String(String(args.text).length);
    result = { content: [{ type: "text", text }] };
  } else if (method === "ping") {
    result = {};
  } else {
    return { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } };
  }
  return { jsonrpc: "2.0", id: message.id, result };
}

const mode = process.argv[2];

if (mode === "stdio") {
  onLines(process.stdin, (line) => {
    const reply = answer(JSON.parse(line));
    if (reply) process.stdout.write(JSON.stringify(reply) + "\n");
  });
  process.stdin.on("end", () => process.exit(0));
} else if (mode === "http-json" || mode === "http-sse") {
  const sse = mode === "http-sse";
  const server = createServer((req, res) => {
    if (req.method === "DELETE") return res.writeHead(200).end();
    if (req.method !== "POST") return res.writeHead(405).end();
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const reply = answer(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      if (!reply) return res.writeHead(202).end();
      const body = JSON.stringify(reply);
      if (sse) {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.end(`event: message\ndata: ${body}\n\n`);
      } else {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        res.end(body);
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(process.argv[3] ?? 0), "127.0.0.1", () => {
    process.stdout.write(`listening ${server.address().port}\n`);
  });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
} else {
  process.stderr.write("usage: minimal-server.mjs stdio | http-json <port> | http-sse <port>\n");
  process.exit(2);
}
