/** Shared by the legacy SSE tests: clients, sessions and endpoints closed after each test. */
import { afterEach } from "vitest";
import { McpClient, type ClientOptions } from "../../src/client/client.js";
import type { TransportSession } from "../../src/session/session.js";
import type { McpTransport } from "../../src/transport/transport.js";
export { closedPort } from "../helpers/ports.js";
export { failure } from "../helpers/failure.js";

const clients: McpClient[] = [];
const sessions: TransportSession[] = [];
const endpoints: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(sessions.splice(0).map((session) => session.close()));
  await Promise.all(endpoints.splice(0).map((endpoint) => endpoint.close()));
});

/** Closes `endpoint` after the test. */
export function owned<T extends { close(): Promise<void> }>(endpoint: T): T {
  endpoints.push(endpoint);
  return endpoint;
}

/** Closes `session` after the test. */
export function ownedSession<T extends TransportSession>(session: T): T {
  sessions.push(session);
  return session;
}

/** A client over `transport`, closed after the test. */
export async function connectWith(transport: McpTransport, options: ClientOptions = {}): Promise<McpClient> {
  const client = await McpClient.connect(transport, { timeoutMs: 20_000, ...options });
  clients.push(client);
  return client;
}

/** Closes `client` after the test. */
export function ownedClient(client: McpClient): McpClient {
  clients.push(client);
  return client;
}

