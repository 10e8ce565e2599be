import { afterAll, expect } from "vitest";
import { StreamableHttpTransport } from "../../src/transport/http/streamable-http.js";
import type { FetchHandlerServer } from "../fixtures/fetch-handler-server.js";
import { startModernHttpContractServer } from "../fixtures/modern-contract-server.js";
import { runContractSuite } from "./suite.js";
import { closedPort } from "../helpers/ports.js";

const servers: FetchHandlerServer[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

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
