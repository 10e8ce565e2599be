// The floor: a bare client with no framework. Newline JSON-RPC on a pipe for stdio; node:http with
// a keep-alive agent for HTTP (JSON or a minimal SSE read). What any client must at least spend.
// floor-undici.mjs is the second floor: the same, with undici's request() for HTTP.
import { spawn } from "node:child_process";
import http from "node:http";
import { onLines } from "../servers/line-reader.mjs";

export async function load() {
  return { connect: (target) => (target.command ? stdio(target) : httpClient(target.url)) };
}

export function stdio({ command, args }) {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
  const pending = new Map();
  let nextId = 1;
  onLines(child.stdout, (line) => {
    const message = JSON.parse(line);
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  return handshake(request, (message) => child.stdin.write(JSON.stringify(message) + "\n"), async () => {
    child.stdin.end();
    await new Promise((resolve) => child.on("exit", resolve));
  });
}

function httpClient(url) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const endpoint = new URL(url);
  let nextId = 1;
  const post = (message) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(message);
      const req = http.request(
        {
          host: endpoint.hostname,
          port: endpoint.port,
          path: endpoint.pathname,
          method: "POST",
          agent,
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          const chunks = [];
          res.on("data", (chunk) => chunks.push(chunk));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            if (res.statusCode === 202) return resolve(undefined);
            if (res.headers["content-type"].startsWith("text/event-stream")) {
              const data = text.split("\n").find((line) => line.startsWith("data: "));
              return resolve(JSON.parse(data.slice(6)));
            }
            resolve(JSON.parse(text));
          });
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  const request = (method, params) => post({ jsonrpc: "2.0", id: nextId++, method, params });
  return handshake(request, post, async () => agent.destroy());
}

export async function handshake(request, notify, close) {
  await request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "floor", version: "1" } });
  await notify({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    listTools: async () => (await request("tools/list", {})).result.tools,
    call: async (name, args) => {
      const reply = await request("tools/call", { name, arguments: args });
      if (reply.error) throw new Error(`error ${reply.error.code}`);
      return reply.result;
    },
    close,
  };
}
