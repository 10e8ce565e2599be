/** Servers that misbehave, one per case, each a real process (test/fixtures/stdio-*.mjs). */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  McpTransportError,
  StdioTransport,
  connect,
  resolveLimits,
  type ConnectionEnding,
  type JsonRpcMessage,
  type McpConnection,
} from "../../src/index.js";
import { FIXTURES, eventually, failure, firstText, fixture, runningInGroup, useCleanup } from "./helpers.js";

const cleanup = useCleanup();

/** A raw connection (no session, no handshake), recording what it receives. */
async function openRaw(transport: StdioTransport, limits = resolveLimits({})) {
  cleanup.track(transport);
  const received: JsonRpcMessage[] = [];
  let markClosed!: (ending: ConnectionEnding) => void;
  const closed = new Promise<ConnectionEnding>((resolve) => (markClosed = resolve));
  const connection: McpConnection = await transport.open(
    { message: (message) => received.push(message), requestFailed: () => {}, closed: (ending) => markClosed(ending) },
    { limits },
  );
  return { connection, received, closed };
}

const call = (id: number, name: string, args: Record<string, unknown> = {}): JsonRpcMessage => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

describe("a server that exits mid-call", () => {
  it("fails every pending request at once with DISCONNECTED, the exit code and the stderr tail", async () => {
    const client = await cleanup.connect(fixture("stdio-exits-mid-call.mjs"), { timeoutMs: 25_000 });
    const started = Date.now();
    const pending = failure(client.callTool("sleep"));
    const exiting = failure(client.callTool("exit", { code: 7 }));
    const [pendingError, exitError] = await Promise.all([pending, exiting]);
    for (const error of [pendingError, exitError]) {
      expect(error.reason).toBe("DISCONNECTED");
      expect(error.exitCode).toBe(7);
      expect(error.stderrTail).toContain("fatal: the server gave up");
    }
    // Not by the request's own deadline: the exit itself failed them.
    expect(Date.now() - started).toBeLessThan(20_000);
    const ending = await client.ended;
    expect(ending.error?.reason).toBe("DISCONNECTED");
    expect(ending.exitCode).toBe(7);
    expect(ending.error?.message).toContain("exited with code 7");
    expect((await failure(client.callTool("echo", { text: "late" }))).reason).toBe("DISCONNECTED");
  });

  it("reports the signal when the server is killed", async () => {
    const client = await cleanup.connect(fixture("stdio-exits-mid-call.mjs"));
    const error = await failure(client.callTool("kill", { signal: "SIGKILL" }));
    expect(error.reason).toBe("DISCONNECTED");
    expect(error.signal).toBe("SIGKILL");
    expect(error.exitCode).toBeNull();
  });

  it("ends the connection when the server closes its stdout, and close() stops the process", async () => {
    const transport = fixture("stdio-exits-mid-call.mjs");
    const client = await cleanup.connect(transport);
    const error = await failure(client.callTool("close-stdout"));
    expect(error.reason).toBe("DISCONNECTED");
    await client.close();
    expect(runningInGroup(transport.pid!)).toEqual([]);
  });

  it("a write to a dead child rejects at once with DISCONNECTED", async () => {
    const transport = fixture("stdio-exits-mid-call.mjs");
    const { connection, closed } = await openRaw(transport);
    process.kill(transport.pid!, "SIGKILL");
    const ending = await closed;
    expect(ending.signal).toBe("SIGKILL");
    const error = await failure(connection.send(call(1, "echo", { text: "anyone?" })));
    expect(error.reason).toBe("DISCONNECTED");
    expect(error.signal).toBe("SIGKILL");
    await connection.close();
  });
});

describe("writes and backpressure", () => {
  async function stalledWriter() {
    const transport = fixture("stdio-never-answers.mjs");
    const raw = await openRaw(transport);
    await raw.connection.send(call(1, "stop-reading"));
    await eventually(() => raw.received.length === 1);
    // Big messages until one is not taken by the pipe: it waits for 'drain', which never comes.
    const big = call(2, "echo", { text: "z".repeat(256 * 1024) });
    let waiting: Promise<void> | undefined;
    for (let i = 0; i < 64 && !waiting; i++) {
      const send = raw.connection.send(big);
      const state = await Promise.race([
        send.then(() => "sent"),
        new Promise((resolve) => setTimeout(() => resolve("waiting"), 100)),
      ]);
      if (state === "waiting") waiting = send;
    }
    expect(waiting).toBeDefined();
    return { transport, ...raw, waiting: waiting! };
  }

  it("a send waiting for drain rejects at once when the child dies", async () => {
    const { transport, waiting } = await stalledWriter();
    const outcome = failure(waiting);
    process.kill(transport.pid!, "SIGKILL");
    expect((await outcome).reason).toBe("DISCONNECTED");
  });

  it("a send waiting for drain rejects when the connection is closed", async () => {
    const { connection, waiting } = await stalledWriter();
    const outcome = failure(waiting);
    await connection.close();
    expect((await outcome).reason).toBe("DISCONNECTED");
  });
});

describe("a server that prints an oversized line", () => {
  it("fails with LIMIT as soon as the line crosses maxMessageBytes, then stops the child", async () => {
    const transport = fixture("stdio-oversized-line.mjs");
    const client = await cleanup.connect(transport, { maxMessageBytes: 1024 * 1024 });
    // The line never ends: only a reader that fails at the ceiling, not at the newline, gets here.
    const error = await failure(client.callTool("endless"));
    expect(error.reason).toBe("LIMIT");
    expect(error.limitBytes).toBe(1024 * 1024);
    expect(error.stderrTail).toContain("writing an endless line");
    const ending = await client.ended;
    expect(ending.error?.reason).toBe("LIMIT");
    // Failed closed: the child is stopped without anyone calling close().
    await eventually(() => runningInGroup(transport.pid!).length === 0);
  });

  it("fails a well-formed reply past the ceiling with LIMIT", async () => {
    const client = await cleanup.connect(fixture("stdio-oversized-line.mjs"), { maxMessageBytes: 100_000 });
    expect((await failure(client.callTool("big", { bytes: 200_000 }))).reason).toBe("LIMIT");
  });
});

describe("a server that prints what is not JSON-RPC", () => {
  for (const tool of ["garbage", "not-jsonrpc", "bad-utf8"]) {
    it(`fails closed with PROTOCOL by default (${tool})`, async () => {
      const transport = fixture("stdio-garbage.mjs");
      const client = await cleanup.connect(transport);
      const error = await failure(client.callTool(tool));
      expect(error.reason).toBe("PROTOCOL");
      expect(error.message).not.toContain("this is not json");
      expect(error.message).not.toContain("hello");
      expect((await client.ended).error?.reason).toBe("PROTOCOL");
      await eventually(() => runningInGroup(transport.pid!).length === 0);
    });
  }

  it("fails the connect when a banner comes first", async () => {
    const transport = cleanup.track(fixture("stdio-garbage.mjs", ["--banner"]));
    const error = await failure(connect(transport));
    expect(error.reason).toBe("PROTOCOL");
  });

  it('skips and counts such lines with nonProtocolLines: "skip"', async () => {
    const transport = fixture("stdio-garbage.mjs", ["--banner"], { nonProtocolLines: "skip" });
    const client = await cleanup.connect(transport);
    expect(firstText(await client.callTool("garbage"))).toBe("after garbage");
    expect(firstText(await client.callTool("not-jsonrpc"))).toBe("after not-jsonrpc");
    expect(firstText(await client.callTool("bad-utf8"))).toBe("after bad-utf8");
    expect(transport.skippedLines).toBe(4);
  });

  it("reads a reply written a byte at a time, split inside multi-byte characters", async () => {
    const client = await cleanup.connect(fixture("stdio-garbage.mjs"));
    expect(firstText(await client.callTool("split-write"))).toBe("héllo ✓ 😀");
  });

  it("reads several messages written in one chunk, in order", async () => {
    const client = await cleanup.connect(fixture("stdio-garbage.mjs"));
    const seen: unknown[] = [];
    client.session.onNotification("notifications/message", (params) => seen.push(params.data));
    expect(firstText(await client.callTool("many-in-one"))).toBe("many");
    expect(seen).toEqual([1, 2]);
  });
});

describe("a server that writes a JSON-RPC batch", () => {
  // 2025-03-26, basic/transports: "Messages may be JSON-RPC requests, notifications, responses—or
  // a JSON-RPC batch"; basic, "Batching": implementations "MUST support receiving JSON-RPC batches".
  it("reads each message of the batch, in order, from a server that negotiated 2025-03-26", async () => {
    const client = await cleanup.connect(fixture("stdio-garbage.mjs"), { protocolVersion: "2025-03-26" });
    const seen: unknown[] = [];
    client.session.onNotification("notifications/message", (params) => seen.push(params.data));
    expect(firstText(await client.callTool("batched"))).toBe("in a batch");
    expect(seen).toEqual(["batched"]);
  });

  it("fails closed with PROTOCOL under a revision without batches", async () => {
    const client = await cleanup.connect(fixture("stdio-garbage.mjs"), { protocolVersion: "2025-06-18" });
    expect((await failure(client.callTool("batched"))).reason).toBe("PROTOCOL");
  });
});

describe("a server that never answers", () => {
  it("readTimeoutMs: fails the waiting request with TIMEOUT; the connection stays usable", async () => {
    const client = await cleanup.connect(fixture("stdio-never-answers.mjs"), { readTimeoutMs: 300, timeoutMs: 20_000 });
    const error = await failure(client.callTool("silent"));
    expect(error.reason).toBe("TIMEOUT");
    expect(error.timeoutMs).toBe(300);
    expect(firstText(await client.callTool("echo", { text: "still here" }))).toBe("still here");
  });

  it("readTimeoutMs: the start of the process is not a stall (timeoutMs bounds it)", async () => {
    const client = await cleanup.connect(fixture("stdio-never-answers.mjs", ["--slow-start", "800"]), {
      readTimeoutMs: 200,
      timeoutMs: 20_000,
    });
    expect((await failure(client.callTool("silent"))).reason).toBe("TIMEOUT");
  });

  it("a connect that times out carries the stderr tail: a server that hangs at start often said why there", async () => {
    const transport = cleanup.track(
      new StdioTransport({
        command: process.execPath,
        args: ["-e", "console.error('missing HANDBOOK_KEY'); setInterval(() => {}, 1000)"],
        stdinCloseGraceMs: 100,
      }),
    );
    const error = await failure(connect(transport, { timeoutMs: 3_000 }));
    expect(error.reason).toBe("TIMEOUT");
    expect(error.message).toMatch(/^connecting timed out after 3000 ms/);
    expect(error.stderrTail).toContain("missing HANDBOOK_KEY");
  });

  it("readTimeoutMs: output on stderr is not an answer", async () => {
    const client = await cleanup.connect(fixture("stdio-never-answers.mjs"), { readTimeoutMs: 400, timeoutMs: 20_000 });
    const error = await failure(client.callTool("trickle", { every: 50 }));
    expect(error.reason).toBe("TIMEOUT");
    expect(error.stderrTail).toContain("still thinking");
  });
});

describe("a command that cannot start", () => {
  const dir = mkdtempSync(join(tmpdir(), "mcpwire-stdio-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("not found: UNAVAILABLE naming the command", async () => {
    const error = await failure(connect({ command: "mcpwire-no-such-server" }));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('"mcpwire-no-such-server"');
    expect(error.message).toContain("not found");
  });

  it("a command line given as the command: UNAVAILABLE with a hint to use args", async () => {
    const error = await failure(connect({ command: "npx -y @modelcontextprotocol/server-memory" }));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.message).toContain('"args"');
  });

  it("not executable: UNAVAILABLE naming the command", async () => {
    const script = join(dir, "not-executable.sh");
    writeFileSync(script, "#!/bin/sh\nexit 0\n");
    chmodSync(script, 0o644);
    const error = await failure(connect({ command: script }));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.message).toContain(script);
    expect(error.message).toContain("permission denied");
  });

  it("a working directory that does not exist: UNAVAILABLE naming it", async () => {
    const missing = join(dir, "missing");
    const error = await failure(connect({ command: process.execPath, args: [`${FIXTURES}stdio-print-env.mjs`], cwd: missing }));
    expect(error.reason).toBe("UNAVAILABLE");
    expect(error.message).toContain(missing);
  });

  it("refuses options it does not know, naming them", () => {
    expect(() => new StdioTransport({ command: "node", timeoutMs: 5 } as never)).toThrow(/unknown option "timeoutMs"/);
    expect(() => new StdioTransport({ command: "" })).toThrow(/"command"/);
    expect(() => new StdioTransport({ command: "node", args: "server.js" as never })).toThrow(/"args"/);
    expect(() => new StdioTransport({ command: "node", terminateGraceMs: -1 })).toThrow(/"terminateGraceMs"/);
    expect(() => new StdioTransport({ command: "node", nonProtocolLines: "ignore" as never })).toThrow(/"nonProtocolLines"/);
  });

  it("describes itself by its argv, for error messages", () => {
    const transport = new StdioTransport({ command: "uvx", args: ["handbook-mcp", "--root", "/my docs"] });
    expect(transport.description).toBe('stdio: uvx handbook-mcp --root "/my docs"');
    expect(transport).toBeInstanceOf(StdioTransport);
    expect(new McpTransportError("UNAVAILABLE", "x").retryable).toBe(true);
  });
});
