/**
 * Shared by the children tests: the servers they run as children, a sink that records what a
 * request got, and cleanup that stops every child a test started, pass or fail.
 */
import { setMaxListeners } from "node:events";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";
import type { McpTransportError } from "../../../src/errors.js";
import { defaultEnvAllow } from "../../../src/transport/stdio/stdio.js";
import type { ChildCommand } from "../../../src/gateway/children/index.js";
import type { RequestSink } from "../../../src/gateway/relay.js";
import type { JsonRpcMessage, JsonRpcRequest, JsonRpcResponse } from "../../../src/protocol/jsonrpc.js";

export { isRunning, runningInGroup, eventually } from "../../stdio/helpers.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const FIXTURES = fileURLToPath(new URL("../../fixtures/", import.meta.url));

/** Short waits for the close ladder: the tests are about the steps, not about patience. */
export const FAST_LADDER = { stdinCloseGraceMs: 300, terminateGraceMs: 600 } as const;

function nodeCommand(args: string[], env: Record<string, string> = {}): ChildCommand {
  return { command: process.execPath, args, env, envAllow: [...defaultEnvAllow()] };
}

/** The echoing fixture of these tests (test/fixtures/stdio-gateway-echo.mjs). */
export function echoServer(...flags: string[]): ChildCommand {
  return nodeCommand([FIXTURES + "stdio-gateway-echo.mjs", ...flags]);
}

/** One of the stdio transport's misbehaving fixtures. */
export function stdioFixture(name: string, ...args: string[]): ChildCommand {
  return nodeCommand([FIXTURES + name, ...args]);
}

/** @modelcontextprotocol/server-everything over stdio, run directly (not through npx). */
export function everythingServer(): ChildCommand {
  return nodeCommand([ROOT + "node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"]);
}

/** @modelcontextprotocol/server-memory, each child with its own memory file. */
export function memoryServer(file: string): ChildCommand {
  return nodeCommand([ROOT + "node_modules/@modelcontextprotocol/server-memory/dist/index.js"], { MEMORY_FILE_PATH: file });
}

/** The 2026-07-28 fixture on the official v2 server package. */
export function modernServer(): ChildCommand {
  return nodeCommand(["--import", "tsx", FIXTURES + "modern-server.ts", "stdio"]);
}

/** What one request got: its messages, and a promise of how it ended. */
export interface Recorded {
  sink: RequestSink;
  messages: JsonRpcMessage[];
  /** The answer, or the failure: whichever came (the sink is settled once). */
  settled: Promise<{ answer?: JsonRpcResponse; error?: McpTransportError }>;
  /** How many times answer or failed was called (must stay at most 1). */
  calls: () => number;
}

export function recorder(): Recorded {
  const messages: JsonRpcMessage[] = [];
  let calls = 0;
  let settle!: (value: { answer?: JsonRpcResponse; error?: McpTransportError }) => void;
  const settled = new Promise<{ answer?: JsonRpcResponse; error?: McpTransportError }>((resolve) => (settle = resolve));
  return {
    messages,
    settled,
    calls: () => calls,
    sink: {
      message: (message) => messages.push(message),
      answer: (answer) => {
        calls++;
        settle({ answer });
      },
      failed: (error) => {
        calls++;
        settle({ error });
      },
    },
  };
}

/** A request as a caller sends it. */
export function call(id: string | number, method: string, params?: Record<string, unknown>): JsonRpcRequest {
  return params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
}

/** The result of an answer that must be a success. */
export function resultOf(outcome: { answer?: JsonRpcResponse; error?: McpTransportError }): Record<string, unknown> {
  if (outcome.error) throw outcome.error;
  if (!outcome.answer || !("result" in outcome.answer)) throw new Error(`expected a result, got ${JSON.stringify(outcome.answer)}`);
  return outcome.answer.result;
}

/** Closes what a test opened after it, and kills any process group left (which a passing test never leaves). */
export function useCleanup(): { own<T extends { close(): Promise<unknown> }>(thing: T): T; pids(list: () => readonly number[]): void } {
  const owned: { close(): Promise<unknown> }[] = [];
  const groups: (() => readonly number[])[] = [];
  afterEach(async () => {
    const seen = groups.splice(0).flatMap((list) => list());
    await Promise.allSettled(owned.splice(0).reverse().map((thing) => thing.close()));
    for (const pid of seen) {
      for (const target of [-pid, pid]) {
        try {
          process.kill(target, "SIGKILL");
        } catch {
          // gone already, as it should be
        }
      }
    }
  });
  return {
    own: (thing) => {
      owned.push(thing);
      return thing;
    },
    pids: (list) => groups.push(list),
  };
}

/** A signal that never aborts, shared by many requests (each adds its listener). */
export const never = new AbortController().signal;
setMaxListeners(0, never);
