/**
 * An SSE stream read event by event, each event's id and its data: a session's GET stream (or a
 * request's stream resumed by GET), or the reply stream of a POSTed request. `close()` destroys
 * the connection mid-stream, as a caller whose network drops.
 */
import http from "node:http";

export interface StreamEvent {
  id?: string;
  data: string;
}

export interface OpenedStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The events received so far. */
  events: StreamEvent[];
  /** Resolves once the stream ended. */
  ended: Promise<void>;
  /** The body as it came, for an answer that is not a stream (a refusal). */
  text(): string;
  close(): void;
}

export function openEventStream(port: number, headers: Record<string, string>): Promise<OpenedStream> {
  return openStream(port, "GET", { accept: "text/event-stream", ...headers });
}

/** A POST whose reply is read as it comes (an SSE stream, or the JSON answer in `text()`). */
export function postEventStream(port: number, headers: Record<string, string>, body: string): Promise<OpenedStream> {
  return openStream(port, "POST", { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body);
}

function openStream(port: number, method: string, headers: Record<string, string>, body?: string): Promise<OpenedStream> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: "127.0.0.1", port, method, path: "/mcp", agent: false, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (response) => {
        const events: StreamEvent[] = [];
        let buffer = "";
        let whole = "";
        const ended = new Promise<void>((done) => {
          response.once("end", () => done());
          response.once("close", () => done());
        });
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          whole += chunk;
          buffer += chunk;
          let cut: number;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const event: StreamEvent = { data: "" };
            for (const line of block.split("\n")) {
              if (line.startsWith("id: ")) event.id = line.slice(4);
              else if (line.startsWith("data: ")) event.data += line.slice(6);
            }
            if (event.data !== "" || event.id !== undefined) events.push(event);
          }
        });
        response.on("error", () => {});
        resolve({ status: response.statusCode ?? 0, headers: response.headers, events, ended, text: () => whole, close: () => request.destroy() });
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}
