import net from "node:net";
import { afterAll, expect } from "vitest";
import { StreamableHttpTransport } from "../../src/transport/streamable-http.js";
import type { FetchHandlerServer } from "../fixtures/fetch-handler-server.js";
import { startModernHttpContractServer } from "../fixtures/modern-contract-server.js";
import { runContractSuite } from "./suite.js";

const servers: FetchHandlerServer[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// The contract suite against a modern-era server (revision 2026-07-28, official SDK v2) over
// Streamable HTTP: no session, no GET stream; server questions come back as input rounds.
let latest: FetchHandlerServer | undefined;
runContractSuite({
  name: "streamable-http, modern era",
  era: "modern",
  async transport() {
    latest = await startModernHttpContractServer();
    servers.push(latest);
    return new StreamableHttpTransport(latest.url);
  },
  async unavailable() {
    return new StreamableHttpTransport(`http://127.0.0.1:${await closedPort()}/mcp`);
  },
  async assertNothingRunning() {
    const server = latest!;
    await expect.poll(() => server.connections(), { timeout: 10_000 }).toBe(0);
  },
  limitEndsConnection: false,
});
