/**
 * One HTTP exchange with full control of what is sent (a `Host` of our choosing, which fetch does
 * not allow, a body cut short, headers a browser would send), and the answer as it came.
 */
import http from "node:http";

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json(): unknown;
}

export interface RawRequest {
  port: number;
  method?: string;
  path?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
}

export function rawRequest(request: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: "127.0.0.1",
        port: request.port,
        method: request.method ?? "POST",
        path: request.path ?? "/mcp",
        headers: { host: `127.0.0.1:${request.port}`, ...request.headers },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json: () => JSON.parse(text) });
        });
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(request.body);
  });
}

/** The headers of a legacy JSON-RPC POST. */
export const JSON_POST = { "content-type": "application/json", accept: "application/json, text/event-stream" };

export function initializeBody(id: number | string = 1): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1.0.0" } },
  });
}
