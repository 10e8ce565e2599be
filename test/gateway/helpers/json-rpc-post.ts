/**
 * One JSON-RPC POST to the gateway and its answer, read whole, over an agent the caller gives
 * (a keep-alive agent for load, none for a connection of its own): the status, the headers, and
 * the JSON-RPC message, whether it came as JSON or as the last event of an SSE stream.
 */
import http from "node:http";

export interface PostAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The JSON-RPC message answered, or undefined for a body that holds none (a 202, a plain 503). */
  message: Record<string, unknown> | undefined;
}

export interface Post {
  port: number;
  headers: Record<string, string>;
  body: string;
  agent?: http.Agent | false;
  /** Aborting it destroys the request: the caller went away. */
  signal?: AbortSignal;
}

export function post(request: Post): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: "127.0.0.1",
        port: request.port,
        method: "POST",
        path: "/mcp",
        headers: { host: `127.0.0.1:${request.port}`, ...request.headers },
        agent: request.agent ?? false,
        signal: request.signal,
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, message: messageOf(String(response.headers["content-type"] ?? ""), text) }));
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(request.body);
  });
}

function messageOf(contentType: string, text: string): Record<string, unknown> | undefined {
  if (contentType.startsWith("text/event-stream")) {
    // The answer ends the stream: it is the last event's data.
    const data = text
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trim());
    const last = data.at(-1);
    return last === undefined ? undefined : (JSON.parse(last) as Record<string, unknown>);
  }
  if (!contentType.startsWith("application/json") || text === "") return undefined;
  return JSON.parse(text) as Record<string, unknown>;
}
