/** Shared by the HTTP tests: a client over Streamable HTTP that is closed after each test. */
import { afterEach } from "vitest";
import { McpClient, type ClientOptions } from "../../src/client/client.js";
import { StreamableHttpTransport, type StreamableHttpOptions } from "../../src/transport/http/streamable-http.js";
import type { ScriptedEndpoint } from "../fixtures/http-endpoint.js";
export { failure } from "../helpers/failure.js";

const clients: McpClient[] = [];
const endpoints: ScriptedEndpoint[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(endpoints.splice(0).map((endpoint) => endpoint.close()));
});

/** Closes `endpoint` after the test. */
export function owned<T extends ScriptedEndpoint>(endpoint: T): T {
  endpoints.push(endpoint);
  return endpoint;
}

/**
 * A client of the revisions this transport was built for (2025-03-26 to 2025-11-25): the era is
 * given, so the client's era probe (its own business, tested with the client) sends nothing.
 */
export async function connectHttp(
  url: string,
  transportOptions: StreamableHttpOptions = {},
  clientOptions: ClientOptions = {},
): Promise<McpClient> {
  const client = await McpClient.connect(new StreamableHttpTransport(url, transportOptions), { protocolVersion: "legacy", ...clientOptions });
  clients.push(client);
  return client;
}

