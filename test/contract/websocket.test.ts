import { afterAll, expect } from "vitest";
import { WebSocketTransport, type McpTransport } from "../../src/index.js";
import { refusedPort, startWsFixture, type WsFixture } from "../fixtures/ws-server.js";
import { runContractSuite } from "./suite.js";

const fixtures = new Map<McpTransport, WsFixture>();

afterAll(async () => {
  await Promise.all([...fixtures.values()].map((fixture) => fixture.close()));
});

runContractSuite({
  name: "websocket",
  transport: async () => {
    const fixture = await startWsFixture();
    const transport = new WebSocketTransport(fixture.url);
    fixtures.set(transport, fixture);
    return transport;
  },
  unavailable: async () => new WebSocketTransport(`ws://127.0.0.1:${await refusedPort()}/mcp`),
  assertNothingRunning: async (client) => {
    const fixture = fixtures.get(client.session.transport)!;
    await fixture.allClosed();
    // The server saw a clean close handshake, not a dropped socket.
    expect(fixture.connections.map((connection) => connection.closeCode)).toEqual([1000]);
  },
  limitEndsConnection: true,
});
