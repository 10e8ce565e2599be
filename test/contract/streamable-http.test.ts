import { afterAll, expect } from "vitest";
import { StreamableHttpTransport } from "../../src/transport/http/streamable-http.js";
import { startHttpContractServer, type HttpContractServer, type HttpContractServerOptions } from "../fixtures/http-contract-server.js";
import { runContractSuite } from "./suite.js";
import { closedPort } from "../helpers/ports.js";

const servers: HttpContractServer[] = [];

afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function target(name: string, options: HttpContractServerOptions): void {
  let latest: HttpContractServer | undefined;
  runContractSuite({
    name: `streamable-http (${name})`,
    async transport() {
      latest = await startHttpContractServer(options);
      servers.push(latest);
      return new StreamableHttpTransport(latest.url);
    },
    async unavailable() {
      return new StreamableHttpTransport(`http://127.0.0.1:${await closedPort()}/mcp`);
    },
    async assertNothingRunning() {
      const server = latest!;
      // The session was ended with DELETE, and no connection is left open.
      await expect.poll(() => server.sessions, { timeout: 10_000 }).toBe(0);
      await expect.poll(() => server.connections(), { timeout: 10_000 }).toBe(0);
    },
    limitEndsConnection: false,
  });
}

target("json replies, stateful", { replies: "json", stateful: true });
target("sse replies, stateful", { replies: "sse", stateful: true });
target("sse replies, stateless", { replies: "sse", stateful: false });
target("sse replies, stateful, resumable", { replies: "sse", stateful: true, resumable: true });
