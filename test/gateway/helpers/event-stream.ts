/** A session's GET stream read event by event: each event's id and its message. */
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
  close(): void;
}

export function openEventStream(port: number, headers: Record<string, string>): Promise<OpenedStream> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: "127.0.0.1", port, path: "/mcp", agent: false, headers: { host: `127.0.0.1:${port}`, accept: "text/event-stream", ...headers } }, (response) => {
      const events: StreamEvent[] = [];
      let buffer = "";
      const ended = new Promise<void>((done) => {
        response.once("end", () => done());
        response.once("close", () => done());
      });
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
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
      resolve({ status: response.statusCode ?? 0, headers: response.headers, events, ended, close: () => request.destroy() });
    });
    request.on("error", reject);
  });
}
