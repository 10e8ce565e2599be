/**
 * The contract suite: written once, run against every transport.
 *
 * Each transport's test file calls `runContractSuite` with a factory of fresh transports to a
 * fresh contract server (test/fixtures/contract-server.ts). A transport that is not in this suite
 * is not done.
 */
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { McpClient, type ClientOptions, type McpTransport } from "../../src/index.js";
import { failure } from "../helpers/failure.js";

export interface ContractTarget {
  /** Shown in test titles: "stdio", "memory", "streamable-http (json)". */
  name: string;
  /** A fresh transport to a fresh contract server. */
  transport(): McpTransport | Promise<McpTransport>;
  /** A transport whose server cannot be reached or started: it must fail with UNAVAILABLE. */
  unavailable(): McpTransport | Promise<McpTransport>;
  /** Proves that nothing of the last connection is left running (processes, sockets). */
  assertNothingRunning?(client: McpClient): Promise<void>;
  /**
   * Whether a message past `maxMessageBytes` ends the whole connection (one stream of messages:
   * stdio, WebSocket) or only fails its request (a stream per request: HTTP).
   */
  limitEndsConnection: boolean;
  /** The era the contract server speaks (legacy: SDK v1, modern: SDK v2). @default "legacy" */
  era?: "legacy" | "modern";
}

export function runContractSuite(target: ContractTarget): void {
  describe(`contract: ${target.name}`, () => {
    const open: McpClient[] = [];

    async function connect(options: ClientOptions = {}): Promise<McpClient> {
      const client = await McpClient.connect(await target.transport(), options);
      open.push(client);
      return client;
    }

    afterEach(async () => {
      await Promise.all(open.splice(0).map((client) => client.close()));
    });

    it("makes a round trip: handshake, list, call", async () => {
      const client = await connect();
      expect(client.serverInfo.name).toBe("contract-server");
      expect(client.era).toBe(target.era ?? "legacy");
      expect(client.protocolVersion).toBe(target.era === "modern" ? "2026-07-28" : "2025-11-25");
      const tools = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("echo");
      const result = await client.callTool("echo", { text: "héllo ✓" });
      expect(result.content).toEqual([{ type: "text", text: "héllo ✓" }]);
    });

    it("matches 100 concurrent requests to their responses", async () => {
      const client = await connect();
      const texts = Array.from({ length: 100 }, (_, i) => `call-${i}-${"é".repeat(i)}`);
      const results = await Promise.all(texts.map((text) => client.callTool("echo", { text })));
      expect(results.map((result) => (result.content[0] as { text: string }).text)).toEqual(texts);
    });

    it("answers server-to-client requests through the handlers", async () => {
      const client = await connect({
        handlers: {
          roots: [{ uri: "file:///work", name: "work" }],
          elicitation: () => ({ action: "accept", content: { name: "Ada" } }),
        },
      });
      const roots = await client.callTool("ask_roots");
      expect(JSON.parse((roots.content[0] as { text: string }).text)).toEqual([{ uri: "file:///work", name: "work" }]);
      const form = await client.callTool("ask_elicitation");
      // The handler omitted "team"; the schema's default fills it.
      expect(JSON.parse((form.content[0] as { text: string }).text)).toEqual({
        action: "accept",
        content: { name: "Ada", team: "support" },
      });
    });

    it("delivers progress notifications for a request", async () => {
      const client = await connect();
      const seen: number[] = [];
      const result = await client.callTool("progress", { steps: 3, ms: 5 }, { onProgress: (p) => seen.push(p.progress) });
      expect(result.content).toEqual([{ type: "text", text: "done 3" }]);
      expect(seen).toEqual([1, 2, 3]);
    });

    it("maxMessageBytes: a reply past the ceiling fails with LIMIT", async () => {
      const client = await connect({ maxMessageBytes: 64 * 1024 });
      const error = await failure(client.callTool("blob", { bytes: 100_000 }));
      expect(error.reason).toBe("LIMIT");
      expect(error.limitBytes).toBe(64 * 1024);
      if (target.limitEndsConnection) {
        expect((await client.ended).error?.reason).toBe("LIMIT");
      } else {
        await expect(client.callTool("echo", { text: "still here" })).resolves.toBeDefined();
      }
    });

    it("maxMessageBytes: a request past the ceiling fails with LIMIT before it is sent", async () => {
      const client = await connect({ maxMessageBytes: 64 * 1024 });
      const error = await failure(client.callTool("echo", { text: "y".repeat(100_000) }));
      expect(error.reason).toBe("LIMIT");
      await expect(client.callTool("echo", { text: "small" })).resolves.toBeDefined();
    });

    it("readTimeoutMs: a server that stays silent while a request waits fails it with TIMEOUT", async () => {
      const client = await connect({ readTimeoutMs: 300, timeoutMs: 20_000 });
      const error = await failure(client.callTool("silent"));
      expect(error.reason).toBe("TIMEOUT");
      expect(error.retryable).toBe(true);
      expect(error.timeoutMs).toBe(300);
    });

    it("timeoutMs: a request that takes too long fails with TIMEOUT and the connection stays usable", async () => {
      const client = await connect();
      const error = await failure(client.callTool("sleep", { ms: 10_000 }, { timeoutMs: 200 }));
      expect(error.reason).toBe("TIMEOUT");
      expect(error.timeoutMs).toBe(200);
      expect(error.message).toContain('callTool "sleep" timed out after 200 ms');
      await expect(client.callTool("echo", { text: "after" })).resolves.toBeDefined();
    });

    it("maxInFlight: further requests wait for a slot, in order", async () => {
      const client = await connect({ maxInFlight: 2 });
      const calls = [0, 1, 2, 3].map((i) => client.callTool("sleep", { ms: 50 + i }));
      expect(client.session.load).toEqual({ inFlight: 2, waiting: 2 });
      const results = await Promise.all(calls);
      expect(results.map((r) => (r.content[0] as { text: string }).text)).toEqual(["slept 50", "slept 51", "slept 52", "slept 53"]);
      expect(client.session.load).toEqual({ inFlight: 0, waiting: 0 });
    });

    it("maxInFlight: the wait for a slot counts against the request's timeout", async () => {
      const client = await connect({ maxInFlight: 1 });
      const first = client.callTool("sleep", { ms: 1_000 });
      const error = await failure(client.callTool("echo", { text: "queued" }, { timeoutMs: 150 }));
      expect(error.reason).toBe("TIMEOUT");
      await expect(first).resolves.toBeDefined();
    });

    it("an aborted request rejects with the signal's reason and leaves no listener", async () => {
      const client = await connect();
      const longLived = new AbortController();
      for (let i = 0; i < 3; i++) await client.callTool("echo", { text: `${i}` }, { signal: longLived.signal });
      expect(getEventListeners(longLived.signal, "abort")).toHaveLength(0);

      const controller = new AbortController();
      const call = client.callTool("sleep", { ms: 10_000 }, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error("user gave up")), 20);
      await expect(call).rejects.toThrow("user gave up");
      await expect(client.callTool("echo", { text: "after abort" })).resolves.toBeDefined();
    });

    it("a JSON-RPC error is PROTOCOL with its code, and the server's text stays out of the message", async () => {
      const client = await connect();
      const error = await failure(client.readResource("contract://nothing"));
      expect(error.reason).toBe("PROTOCOL");
      expect(error.retryable).toBe(false);
      expect(typeof error.code).toBe("number");
      expect(error.serverMessage).toBeTruthy();
      expect(error.message).not.toContain(error.serverMessage!);
    });

    it("a server that goes away fails pending requests with DISCONNECTED", async () => {
      const client = await connect();
      const pending = client.callTool("sleep", { ms: 10_000 });
      const crash = client.callTool("crash");
      const [pendingError, crashError] = await Promise.all([failure(pending), failure(crash)]);
      expect(pendingError.reason).toBe("DISCONNECTED");
      expect(crashError.reason).toBe("DISCONNECTED");
      expect((await client.ended).error?.reason).toBe("DISCONNECTED");
      const after = await failure(client.callTool("echo", { text: "too late" }));
      expect(after.reason).toBe("DISCONNECTED");
    });

    it("a server that cannot be reached fails with UNAVAILABLE", async () => {
      const error = await failure(McpClient.connect(await target.unavailable(), { timeoutMs: 10_000 }));
      expect(error.reason).toBe("UNAVAILABLE");
      expect(error.retryable).toBe(true);
    });

    it("close() rejects pending requests, is idempotent and leaves nothing running", async () => {
      const client = await connect();
      const pending = client.callTool("sleep", { ms: 10_000 });
      // Observed before close() is awaited: closing a real peer takes time, and a rejection left
      // unobserved meanwhile is reported as unhandled.
      const pendingFailure = failure(pending);
      await Promise.all([client.close(), client.close()]);
      expect((await pendingFailure).reason).toBe("DISCONNECTED");
      expect((await client.ended).error).toBeUndefined();
      await target.assertNothingRunning?.(client);
    });
  });
}
