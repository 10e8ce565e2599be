/**
 * The contract suite: the tests every transport of mcpwire passes, for any transport, in any test
 * runner with `describe` and `it` (vitest, `node:test`, Jest, Mocha). It asserts with
 * `node:assert`, closes every client it opened at the end of each test, and bounds each test
 * with a deadline of its own, so that a transport that hangs fails instead of stalling the run.
 *
 * The transport under test reaches a contract server: `createContractServer()` (served on the
 * server side of your wire), or any server with the same tools.
 */
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { McpClient, type ClientOptions } from "../client/client.js";
import { McpTransportError } from "../errors.js";
import type { McpTransport } from "../transport/transport.js";

/** The runner's `describe`: vitest's and `node:test`'s fit. */
export type ContractDescribe = (name: string, body: () => void) => unknown;
/** The runner's `it` (or `test`): vitest's and `node:test`'s fit. */
export type ContractIt = (name: string, body: () => Promise<void>) => unknown;

export interface TransportContractOptions {
  /** Shown in test titles: "contract: unix-socket". */
  name: string;
  /** The runner's `describe`. */
  describe: ContractDescribe;
  /** The runner's `it`. */
  it: ContractIt;
  /** A fresh transport to a contract server; called once or more per test. */
  transport(): McpTransport | Promise<McpTransport>;
  /** A transport whose server cannot be reached or started: opening it must fail with UNAVAILABLE. */
  unavailable(): McpTransport | Promise<McpTransport>;
  /**
   * Proves that nothing of the test's last connection is left running (processes, sockets),
   * after it was closed; throw (or reject) if something is.
   */
  assertNothingRunning?(client: McpClient): void | Promise<void>;
  /**
   * Whether a message received past `maxMessageBytes` ends the whole connection (a wire that is
   * one stream of messages: stdio, WebSocket, a socket) or only fails its request (a stream per
   * request: HTTP). @default true
   */
  limitEndsConnection?: boolean;
  /** The era the contract server speaks (`createContractServer()`: legacy). @default "legacy" */
  era?: "legacy" | "modern";
  /** Each test's deadline, in ms: past it the test fails saying so. @default 20_000 */
  testTimeoutMs?: number;
}

/** Registers the contract suite's tests with the runner's `describe` and `it`. */
export function transportContract(options: TransportContractOptions): void {
  const { describe, it } = options;
  const limitEndsConnection = options.limitEndsConnection ?? true;
  const era = options.era ?? "legacy";
  const deadlineMs = options.testTimeoutMs ?? 20_000;

  /** One test: its clients, closed at its end whatever happened, within its deadline. */
  const test = (title: string, body: (connect: (clientOptions?: ClientOptions) => Promise<McpClient>) => Promise<void>) =>
    it(title, async () => {
      const clients: McpClient[] = [];
      const connect = async (clientOptions: ClientOptions = {}) => {
        const client = await McpClient.connect(await options.transport(), clientOptions);
        clients.push(client);
        return client;
      };
      let failed = false;
      try {
        await within(deadlineMs, `contract: ${options.name}: "${title}"`, body(connect));
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        const closing = within(deadlineMs, `contract: ${options.name}: closing the clients of "${title}"`, Promise.all(clients.map((client) => client.close())));
        // The test's own failure is the one to report; a close that fails too would hide it.
        if (failed) await closing.catch(() => {});
        else await closing;
      }
    });

  describe(`contract: ${options.name}`, () => {
    test("makes a round trip: handshake, list, call", async (connect) => {
      const client = await connect();
      assert.equal(client.serverInfo.name, "contract-server");
      assert.equal(client.era, era);
      assert.equal(client.protocolVersion, era === "modern" ? "2026-07-28" : "2025-11-25");
      const tools = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === "echo"), "the tool list has echo");
      const result = await client.callTool("echo", { text: "héllo ✓" });
      assert.deepEqual(result.content, [{ type: "text", text: "héllo ✓" }]);
    });

    test("matches 100 concurrent requests to their responses", async (connect) => {
      const client = await connect();
      const texts = Array.from({ length: 100 }, (_, i) => `call-${i}-${"é".repeat(i)}`);
      const results = await Promise.all(texts.map((text) => client.callTool("echo", { text })));
      assert.deepEqual(results.map(textOf), texts);
    });

    test("answers server-to-client requests through the handlers", async (connect) => {
      const client = await connect({
        handlers: {
          roots: [{ uri: "file:///work", name: "work" }],
          elicitation: () => ({ action: "accept", content: { name: "Ada" } }),
        },
      });
      const roots = await client.callTool("ask_roots");
      assert.deepEqual(JSON.parse(textOf(roots)), [{ uri: "file:///work", name: "work" }]);
      const form = await client.callTool("ask_elicitation");
      // The handler omitted "team"; the schema's default fills it.
      assert.deepEqual(JSON.parse(textOf(form)), { action: "accept", content: { name: "Ada", team: "support" } });
    });

    test("delivers progress notifications for a request", async (connect) => {
      const client = await connect();
      const seen: number[] = [];
      const result = await client.callTool("progress", { steps: 3, ms: 5 }, { onProgress: (progress) => seen.push(progress.progress) });
      assert.deepEqual(result.content, [{ type: "text", text: "done 3" }]);
      assert.deepEqual(seen, [1, 2, 3]);
    });

    test("maxMessageBytes: a reply past the ceiling fails with LIMIT", async (connect) => {
      const client = await connect({ maxMessageBytes: 64 * 1024 });
      const error = await failure(client.callTool("blob", { bytes: 100_000 }));
      assert.equal(error.reason, "LIMIT");
      assert.equal(error.limitBytes, 64 * 1024);
      if (limitEndsConnection) {
        assert.equal((await client.ended).error?.reason, "LIMIT", "the connection ends with LIMIT");
      } else {
        await client.callTool("echo", { text: "still here" });
      }
    });

    test("maxMessageBytes: a request past the ceiling fails with LIMIT before it is sent", async (connect) => {
      const client = await connect({ maxMessageBytes: 64 * 1024 });
      const error = await failure(client.callTool("echo", { text: "y".repeat(100_000) }));
      assert.equal(error.reason, "LIMIT");
      await client.callTool("echo", { text: "small" });
    });

    test("readTimeoutMs: a server that stays silent while a request waits fails it with TIMEOUT", async (connect) => {
      const client = await connect({ readTimeoutMs: 300, timeoutMs: 20_000 });
      const error = await failure(client.callTool("silent"));
      assert.equal(error.reason, "TIMEOUT");
      assert.equal(error.retryable, true);
      assert.equal(error.timeoutMs, 300, "the read-stall ceiling, not the request's timeout, fired");
    });

    test("timeoutMs: a request that takes too long fails with TIMEOUT and the connection stays usable", async (connect) => {
      const client = await connect();
      const error = await failure(client.callTool("sleep", { ms: 10_000 }, { timeoutMs: 200 }));
      assert.equal(error.reason, "TIMEOUT");
      assert.equal(error.timeoutMs, 200);
      assert.match(error.message, /callTool "sleep" timed out after 200 ms/);
      await client.callTool("echo", { text: "after" });
    });

    test("maxInFlight: further requests wait for a slot, in order", async (connect) => {
      const client = await connect({ maxInFlight: 2 });
      const calls = [0, 1, 2, 3].map((i) => client.callTool("sleep", { ms: 50 + i }));
      assert.deepEqual(client.session.load, { inFlight: 2, waiting: 2 });
      const results = await Promise.all(calls);
      assert.deepEqual(results.map(textOf), ["slept 50", "slept 51", "slept 52", "slept 53"]);
      assert.deepEqual(client.session.load, { inFlight: 0, waiting: 0 });
    });

    test("maxInFlight: the wait for a slot counts against the request's timeout", async (connect) => {
      const client = await connect({ maxInFlight: 1 });
      const first = client.callTool("sleep", { ms: 1_000 });
      const error = await failure(client.callTool("echo", { text: "queued" }, { timeoutMs: 150 }));
      assert.equal(error.reason, "TIMEOUT");
      await first;
    });

    test("an aborted request rejects with the signal's reason and leaves no listener", async (connect) => {
      const client = await connect();
      const longLived = new AbortController();
      for (let i = 0; i < 3; i++) await client.callTool("echo", { text: `${i}` }, { signal: longLived.signal });
      assert.equal(getEventListeners(longLived.signal, "abort").length, 0, "no listener left on a signal after its calls");

      const controller = new AbortController();
      const call = client.callTool("sleep", { ms: 10_000 }, { signal: controller.signal });
      const reason = new Error("user gave up");
      setTimeout(() => controller.abort(reason), 20);
      assert.equal(await rejection(call), reason);
      await client.callTool("echo", { text: "after abort" });
    });

    test("a JSON-RPC error is PROTOCOL with its code, and the server's text stays out of the message", async (connect) => {
      const client = await connect();
      const error = await failure(client.readResource("contract://nothing"));
      assert.equal(error.reason, "PROTOCOL");
      assert.equal(error.retryable, false);
      assert.equal(typeof error.code, "number");
      assert.ok(error.serverMessage, "the server's text is kept on serverMessage");
      assert.ok(!error.message.includes(error.serverMessage), "the server's text is not in the message");
    });

    test("a server that goes away fails pending requests with DISCONNECTED", async (connect) => {
      const client = await connect();
      const pending = client.callTool("sleep", { ms: 10_000 });
      const crash = client.callTool("crash");
      const [pendingError, crashError] = await Promise.all([failure(pending), failure(crash)]);
      assert.equal(pendingError.reason, "DISCONNECTED");
      assert.equal(crashError.reason, "DISCONNECTED");
      assert.equal((await client.ended).error?.reason, "DISCONNECTED");
      const after = await failure(client.callTool("echo", { text: "too late" }));
      assert.equal(after.reason, "DISCONNECTED");
    });

    test("a server that cannot be reached fails with UNAVAILABLE", async () => {
      const error = await failure(McpClient.connect(await options.unavailable(), { timeoutMs: 10_000 }));
      assert.equal(error.reason, "UNAVAILABLE");
      assert.equal(error.retryable, true);
    });

    test("close() rejects pending requests, is idempotent and leaves nothing running", async (connect) => {
      const client = await connect();
      const pending = client.callTool("sleep", { ms: 10_000 });
      // Observed before close() is awaited: closing a real peer takes time, and a rejection left
      // unobserved meanwhile is reported as unhandled.
      const pendingFailure = failure(pending);
      await Promise.all([client.close(), client.close()]);
      assert.equal((await pendingFailure).reason, "DISCONNECTED");
      assert.equal((await client.ended).error, undefined, "a connection we closed ends without an error");
      await options.assertNothingRunning?.(client);
    });
  });
}

function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

/** What `promise` rejected with; a result fails the test. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail("expected a rejection, got a result"),
    (error: unknown) => error,
  );
}

/** The failure of `promise`, which must be an McpTransportError. */
async function failure(promise: Promise<unknown>): Promise<McpTransportError> {
  const error = await rejection(promise);
  assert.ok(error instanceof McpTransportError, `expected an McpTransportError, got ${String(error)}`);
  return error;
}

/** `work`, or a failure naming `what` once `ms` have passed without it settling. */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
