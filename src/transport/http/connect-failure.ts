/**
 * Telling a failed connection from a lost one, under undici.
 *
 * undici rejects a request with the socket's own error either way (ECONNRESET may mean "never
 * connected" or "lost mid-request"), but the transports must know which: a request that never
 * reached the server may be sent again (UNAVAILABLE), one that did may not (DISCONNECTED). So
 * the connector, which alone sees the connection being made, marks each error it reports, and
 * the HTTP client asks whether an error (or one of its causes) carries the mark.
 */
import type { buildConnector } from "undici";

type Connector = buildConnector.connector;

const connectFailures = new WeakSet<object>();

/** The same connector, marking each error it reports as a connection that could not be made. */
export function markingConnectFailures(connector: Connector): Connector {
  return (options, callback) =>
    connector(options, (error, socket) => {
      if (error) {
        connectFailures.add(error);
        callback(error, null);
      } else callback(null, socket!);
    });
}

/** Marks an error as a connection that could not be made (a proxy's refusal of a tunnel is one). */
export function markConnectFailure<E extends object>(error: E): E {
  connectFailures.add(error);
  return error;
}

/** Whether the error, or one of its first causes, came from making the connection. */
export function isConnectFailure(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; typeof current === "object" && current !== null && depth < 4; depth++) {
    if (connectFailures.has(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
