/**
 * The client's options of the wrong kind are refused by `connect()` before anything is spawned or
 * sent: a TypeError naming the option, what it got and what it takes. Before, `clientInfo: "x"`
 * or `capabilities: "all"` went into `initialize` (a server answers -32603, or nothing useful),
 * and an unknown `protocolVersion` or `era` silently changed what the client did.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type ConnectOptions } from "../../src/index.js";
import { startEndpoint, type ScriptedEndpoint } from "../fixtures/http-endpoint.js";
import { rejection } from "../helpers/failure.js";
import { FIXTURES } from "../stdio/helpers.js";

/** Option, bad value, what the message must say (the option, what was given, what is taken). */
const CASES: [string, ConnectOptions, string[]][] = [
  ["clientInfo as a string", { clientInfo: "x" }, ['options: "clientInfo" must be { name: string, version: string', 'got "x"']],
  ["clientInfo.name as a number", { clientInfo: { name: 5, version: "1" } }, ['"clientInfo.name" must be a string', "got 5"]],
  ["clientInfo without a version", { clientInfo: { name: "app" } }, ['"clientInfo.version" must be a string', "got undefined"]],
  ["clientInfo.title as a number", { clientInfo: { name: "app", version: "1", title: 3 } }, ['"clientInfo.title" must be a string', "got 3"]],
  ["capabilities as a string", { capabilities: "all" }, ['options: "capabilities" must be an object', 'got "all"']],
  ["capabilities as an array", { capabilities: ["sampling"] }, ['"capabilities" must be an object', "got an array"]],
  ["capabilities.roots as true", { capabilities: { roots: true } }, ['"capabilities.roots" must be an object', "got true"]],
  ["protocolVersion as a number", { protocolVersion: 2025 }, ['options: "protocolVersion" must be one of "auto", "legacy", "modern", "2025-11-25"', "got 2025"]],
  ["protocolVersion of a revision nobody speaks", { protocolVersion: "2099-01-01" }, ['"protocolVersion" must be one of', 'got "2099-01-01"']],
  ["era of a name that is no era", { era: "old" }, ['options: "era" must be "legacy" or "modern"', 'got "old"']],
  ["maxInputRounds as a string", { maxInputRounds: "8" }, ['options: "maxInputRounds" must be a whole number from 1', 'got "8"']],
  ["maxInputRounds negative", { maxInputRounds: -1 }, ['"maxInputRounds" must be a whole number from 1', "got -1"]],
  ["signal as a string", { signal: "stop" }, ['options: "signal" must be an AbortSignal', 'got "stop"']],
  ["reconnect as a string", { reconnect: "yes" }, ['options: "reconnect" must be true, false or { maxAttempts?, initialDelayMs?, maxDelayMs? }', 'got "yes"']],
  ["reconnect with a misspelt key", { reconnect: { maxAttempt: 3 } }, ['unknown key "reconnect.maxAttempt" (did you mean "maxAttempts"?)']],
  ["a root that is not an object", { handlers: { roots: ["file:///tmp"] } }, ["options.handlers.roots[0] must be a root { uri: string, name?: string }", 'got "file:///tmp"']],
  ["a root whose uri is not a string", { handlers: { roots: [{ uri: 7 }] } }, ["options.handlers.roots[0].uri must be a file:// URI", "got 7"]],
  // client/roots, "Root": the uri "MUST be a file:// URI in the current specification".
  ["a root whose uri is not a file:// URI", { handlers: { roots: [{ uri: "file:///a" }, { uri: "https://example.com/repo" }] } }, ["options.handlers.roots[1].uri must be a file:// URI", 'got "https://example.com/repo"']],
].map(([title, options, parts]) => [title as string, options as ConnectOptions, parts as string[]]);

async function refusal(promise: Promise<unknown>): Promise<TypeError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(TypeError);
  return error as TypeError;
}

describe("connect() refuses client options of the wrong kind before anything is spawned", () => {
  const dir = mkdtempSync(join(tmpdir(), "mcpwire-option-values-"));

  it.each(CASES)("%s", async (title, options, parts) => {
    // The server would leave this file behind the moment it was spawned.
    const marker = join(dir, title.replaceAll(/\W+/g, "-"));
    const server = { name: "s", transport: "stdio" as const, command: "sh", args: ["-c", 'echo spawned > "$0"; exec "$1" "$2"', marker, process.execPath, `${FIXTURES}era-stdio-server.mjs`] };
    const error = await refusal(connect(server, options));
    for (const part of parts) expect(error.message).toContain(part);
    expect(existsSync(marker)).toBe(false);
  });

  it("still connects with good values of the same options", async () => {
    const marker = join(dir, "good-values");
    const server = { name: "s", transport: "stdio" as const, command: "sh", args: ["-c", 'echo spawned > "$0"; exec "$1" "$2"', marker, process.execPath, `${FIXTURES}era-stdio-server.mjs`] };
    const client = await connect(server, {
      clientInfo: { name: "app", version: "1.0.0", title: "App" },
      capabilities: { experimental: { trace: {} }, roots: undefined },
      protocolVersion: "2025-11-25",
      era: "legacy",
      maxInputRounds: 2,
      signal: new AbortController().signal,
      reconnect: { maxAttempts: 2 },
      handlers: { roots: [{ uri: "file:///tmp", name: "tmp" }] },
    });
    try {
      expect(client.protocolVersion).toBe("2025-11-25");
      expect(existsSync(marker)).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe("connect() refuses them before anything is sent over HTTP", () => {
  let endpoint: ScriptedEndpoint;
  beforeAll(async () => {
    endpoint = await startEndpoint();
  });
  afterAll(() => endpoint.close());

  it("sends no request for any of them", async () => {
    for (const [, options, parts] of CASES) {
      const error = await refusal(connect(endpoint.url, options));
      expect(error.message).toContain(parts[0]);
    }
    expect(endpoint.requests).toHaveLength(0);
  });
});
