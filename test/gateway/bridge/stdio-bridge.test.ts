/**
 * `startStdioBridge` in this process, on two PassThrough streams for the host's stdin and stdout
 * and a real Streamable HTTP transport toward scripted endpoints on 127.0.0.1: the ceilings, the
 * host's cancellations in both eras (a notice in the legacy era; the closed stream in
 * 2026-07-28), a broken modern reply stream re-issued in the host's id, and the options checked.
 */
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { startStdioBridge, type StdioBridge } from "../../../src/gateway/bridge/stdio-bridge.js";
import type { StdioBridgeOptions } from "../../../src/gateway/bridge/bridge-options.js";
import { StreamableHttpTransport } from "../../../src/transport/http/streamable-http.js";
import { jsonRpcResult, startEndpoint, type Behaviour, type ScriptedEndpoint } from "../../fixtures/http-endpoint.js";
import { oversizedBody } from "../../fixtures/http-misbehaving.js";
import type { Message } from "./bridge-process.js";

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "modern-host", version: "1.0.0" },
};
const INITIALIZE = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "h", version: "1" } } };

interface Harness {
  bridge: StdioBridge;
  send(message: Record<string, unknown>): void;
  answer(id: unknown): Promise<Message>;
  readonly messages: Message[];
  readonly logs: string[];
  endInput(): void;
}

const open: Harness[] = [];
const endpoints: ScriptedEndpoint[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((harness) => harness.bridge.close()));
  await Promise.all(endpoints.splice(0).map((endpoint) => endpoint.close()));
});

async function endpoint(behaviour?: Behaviour): Promise<ScriptedEndpoint> {
  const started = await startEndpoint(behaviour);
  endpoints.push(started);
  return started;
}

function harness(url: string, options: Partial<StdioBridgeOptions> = {}): Harness {
  const input = new PassThrough();
  const output = new PassThrough();
  const messages: Message[] = [];
  const logs: string[] = [];
  let partial = "";
  output.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop()!;
    for (const line of lines) messages.push(JSON.parse(line) as Message);
  });
  const bridge = startStdioBridge({ transport: new StreamableHttpTransport(url), input, output, log: (line) => logs.push(line), ...options });
  const made: Harness = {
    bridge,
    send: (message) => input.write(`${JSON.stringify(message)}\n`),
    async answer(id) {
      await expect.poll(() => messages.some((message) => message.id === id && !("method" in message)), { timeout: 10_000 }).toBe(true);
      return messages.find((message) => message.id === id && !("method" in message))!;
    },
    messages,
    logs,
    endInput: () => input.end(),
  };
  open.push(made);
  return made;
}

const call = (id: unknown, name: string, meta?: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: { text: name }, ...(meta ? { _meta: meta } : {}) },
});

/** A behaviour that holds `tools/call` of `silent` open, answering nothing. */
const holdsSilent: Behaviour = (request, res) => {
  if (request.body?.method !== "tools/call" || (request.body.params as { name?: string }).name !== "silent") return false;
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.flushHeaders();
  return true;
};

describe("startStdioBridge: ceilings", () => {
  it("answers a request past maxInFlight with LIMIT at once, and forwards the others", async () => {
    const remote = await endpoint(holdsSilent);
    const host = harness(remote.url, { limits: { maxInFlight: 1 } });
    host.send(INITIALIZE);
    await host.answer(0);
    host.send(call(1, "silent"));
    await expect.poll(() => remote.count("tools/call")).toBe(1);
    host.send(call(2, "echo"));
    expect((await host.answer(2)).error?.data).toMatchObject({ reason: "LIMIT" });
    expect(remote.count("tools/call")).toBe(1);
  });

  it("answers a reply past maxMessageBytes with LIMIT", async () => {
    const remote = await endpoint(oversizedBody(64 * 1024, false));
    const host = harness(remote.url, { limits: { maxMessageBytes: 16 * 1024 } });
    host.send(INITIALIZE);
    await host.answer(0);
    host.send(call(1, "echo"));
    const answer = await host.answer(1);
    expect(answer.error?.data).toMatchObject({ reason: "LIMIT", limitBytes: 16 * 1024 });
  });
});

describe("startStdioBridge: a host that stops reading", () => {
  it("is not read from until its output drains", async () => {
    const remote = await endpoint();
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: 256 });
    const bridge = startStdioBridge({ transport: new StreamableHttpTransport(remote.url), input, output });
    try {
      input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "x".repeat(4096) } } })}\n`);
      await expect.poll(() => input.isPaused()).toBe(true);
      input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" })}\n`);
      expect(remote.count("ping")).toBe(0);
      let text = "";
      output.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      await expect.poll(() => remote.count("ping")).toBe(1);
      await expect.poll(() => text.includes('"id":2')).toBe(true);
    } finally {
      await bridge.close();
    }
  });
});

describe("startStdioBridge: cancellation by the host", () => {
  it("legacy: forwards notifications/cancelled in the wire's id, and the host gets no answer", async () => {
    const remote = await endpoint(holdsSilent);
    const host = harness(remote.url);
    host.send(INITIALIZE);
    await host.answer(0);
    host.send(call(5, "silent"));
    await expect.poll(() => remote.count("tools/call")).toBe(1);
    host.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5, reason: "the user stopped it" } });
    await expect.poll(() => remote.count("notifications/cancelled")).toBe(1);
    const notice = remote.requests.find((request) => request.body?.method === "notifications/cancelled")!;
    expect(notice.body?.params).toEqual({ requestId: 5, reason: "the user stopped it" });
    // A later request is answered, and the cancelled one never was.
    host.send({ jsonrpc: "2.0", id: 6, method: "ping" });
    await host.answer(6);
    expect(host.messages.some((message) => message.id === 5)).toBe(false);
  });

  it("2026-07-28 over Streamable HTTP: closes the request's stream, which is the cancellation, and sends no notice", async () => {
    const remote = await endpoint(holdsSilent);
    const host = harness(remote.url);
    host.send(call("m1", "silent", MODERN_META));
    await expect.poll(() => remote.count("tools/call")).toBe(1);
    const sent = remote.requests.find((request) => request.body?.method === "tools/call")!;
    expect(sent.headers["mcp-protocol-version"]).toBe("2026-07-28");
    expect(sent.headers["mcp-method"]).toBe("tools/call");
    expect(sent.headers["mcp-name"]).toBe("silent");
    expect(sent.body?.id).toBe("m1");
    expect(sent.body?.params).toEqual(call("m1", "silent", MODERN_META).params);
    host.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "m1" } });
    await expect.poll(() => remote.clientClosed).toBe(1);
    expect(remote.count("notifications/cancelled")).toBe(0);
  });
});

describe("startStdioBridge: a 2026-07-28 listen stream", () => {
  it("is not cut by the bridge's request deadline, which the requests sent after it do meet", async () => {
    const remote = await endpoint((request, res) => {
      if (request.body?.method !== "subscriptions/listen") return holdsSilent(request, res, remote);
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
      return true;
    });
    const host = harness(remote.url, { timeoutMs: 300 });
    host.send({ jsonrpc: "2.0", id: "listen", method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: MODERN_META } });
    await expect.poll(() => remote.count("subscriptions/listen")).toBe(1);
    host.send(call("later", "silent", MODERN_META));
    expect((await host.answer("later")).error?.data).toMatchObject({ reason: "TIMEOUT" });
    expect(host.messages.some((message) => message.id === "listen")).toBe(false);
    // The silent request's stream, closed by the bridge when it gave up on it; the server sees
    // that close a moment after the host got its answer.
    await expect.poll(() => remote.clientClosed).toBe(1);
    expect(host.messages.some((message) => message.id === "listen")).toBe(false);
  });
});

describe("startStdioBridge: a broken 2026-07-28 reply stream", () => {
  it("is issued again once with a new id, and answered in the host's id", async () => {
    let broken = 0;
    const remote = await endpoint((request, res) => {
      if (request.body?.method !== "tools/call") return false;
      if (broken++ === 0) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(": working\n\n", () => res.socket?.destroy());
        return true;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(jsonRpcResult(request.body.id, { content: [{ type: "text", text: "second try" }] }));
      return true;
    });
    const host = harness(remote.url);
    host.send(call(9, "echo", MODERN_META));
    const answer = await host.answer(9);
    expect(answer.result?.content).toEqual([{ type: "text", text: "second try" }]);
    const ids = remote.requests.filter((request) => request.body?.method === "tools/call").map((request) => request.body?.id);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(9);
    expect(String(ids[1])).toMatch(/^mcpwire-bridge-reissue-/);
  });
});

describe("startStdioBridge: a JSON-RPC error the remote answered with an HTTP status", () => {
  it("keeps the remote's code and data for the host, in mcpwire's words", async () => {
    const remote = await endpoint((request, res) => {
      if (request.body?.method !== "tools/call") return false;
      res.writeHead(400, { "content-type": "application/json" }).end(
        JSON.stringify({ jsonrpc: "2.0", id: request.body.id, error: { code: -32022, message: "REMOTE-TEXT-42", data: { supported: ["2026-07-28"], requested: "1999-01-01" } } }),
      );
      return true;
    });
    const host = harness(remote.url);
    host.send(call(4, "echo", MODERN_META));
    const answer = await host.answer(4);
    expect(answer.error?.code).toBe(-32022);
    expect(answer.error?.data).toEqual({ supported: ["2026-07-28"], requested: "1999-01-01" });
    expect(answer.error?.message).toMatch(/^mcpwire gateway: the remote server refused tools\/call: /);
    expect(answer.error?.message).not.toContain("REMOTE-TEXT-42");
  });
});

describe("startStdioBridge: the host's ids", () => {
  it("refuses a second request with an id already in flight (-32600), leaving the first alone", async () => {
    const remote = await endpoint(holdsSilent);
    const host = harness(remote.url);
    host.send(INITIALIZE);
    await host.answer(0);
    host.send(call(3, "silent"));
    await expect.poll(() => remote.count("tools/call")).toBe(1);
    host.send(call(3, "echo"));
    expect((await host.answer(3)).error?.code).toBe(-32600);
    expect(remote.count("tools/call")).toBe(1);
  });
});

describe("startStdioBridge: options", () => {
  it("refuses an unknown option, naming the closest one", async () => {
    const remote = await endpoint();
    expect(() =>
      startStdioBridge({ transport: new StreamableHttpTransport(remote.url), input: new PassThrough(), output: new PassThrough(), timeoutMS: 5 } as unknown as StdioBridgeOptions),
    ).toThrow(/unknown option "timeoutMS" \(did you mean "timeoutMs"\?\)/);
  });

  it("refuses a bad timeout, naming it", async () => {
    const remote = await endpoint();
    expect(() => startStdioBridge({ transport: new StreamableHttpTransport(remote.url), input: new PassThrough(), output: new PassThrough(), timeoutMs: -1 })).toThrow(/timeoutMs/);
  });

  it("ends when the input ends, with nothing in flight, and writes nothing but answers", async () => {
    const remote = await endpoint();
    const host = harness(remote.url);
    host.send(INITIALIZE);
    await host.answer(0);
    host.endInput();
    await host.bridge.done;
    expect(remote.count("DELETE")).toBe(1);
    expect(host.messages.every((message) => message.jsonrpc === "2.0")).toBe(true);
  });
});
