/**
 * The bridge's side toward the remote: one connection of the remote's transport at a time,
 * opened when the first message needs it and opened again after it ended (the remote restarted,
 * the network came back), so that a remote that went away fails the calls in flight, and the
 * next call works once it is back.
 *
 * Each connection's events come tagged with that connection, so that the bridge fails only the
 * requests sent on the one that ended.
 */
import { McpTransportError } from "../../errors.js";
import type { JsonRpcMessage, RequestId } from "../../protocol/jsonrpc.js";
import type { Limits } from "../../transport/limits.js";
import type { ConnectionEnding, McpConnection, McpTransport } from "../../transport/transport.js";

export interface RemoteLinkEvents {
  message(message: JsonRpcMessage, connection: McpConnection): void;
  requestFailed(id: RequestId, error: McpTransportError, connection: McpConnection): void;
  /** A connection ended by itself (never after `close()`): the requests sent on it are lost. */
  ended(connection: McpConnection, error: McpTransportError): void;
}

export class RemoteLink {
  private current: McpConnection | undefined;
  private opening: Promise<McpConnection> | undefined;
  private closed = false;
  private readonly stopOpening = new AbortController();

  constructor(
    private readonly transport: McpTransport,
    private readonly limits: Limits,
    private readonly events: RemoteLinkEvents,
  ) {}

  /** Says which remote this is, for messages: scheme, host and path. */
  get description(): string {
    return this.transport.description;
  }

  /** The open connection, opening one if there is none; rejects with UNAVAILABLE when the remote cannot be reached. */
  connection(): Promise<McpConnection> {
    if (this.closed) return Promise.reject(new McpTransportError("DISCONNECTED", "the bridge is closing"));
    if (this.current) return Promise.resolve(this.current);
    this.opening ??= this.open().finally(() => (this.opening = undefined));
    return this.opening;
  }

  /** Ends the open connection (a legacy HTTP session gets its DELETE); resolves once it is released. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopOpening.abort(new McpTransportError("DISCONNECTED", "the bridge is closing"));
    const opening = this.opening?.catch(() => undefined);
    await opening;
    const connection = this.current;
    this.current = undefined;
    await connection?.close();
  }

  private async open(): Promise<McpConnection> {
    let connection: McpConnection | undefined;
    let endedEarly: McpTransportError | undefined;
    const mine = () => connection !== undefined && this.current === connection;
    connection = await this.transport.open(
      {
        message: (message) => {
          if (connection && mine()) this.events.message(message, connection);
        },
        requestFailed: (id, error) => {
          if (connection && mine()) this.events.requestFailed(id, error, connection);
        },
        closed: (ending: ConnectionEnding) => {
          const error = ending.error ?? new McpTransportError("DISCONNECTED", "the connection to the remote server ended");
          if (!connection) {
            endedEarly = error;
            return;
          }
          if (!mine()) return;
          this.current = undefined;
          if (ending.error) this.events.ended(connection, error);
        },
      },
      { limits: this.limits, signal: this.stopOpening.signal },
    );
    if (endedEarly || this.closed) {
      await connection.close();
      throw endedEarly ?? new McpTransportError("DISCONNECTED", "the bridge is closing");
    }
    this.current = connection;
    return connection;
  }
}
