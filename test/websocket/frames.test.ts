/**
 * An open WebSocket connection: one JSON-RPC message per text frame, the byte ceiling on each
 * frame, how the server closing or dropping the socket is reported, writes, close() and re-open.
 */
import { performance } from "node:perf_hooks";
import { describe, expect, it, vi } from "vitest";
import { WebSocketCloseError, WebSocketTransport } from "../../src/index.js";
import { closedAfterEach, failure, openRaw, PING_REQUEST, until } from "./helpers.js";

const { fixture, connect } = closedAfterEach();

/** The text of a notification of exactly `bytes` bytes of UTF-8. */
function notificationOfBytes(bytes: number): string {
  const empty = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "" } });
  return empty.replace('"data":""', `"data":"${"x".repeat(bytes - Buffer.byteLength(empty))}"`);
}

describe("frames from the server", () => {
  it("a binary frame is PROTOCOL and the socket is closed with 1003 (unsupported data)", async () => {
    const server = await fixture();
    const client = await connect(new WebSocketTransport(server.url));
    const pending = client.callTool("silent");
    (await server.connection(0)).sendBinary(Buffer.from('{"jsonrpc":"2.0","method":"x"}'));
    expect((await failure(pending)).reason).toBe("PROTOCOL");
    const ending = await client.ended;
    expect(ending.error?.reason).toBe("PROTOCOL");
    expect(ending.error?.message).toContain("binary frame");
    expect((await server.connections[0]!.closed).code).toBe(1003);
  });

  it("a text frame that is not a JSON-RPC message is PROTOCOL and the socket is closed with 1008", async () => {
    const server = await fixture();
    const client = await connect(new WebSocketTransport(server.url));
    (await server.connection(0)).sendText("<html>proxy error</html>");
    const ending = await client.ended;
    expect(ending.error?.reason).toBe("PROTOCOL");
    expect(ending.error?.message).not.toContain("proxy error");
    expect((await server.connections[0]!.closed).code).toBe(1008);
  });

  it("a frame past maxMessageBytes is LIMIT (not DISCONNECTED) and the socket is closed with 1009", async () => {
    const server = await fixture();
    const client = await connect(new WebSocketTransport(server.url), { maxMessageBytes: 4096 });
    const pending = client.callTool("silent");
    (await server.connection(0)).sendText(notificationOfBytes(4097));
    const error = await failure(pending);
    expect(error.reason).toBe("LIMIT");
    expect(error.limitBytes).toBe(4096);
    const ending = await client.ended;
    expect(ending.error?.reason).toBe("LIMIT");
    expect(ending.error?.limitBytes).toBe(4096);
    expect((await server.connections[0]!.closed).code).toBe(1009);
  });

  it("a message arriving in fragments for longer than readTimeoutMs is delivered: its bytes are not silence", async () => {
    const readTimeoutMs = 1_000;
    const server = await fixture();
    const raw = await openRaw(new WebSocketTransport(server.url, { keepAlive: { intervalMs: 0 } }), { readTimeoutMs });
    const socket = await server.connection(0);
    const text = JSON.stringify({ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "x".repeat(4000) }] } });
    const fragments = Array.from({ length: 8 }, (_, i) => text.slice(i * 100, (i + 1) * 100));
    // The read-stall clock is the test's own: it moves only when the test moves it, after the
    // client has read what came before, so a stalled or busy process cannot change the outcome.
    // (The watch reads node:perf_hooks' performance.now(), which follows the fake Date here.)
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const clock = vi.spyOn(performance, "now").mockImplementation(() => Date.now());
    try {
      // A request waits, so the read-stall ceiling is armed.
      await raw.connection.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "silent" } });
      // Eight fragments, each followed by 60% of the ceiling: 4.8 ceilings of reading, never a whole one of silence.
      for (const fragment of fragments) {
        socket.sendFragment(fragment, false);
        // Read by the client before the clock moves. (The ping that tells so is a byte from the
        // server too: this proves that bytes restart the count, fragments and pings alike.)
        await socket.roundTrip();
        vi.advanceTimersByTime(readTimeoutMs * 0.6);
        expect(raw.failedRequests).toEqual([]);
      }
    } finally {
      clock.mockRestore();
      vi.useRealTimers();
    }
    socket.sendFragment(text.slice(fragments.join("").length), true);
    await until(() => raw.messages.length + raw.failedRequests.length > 0);
    expect(raw.failedRequests).toEqual([]);
    expect(raw.messages[0]).toMatchObject({ id: 7 });
    await raw.connection.close();
  });

  it("a frame of exactly maxMessageBytes is delivered", async () => {
    const server = await fixture();
    const raw = await openRaw(new WebSocketTransport(server.url), { maxMessageBytes: 4096 });
    (await server.connection(0)).sendText(notificationOfBytes(4096));
    await until(() => raw.messages.length === 1);
    expect(raw.endings).toEqual([]);
    await raw.connection.close();
  });

  it("the server closing the socket is DISCONNECTED, with the close code on the cause and its reason out of the message", async () => {
    const server = await fixture();
    const client = await connect(new WebSocketTransport(server.url));
    const pending = client.callTool("silent");
    (await server.connection(0)).closeWith(4001, "maintenance window s3cret");
    const error = await failure(pending);
    expect(error.reason).toBe("DISCONNECTED");
    const ending = (await client.ended).error!;
    expect(ending.reason).toBe("DISCONNECTED");
    expect(ending.message).toContain("close code 4001");
    expect(ending.message).not.toContain("s3cret");
    expect(ending.serverMessage).toBe("maintenance window s3cret");
    expect(ending.cause).toBeInstanceOf(WebSocketCloseError);
    expect((ending.cause as WebSocketCloseError).closeCode).toBe(4001);
    expect((ending.cause as WebSocketCloseError).closeReason).toBe("maintenance window s3cret");
  });

  it("a socket dropped without a close frame is DISCONNECTED with close code 1006", async () => {
    const server = await fixture();
    const client = await connect(new WebSocketTransport(server.url));
    const pending = client.callTool("sleep", { ms: 10_000 });
    (await server.connection(0)).drop();
    expect((await failure(pending)).reason).toBe("DISCONNECTED");
    const ending = (await client.ended).error!;
    expect(ending.reason).toBe("DISCONNECTED");
    expect((ending.cause as WebSocketCloseError).closeCode).toBe(1006);
  });

  it("reports the end exactly once and no message after it", async () => {
    const server = await fixture();
    const raw = await openRaw(new WebSocketTransport(server.url));
    const side = await server.connection(0);
    side.sendBinary(Buffer.from([1, 2, 3]));
    side.sendText(notificationOfBytes(200));
    await raw.ended;
    await raw.connection.close();
    expect(raw.endings).toHaveLength(1);
    expect(raw.messages).toEqual([]);
  });
});

describe("writes", () => {
  it("a message past maxMessageBytes is LIMIT before it is sent, and the connection stays usable", async () => {
    const server = await fixture();
    const raw = await openRaw(new WebSocketTransport(server.url), { maxMessageBytes: 1024 });
    const big = { jsonrpc: "2.0" as const, method: "notifications/message", params: { data: "é".repeat(600) } };
    const error = await failure(raw.connection.send(big));
    expect(error.reason).toBe("LIMIT");
    expect(error.limitBytes).toBe(1024);
    await raw.connection.send(PING_REQUEST);
    await until(() => raw.messages.length === 1);
    expect(raw.messages[0]).toMatchObject({ id: 1 });
    await raw.connection.close();
  });

  it("a send on a closed connection rejects at once with DISCONNECTED", async () => {
    const server = await fixture();
    const raw = await openRaw(new WebSocketTransport(server.url));
    (await server.connection(0)).drop();
    expect((await raw.ended).error?.reason).toBe("DISCONNECTED");
    expect((await failure(raw.connection.send(PING_REQUEST))).reason).toBe("DISCONNECTED");
  });

  it("a write the server does not read stays pending (backpressure) and rejects with DISCONNECTED on close()", async () => {
    const server = await fixture();
    const raw = await openRaw(new WebSocketTransport(server.url, { closeTimeoutMs: 200, keepAlive: { intervalMs: 0 } }), {
      maxMessageBytes: 32 * 1024 * 1024,
    });
    (await server.connection(0)).deafen();
    // Far more than the loopback socket buffers hold, so the write cannot finish while nobody reads.
    const sending = raw.connection.send({ jsonrpc: "2.0", method: "notifications/message", params: { data: "x".repeat(16 * 1024 * 1024) } });
    let settled = false;
    sending.then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled).toBe(false);
    await raw.connection.close();
    expect((await failure(sending)).reason).toBe("DISCONNECTED");
  }, 15_000); // below ws's own 30 s close timeout, so only closeTimeoutMs can make this pass
});

describe("close()", () => {
  it("does a clean close handshake (the server sees 1000), reports the end once without an error, and is idempotent", async () => {
    const server = await fixture();
    const raw = await openRaw(new WebSocketTransport(server.url));
    await Promise.all([raw.connection.close(), raw.connection.close()]);
    await raw.connection.close();
    expect(raw.endings).toEqual([{}]);
    expect((await server.connections[0]!.closed).code).toBe(1000);
    await server.allClosed();
  });

  it("still ends when the server never answers the close frame: the socket is destroyed after closeTimeoutMs", async () => {
    const server = await fixture();
    const raw = await openRaw(new WebSocketTransport(server.url, { closeTimeoutMs: 200, keepAlive: { intervalMs: 0 } }));
    (await server.connection(0)).deafen();
    // close() resolves only once the client's socket is closed, so resolving proves it was destroyed.
    await raw.connection.close();
    expect(raw.endings).toEqual([{}]);
  }, 15_000); // below ws's own 30 s close timeout, so only closeTimeoutMs can make this pass

  it("close() after the server dropped the socket resolves", async () => {
    const server = await fixture();
    const raw = await openRaw(new WebSocketTransport(server.url));
    (await server.connection(0)).drop();
    await raw.ended;
    await raw.connection.close();
    expect(raw.endings).toHaveLength(1);
  });
});

describe("opening again", () => {
  it("the same transport opens a new connection after a drop, and a new client initializes over it", async () => {
    const server = await fixture();
    const transport = new WebSocketTransport(server.url);
    const first = await connect(transport);
    (await server.connection(0)).drop();
    expect((await first.ended).error?.reason).toBe("DISCONNECTED");
    const second = await connect(transport);
    await expect(second.callTool("echo", { text: "again" })).resolves.toMatchObject({ content: [{ text: "again" }] });
    expect(server.connections).toHaveLength(2);
  });

  it("with reconnect on, the client reopens the transport after a drop and runs the handshake again", async () => {
    const server = await fixture();
    const attempts: number[] = [];
    const transport = new WebSocketTransport(server.url, {
      headers: ({ attempt }) => {
        attempts.push(attempt);
        return { authorization: `Bearer ${attempt}` };
      },
    });
    const client = await connect(transport, { reconnect: { initialDelayMs: 10, maxDelayMs: 50 } });
    const pending = client.callTool("sleep", { ms: 10_000 });
    (await server.connection(0)).drop();
    expect((await failure(pending)).reason).toBe("DISCONNECTED");
    await expect(client.callTool("echo", { text: "back" })).resolves.toMatchObject({ content: [{ text: "back" }] });
    expect(attempts).toEqual([1, 2]);
    expect(server.upgrades.map((headers) => headers.authorization)).toEqual(["Bearer 1", "Bearer 2"]);
  });
});
