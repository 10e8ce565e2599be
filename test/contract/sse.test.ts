import { afterAll, expect } from "vitest";
import { HttpTransport } from "../../src/transport/http/http-fallback.js";
import { SseTransport } from "../../src/transport/http/sse.js";
import { startSseContractServer, type SseContractServer } from "../fixtures/sse-contract-server.js";
import { runContractSuite } from "./suite.js";
import { closedPort } from "../helpers/ports.js";

const servers: SseContractServer[] = [];

afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function target(name: string, transportFor: (server: SseContractServer) => HttpTransport | SseTransport): void {
  let latest: SseContractServer | undefined;
  runContractSuite({
    name,
    async transport() {
      latest = await startSseContractServer();
      servers.push(latest);
      return transportFor(latest);
    },
    async unavailable() {
      const url = `http://127.0.0.1:${await closedPort()}/sse`;
      return transportFor({ url, origin: new URL(url).origin } as SseContractServer);
    },
    async assertNothingRunning() {
      const server = latest!;
      // The stream is gone (so is the server's session), and no connection is left open.
      await expect.poll(() => server.sessions, { timeout: 10_000 }).toBe(0);
      await expect.poll(() => server.connections(), { timeout: 10_000 }).toBe(0);
    },
    limitEndsConnection: true,
  });
}

target("sse (legacy HTTP+SSE)", (server) => new SseTransport(server.url));
// Streamable HTTP first: the base URL refuses the POST with 404, its GET too, and /sse has the stream.
target("sse (by fallback from the base URL)", (server) => new HttpTransport(`${server.origin}/`));
