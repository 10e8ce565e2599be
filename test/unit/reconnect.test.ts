import { describe, expect, it } from "vitest";
import { McpTransportError, RecordingTransport, connect, type ConnectionEvents, type OpenOptions } from "../../src/index.js";
import { reconnectDelay, resolveReconnect } from "../../src/client/reconnect.js";

describe("reconnect policy", () => {
  it("starts at 1 s, doubles, caps at 60 s, with jitter between half and all of the delay", () => {
    const policy = resolveReconnect(true)!;
    expect(policy).toEqual({ maxAttempts: 5, initialDelayMs: 1_000, maxDelayMs: 60_000 });
    expect([0, 1, 2, 3, 10].map((attempt) => reconnectDelay(policy, attempt, () => 1))).toEqual([1_000, 2_000, 4_000, 8_000, 60_000]);
    expect(reconnectDelay(policy, 0, () => 0)).toBe(500);
    expect(reconnectDelay(policy, 10, () => 0)).toBe(30_000);
  });

  it("is off unless asked for, and refuses bad values naming the key", () => {
    expect(resolveReconnect(undefined)).toBeUndefined();
    expect(resolveReconnect(false)).toBeUndefined();
    expect(() => resolveReconnect({ maxAttempts: 0 })).toThrow(/"reconnect.maxAttempts" must be a whole number from 1 to 1000000, got 0 \(default 5\)/);
    expect(() => resolveReconnect({ initialDelayMs: -1 })).toThrow(/"reconnect.initialDelayMs"/);
  });
});

describe("McpClient with reconnect", () => {
  it("fails pending requests with DISCONNECTED, then reconnects, re-initializes and keeps its listeners", async () => {
    const transport = new RecordingTransport({ "tools/list": { tools: [] }, "tools/call": () => new Promise(() => {}) });
    await using client = await connect(transport, { reconnect: { initialDelayMs: 10 } });
    const changes: string[] = [];
    client.onToolsListChanged(() => changes.push("changed"));
    const pending = client.callTool("hang");
    // The drop must catch the call on the wire, not before it was sent.
    await expect.poll(() => transport.requests("tools/call"), { timeout: 5_000 }).toHaveLength(1);
    transport.disconnect();
    await expect(pending).rejects.toMatchObject({ reason: "DISCONNECTED" });
    // A request made during the reconnection waits for it.
    await expect(client.listTools()).resolves.toEqual([]);
    expect(transport.requests("initialize")).toHaveLength(2);
    transport.notify("notifications/tools/list_changed");
    await expect.poll(() => changes, { timeout: 5_000 }).toEqual(["changed"]);
  });

  it("gives up after maxAttempts and ends with the last failure", async () => {
    const inner = new RecordingTransport({});
    let opens = 0;
    const flaky = {
      kind: "flaky",
      description: "flaky: test",
      open(events: ConnectionEvents, options: OpenOptions) {
        opens++;
        if (opens > 1) return Promise.reject(new McpTransportError("UNAVAILABLE", "refused"));
        return inner.open(events, options);
      },
    };
    const client = await connect(flaky, { reconnect: { initialDelayMs: 1, maxAttempts: 3 } });
    inner.disconnect();
    const ending = await client.ended;
    expect(ending.error?.reason).toBe("UNAVAILABLE");
    expect(opens).toBe(4);
    await expect(client.listTools()).rejects.toMatchObject({ reason: "DISCONNECTED" });
    await client.close();
  });

  it("onReconnected is told before the requests that waited go on; a listener that throws breaks nothing", async () => {
    const order: string[] = [];
    const transport = new RecordingTransport({
      "tools/list": () => {
        order.push("tools/list");
        return { tools: [] };
      },
    });
    await using client = await connect(transport, { reconnect: { initialDelayMs: 10 } });
    client.onReconnected(() => {
      throw new Error("a listener's own bug");
    });
    const stop = client.onReconnected(() => order.push("reconnected"));
    const told = new Promise<void>((resolve) => client.onReconnected(resolve));
    transport.disconnect();
    const waiting = client.listTools();
    await told;
    await expect(waiting).resolves.toEqual([]);
    expect(order).toEqual(["reconnected", "tools/list"]);
    expect(transport.requests("initialize")).toHaveLength(2);

    // Stopped, it is not told of the next reconnection.
    stop();
    const again = new Promise<void>((resolve) => client.onReconnected(resolve));
    transport.disconnect();
    await again;
    expect(order).toEqual(["reconnected", "tools/list"]);
  });

  it("close() during the backoff stops reconnecting", async () => {
    const transport = new RecordingTransport({});
    const client = await connect(transport, { reconnect: { initialDelayMs: 5_000 } });
    transport.disconnect();
    // The dropped session has ended: its end listeners, which start the backoff, ran before this resolves.
    await client.session.ended;
    await client.close();
    expect((await client.ended).error).toBeUndefined();
    expect(transport.requests("initialize")).toHaveLength(1);
  });

  it("without reconnect, a drop ends the client", async () => {
    const transport = new RecordingTransport({});
    const client = await connect(transport);
    transport.disconnect();
    expect((await client.ended).error?.reason).toBe("DISCONNECTED");
    await client.close();
  });
});
