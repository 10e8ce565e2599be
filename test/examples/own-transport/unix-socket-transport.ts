// MCP over a Unix domain socket, one JSON-RPC message per line: a transport written with
// mcpwire's public API only, registered so that declarations and config files can name it.
import { createConnection, type Socket } from "node:net";
import { isAbsolute } from "node:path";
import {
  McpTransportError,
  ReadStallWatch,
  checkOutgoingSize,
  messageTooLarge,
  parseMessage,
  type ConnectionEvents,
  type Limits,
  type McpConnection,
  type McpTransport,
  type OpenOptions,
  type TransportFactory,
} from "../../../src/index.js";

export class UnixSocketTransport implements McpTransport {
  readonly kind = "unix-socket";
  readonly description: string;

  constructor(readonly path: string) {
    this.description = `unix-socket: ${path}`;
  }

  async open(events: ConnectionEvents, { limits, signal }: OpenOptions): Promise<McpConnection> {
    signal?.throwIfAborted();
    const socket = createConnection(this.path);
    const onAbort = () => socket.destroy(signal!.reason as Error);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    } catch (cause) {
      if (signal?.aborted) throw signal.reason;
      throw new McpTransportError("UNAVAILABLE", `nothing answers on ${this.description}`, { cause });
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
    return connectionOver(socket, events, limits, this.description);
  }
}

function connectionOver(socket: Socket, events: ConnectionEvents, limits: Limits, peer: string): McpConnection {
  const stall = new ReadStallWatch(limits.readTimeoutMs, peer, (id, error) => events.requestFailed(id, error));
  const released = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  let closing = false;
  let ended = false;
  const end = (error?: McpTransportError) => {
    if (ended) return;
    ended = true;
    stall.stop();
    socket.destroy();
    events.closed(error ? { error } : {});
  };
  // The line being read, and its size in bytes: past maxMessageBytes the connection ends at once.
  let line = "";
  let lineBytes = 0;
  const tooLarge = () => end(messageTooLarge(limits.maxMessageBytes, "received", "unix-socket"));
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    stall.activity();
    let start = 0;
    for (let newline = chunk.indexOf("\n"); newline >= 0 && !ended; newline = chunk.indexOf("\n", start)) {
      const piece = chunk.slice(start, newline);
      const text = line + piece;
      if (lineBytes + Buffer.byteLength(piece) > limits.maxMessageBytes) return tooLarge();
      [line, lineBytes, start] = ["", 0, newline + 1];
      try {
        const message = parseMessage(text);
        stall.received(message);
        events.message(message);
      } catch (error) {
        return end(error as McpTransportError);
      }
    }
    line += chunk.slice(start);
    lineBytes += Buffer.byteLength(chunk.slice(start));
    if (lineBytes > limits.maxMessageBytes) tooLarge();
  });
  socket.on("error", (cause) => end(new McpTransportError("DISCONNECTED", `the socket to ${peer} failed`, { cause })));
  socket.on("close", () => end(closing ? undefined : new McpTransportError("DISCONNECTED", `${peer} closed the connection`)));
  return {
    async send(message, context) {
      if (ended) throw new McpTransportError("DISCONNECTED", `the connection to ${peer} is closed`);
      const text = JSON.stringify(message);
      checkOutgoingSize(text, limits.maxMessageBytes, "unix-socket");
      stall.sent(message, context?.longLived);
      await new Promise<void>((resolve, reject) =>
        socket.write(`${text}\n`, (cause) => (cause ? reject(new McpTransportError("DISCONNECTED", `cannot write to ${peer}`, { cause })) : resolve())),
      );
    },
    abandon: (id) => stall.forget(id),
    close() {
      closing = true;
      end();
      return released;
    },
  };
}

/** The declaration's own key: `{ "transport": "unix-socket", "path": "/run/handbook.sock" }`. */
export interface UnixSocketKeys {
  path: string;
}

export const unixSocketFactory: TransportFactory<UnixSocketKeys> = {
  keys: ["path"],
  parse({ path }, { fail }) {
    if (typeof path === "string" && isAbsolute(path)) return { path };
    return fail(`"path" must be the absolute path of a Unix socket, got ${JSON.stringify(path)}`);
  },
  create: ({ path }) => new UnixSocketTransport(path),
};
