/**
 * The parts of a gateway that serve requests (gateway-core.ts) arrive by a dynamic import once
 * the gateway is created: a handler mounted in a server of one's own at once still answers the
 * first request, and children of the caller's that cannot be built fail `listen()` and each
 * request in our words, without leaving the close waiting.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createGateway, type Gateway, type GatewayChildrenFactory } from "../../../src/gateway/gateway.js";
import { closedAfterEach } from "../../helpers/owned.js";
import { MINI_TARGET } from "../helpers/gateway-fixture.js";
import { inProcessChildren } from "../helpers/in-process-children.js";
import { JSON_POST, initializeBody, rawRequest } from "../helpers/raw-http.js";

const own = closedAfterEach(30_000);

/** A server of one's own on loopback serving `handler`, closed after the test. */
async function mount(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<number> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  own({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
  return (server.address() as AddressInfo).port;
}

describe("the parts that serve, loaded once the gateway is created", () => {
  it("answers a request handed to the handler in the same turn as the gateway was created, and counts nothing before it", async () => {
    const children = inProcessChildren();
    let gateway: Gateway | undefined;
    const counted: unknown[] = [];
    // The gateway is created by the first request, which its handler gets at once: before any
    // dynamic import can have settled.
    const port = await mount((request, response) => {
      gateway ??= own(createGateway({ target: MINI_TARGET, listen: "127.0.0.1:0", drainDelayMs: 0, log: () => {} }, { children: children.factory }));
      counted.push(gateway.sessionCount, gateway.requests);
      gateway.handler(request, response);
    });
    const answer = await rawRequest({ port, headers: JSON_POST, body: initializeBody(7) });
    expect(answer.json()).toMatchObject({ jsonrpc: "2.0", id: 7, result: { serverInfo: { name: "fake" } } });
    expect(counted).toEqual([0, { running: 0, queued: 0 }]);
    expect(gateway!.sessionCount).toBe(1);
  });

  it("fails listen() with the error of children that could not be built, answers requests 500 in its own words, and closes", async () => {
    const broken: GatewayChildrenFactory = () => {
      throw new Error("secret detail of the children");
    };
    const logs: Record<string, unknown>[] = [];
    const gateway = createGateway(
      { target: MINI_TARGET, listen: "127.0.0.1:0", drainDelayMs: 0, log: (line) => logs.push(JSON.parse(line) as Record<string, unknown>) },
      { children: broken },
    );
    await expect(gateway.listen()).rejects.toThrow("secret detail of the children");
    const port = await mount(gateway.handler);
    const answer = await rawRequest({ port, headers: JSON_POST, body: initializeBody(1) });
    expect(answer.status).toBe(500);
    expect(answer.json()).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32603, message: "the gateway failed to handle this request" } });
    expect(answer.text).not.toContain("secret");
    expect(logs.some((line) => line.event === "handler_fault")).toBe(true);
    await gateway.close();
  });
});
