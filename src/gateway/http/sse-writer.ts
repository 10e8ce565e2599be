/**
 * One Server-Sent Events stream toward a caller: the response head (`text/event-stream`, no
 * caching, `X-Accel-Buffering: no` so that a proxy such as nginx passes each event at once), and
 * each JSON-RPC message as one `message` event, with an id where the stream can be resumed.
 * A caller that stops reading is not buffered for without end: past `MAX_UNREAD_BYTES` waiting in
 * the socket, its stream is destroyed, as if it had gone away.
 */
import type { OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { JsonRpcMessage } from "../../protocol/jsonrpc.js";

/** Bytes written toward a caller and not yet taken by it, past which its stream is dropped. */
export const MAX_UNREAD_BYTES = 8 * 1024 * 1024;

export class SseWriter {
  constructor(private readonly response: ServerResponse) {}

  /** Sends the head; `headers` are added to the SSE ones (a session id, CORS). */
  open(status: number, headers: OutgoingHttpHeaders): void {
    this.response.writeHead(status, {
      ...headers,
      "Content-Type": "text/event-stream",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    });
    // The head goes out now, so the caller knows the stream is open before the first event.
    this.response.flushHeaders();
  }

  /** One message as an event; false when the caller is gone or was too slow and was dropped. */
  send(message: JsonRpcMessage, id?: string): boolean {
    return this.write(`${id === undefined ? "" : `id: ${id}\n`}event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** An event with an id and no data: primes a caller to resume from there. */
  prime(id: string): boolean {
    return this.write(`id: ${id}\ndata: \n\n`);
  }

  /** A comment line, which callers ignore: keeps quiet streams open through intermediaries. */
  keepAlive(): boolean {
    return this.write(":\n\n");
  }

  get closed(): boolean {
    return this.response.destroyed || this.response.writableEnded;
  }

  end(): void {
    if (!this.closed) this.response.end();
  }

  private write(text: string): boolean {
    if (this.closed) return false;
    if (this.response.writableLength > MAX_UNREAD_BYTES) {
      this.response.destroy();
      return false;
    }
    this.response.write(text);
    return true;
  }
}
