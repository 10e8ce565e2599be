/**
 * Ping/pong keepalive over a real socket: a half-dead connection ends with DISCONNECTED within
 * about intervalMs + timeoutMs instead of hanging; a live one stays open; 0 turns parts off.
 */
import { afterEach, describe, expect, it } from "vitest";
import { McpClient, WebSocketTransport, type ClientOptions, type WebSocketOptions } from "../../src/index.js";
import { startWsFixture, type WsFixture, type WsFixtureOptions } from "../fixtures/ws-server.js";
import { failure, until } from "./helpers.js";

const fixtures: WsFixture[] = [];
const clients: McpClient[] = [];

async function setUp(
  fixtureOptions: WsFixtureOptions,
  transportOptions: WebSocketOptions,
  clientOptions: ClientOptions = {},
): Promise<{ server: WsFixture; client: McpClient }> {
  const server = await startWsFixture(fixtureOptions);
  fixtures.push(server);
  const client = await McpClient.connect(new WebSocketTransport(server.url, transportOptions), clientOptions);
  clients.push(client);
  return { server, client };
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(fixtures.splice(0).map((server) => server.close()));
});

describe("keepalive", () => {
  it("a server that stops answering pings ends the connection with DISCONNECTED, not a hang", async () => {
    const { server, client } = await setUp({ answerPings: false }, { keepAlive: { intervalMs: 100, timeoutMs: 200 } });
    // Nothing else ends this wait before the test's own timeout: timeoutMs is a minute, readTimeoutMs five.
    const pending = client.callTool("silent");
    const error = await failure(pending);
    expect(error.reason).toBe("DISCONNECTED");
    expect(error.message).toContain("did not answer a ping within 200 ms");
    const ending = (await client.ended).error!;
    expect(ending.reason).toBe("DISCONNECTED");
    expect(ending.timeoutMs).toBe(200);
    expect(server.connections[0]!.pings).toBeGreaterThanOrEqual(1);
  });

  it("a half-dead connection (the server reads nothing at all) is found the same way", async () => {
    const { server, client } = await setUp({}, { keepAlive: { intervalMs: 100, timeoutMs: 200 }, closeTimeoutMs: 200 });
    (await server.connection(0)).deafen();
    const error = await failure(client.callTool("echo", { text: "into the void" }));
    expect(error.reason).toBe("DISCONNECTED");
    expect((await client.ended).error?.message).toContain("ping");
  });

  it("a server that answers pings keeps the connection open", async () => {
    const { server, client } = await setUp({}, { keepAlive: { intervalMs: 20, timeoutMs: 5_000 } });
    await until(() => server.connections[0]!.pings >= 5);
    await expect(client.callTool("echo", { text: "alive" })).resolves.toMatchObject({ content: [{ text: "alive" }] });
  });

  it("timeoutMs: 0 keeps sending pings and never gives up on a pong", async () => {
    const { server, client } = await setUp({ answerPings: false }, { keepAlive: { intervalMs: 20, timeoutMs: 0 } });
    await until(() => server.connections[0]!.pings >= 5);
    await expect(client.callTool("echo", { text: "still" })).resolves.toMatchObject({ content: [{ text: "still" }] });
  });

  it("intervalMs: 0 sends no pings", async () => {
    const { server, client } = await setUp({}, { keepAlive: { intervalMs: 0 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await client.callTool("echo", { text: "quiet" });
    expect(server.connections[0]!.pings).toBe(0);
  });
});
