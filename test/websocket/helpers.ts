/** Helpers for the WebSocket transport's own tests: a raw connection with its events recorded. */
import { afterEach } from "vitest";
import type { McpTransportError } from "../../src/index.js";
import {
  McpClient,
  DEFAULT_LIMITS,
  type ClientOptions,
  type ConnectionEnding,
  type JsonRpcMessage,
  type Limits,
  type McpConnection,
  type McpTransport,
  type RequestId,
  type WebSocketTransport,
} from "../../src/index.js";
import { startWsFixture, type WsFixture, type WsFixtureOptions } from "../fixtures/ws-server.js";
export { failure, rejection } from "../helpers/failure.js";

export interface RawConnection {
  connection: McpConnection;
  messages: JsonRpcMessage[];
  failedRequests: { id: RequestId; error: McpTransportError }[];
  /** Every `closed` event, to prove it came exactly once. */
  endings: ConnectionEnding[];
  /** Settles with the first `closed` event. */
  ended: Promise<ConnectionEnding>;
}

/** Opens `transport` directly, below any session, and records what it reports. */
export async function openRaw(
  transport: McpTransport,
  limits: Partial<Limits> = {},
  signal?: AbortSignal,
): Promise<RawConnection> {
  const messages: JsonRpcMessage[] = [];
  const failedRequests: RawConnection["failedRequests"] = [];
  const endings: ConnectionEnding[] = [];
  let markEnded!: (ending: ConnectionEnding) => void;
  const ended = new Promise<ConnectionEnding>((resolve) => (markEnded = resolve));
  const connection = await transport.open(
    {
      message: (message) => messages.push(message),
      requestFailed: (id, error) => failedRequests.push({ id, error }),
      closed: (ending) => {
        endings.push(ending);
        markEnded(ending);
      },
    },
    { limits: { ...DEFAULT_LIMITS, ...limits }, signal },
  );
  return { connection, messages, failedRequests, endings, ended };
}

/** Waits until `condition` holds, polling; the test's own timeout bounds the wait. */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

export const PING_REQUEST: JsonRpcMessage = { jsonrpc: "2.0", id: 1, method: "ping" };

/**
 * Servers and clients started by a test file, closed after each test (clients first). Call once,
 * at the top of the file.
 */
export function closedAfterEach(): {
  fixture(options?: WsFixtureOptions): Promise<WsFixture>;
  connect(transport: WebSocketTransport, options?: ClientOptions): Promise<McpClient>;
} {
  const fixtures: WsFixture[] = [];
  const clients: McpClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(fixtures.splice(0).map((started) => started.close()));
  });
  return {
    async fixture(options = {}) {
      const started = await startWsFixture(options);
      fixtures.push(started);
      return started;
    },
    async connect(transport, options = {}) {
      const client = await McpClient.connect(transport, options);
      clients.push(client);
      return client;
    },
  };
}
