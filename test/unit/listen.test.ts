import { describe, expect, it } from "vitest";
import { RecordingTransport, connect } from "../../src/index.js";

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

describe("client.listen()", () => {
  it("modern: opens one long-lived subscriptions/listen stream, resolves on the acknowledgment, and delivers to the usual listeners", async () => {
    const transport = new RecordingTransport(
      {
        "subscriptions/listen": (params, { request, transport: server }) => {
          server.notify("notifications/subscriptions/acknowledged", {
            _meta: { [SUBSCRIPTION_ID]: request.id },
            notifications: { toolsListChanged: true },
          });
          return new Promise(() => {}); // the stream stays open
        },
      },
      { era: "modern" },
    );
    await using client = await connect(transport, { readTimeoutMs: 50, timeoutMs: 2_000 });
    const changes: string[] = [];
    client.onToolsListChanged(() => changes.push("tools"));
    const agreed = await client.listen({ toolsListChanged: true, promptsListChanged: true });
    expect(agreed).toEqual({ toolsListChanged: true });
    // Long-lived: neither the read-stall ceiling (50 ms) nor the request deadline ends it. This
    // wait is the subject; a late timer only makes the stream prove more.
    await new Promise((resolve) => setTimeout(resolve, 150));
    transport.notify("notifications/tools/list_changed", { _meta: { [SUBSCRIPTION_ID]: 2 } });
    await expect.poll(() => changes, { timeout: 5_000 }).toEqual(["tools"]);
    expect(transport.requests("subscriptions/listen")[0]!.params).toMatchObject({
      notifications: { toolsListChanged: true, promptsListChanged: true },
    });

    // A wider filter replaces the stream: the old one is cancelled, the new one carries the union.
    await client.listen({ resourceSubscriptions: ["file:///a"] });
    const listens = transport.requests("subscriptions/listen");
    expect(listens).toHaveLength(2);
    expect(listens[1]!.params).toMatchObject({
      notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["file:///a"] },
    });
    expect(transport.notifications("notifications/cancelled").map((n) => n.params!.requestId)).toEqual([listens[0]!.id]);
  });

  it("legacy: list changes need no request, and each URI is subscribed once with resources/subscribe", async () => {
    const transport = new RecordingTransport({ "resources/subscribe": {} });
    await using client = await connect(transport);
    await client.listen({ toolsListChanged: true, resourceSubscriptions: ["file:///a"] });
    await client.listen({ resourceSubscriptions: ["file:///a", "file:///b"] });
    expect(transport.requests("resources/subscribe").map((r) => r.params!.uri)).toEqual(["file:///a", "file:///b"]);
  });

  it("refuses a filter it cannot send as meant, before anything is sent", async () => {
    const transport = new RecordingTransport({ "resources/subscribe": {} }, { capabilities: { resources: { subscribe: true } } });
    await using client = await connect(transport);
    await expect(client.listen({ resourceSubscriptions: "file:///a.txt" as never })).rejects.toThrow(
      'listen: "resourceSubscriptions" must be an array of resource URIs (["file:///a.txt"]), got "file:///a.txt"',
    );
    await expect(client.listen({ resourceSubscriptions: ["file:///a.txt", ""] })).rejects.toThrow('listen: "resourceSubscriptions[1]" must be a non-empty string');
    await expect(client.listen({ toolListChanged: true } as never)).rejects.toThrow(
      'listen: unknown filter key "toolListChanged" (did you mean "toolsListChanged"?); the filter takes toolsListChanged, promptsListChanged, resourcesListChanged, resourceSubscriptions',
    );
    await expect(client.listen({ toolsListChanged: "yes" } as never)).rejects.toThrow('listen: "toolsListChanged" must be true or false, got "yes"');
    await expect(client.listen(null as never)).rejects.toThrow("listen: the filter must be an object");
    await expect(client.listen({ toolsListChanged: true }, { timeoutMs: -1 })).rejects.toThrow(/^listen: "timeoutMs" must be a whole number/);
    await expect(client.listen({ toolsListChanged: true }, { timeout: 5 } as never)).rejects.toThrow('listen: unknown option "timeout"');
    expect(transport.requests("resources/subscribe")).toEqual([]);
    // A good filter still goes through, and is all that was sent.
    expect(await client.listen({ resourceSubscriptions: ["file:///a.txt"] })).toEqual({ resourceSubscriptions: ["file:///a.txt"] });
    expect(transport.requests("resources/subscribe").map((request) => request.params!.uri)).toEqual(["file:///a.txt"]);
  });
});
