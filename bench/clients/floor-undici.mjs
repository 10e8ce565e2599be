// The second floor: the same bare client as floor.mjs, with undici's request() on a keep-alive
// Pool for HTTP instead of node:http (stdio is the same pipe). The engine mcpwire's HTTP
// transports run on, without anything above it.
import { handshake, stdio } from "./floor.mjs";

export async function load() {
  const { Pool } = await import("undici");
  return { connect: (target) => (target.command ? stdio(target) : httpClient(Pool, target.url)) };
}

function httpClient(Pool, url) {
  const endpoint = new URL(url);
  const pool = new Pool(endpoint.origin, { connections: 64 });
  let nextId = 1;
  const post = async (message) => {
    const { statusCode, headers, body } = await pool.request({
      path: endpoint.pathname,
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(message),
    });
    const text = await body.text();
    if (statusCode === 202) return undefined;
    if (headers["content-type"].startsWith("text/event-stream")) {
      const data = text.split("\n").find((line) => line.startsWith("data: "));
      return JSON.parse(data.slice(6));
    }
    return JSON.parse(text);
  };
  const request = (method, params) => post({ jsonrpc: "2.0", id: nextId++, method, params });
  return handshake(request, post, async () => pool.destroy());
}
