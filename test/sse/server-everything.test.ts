/**
 * A real peer: @modelcontextprotocol/server-everything in its legacy HTTP+SSE mode (GET /sse,
 * POST /message), started as a child process on 127.0.0.1. Reached by its `/sse` URL (the legacy
 * transport directly) and from its base URL (Streamable HTTP first, then the fallback).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connect, LEGACY_REVISIONS, type McpClient } from "../../src/index.js";

const fixture = fileURLToPath(new URL("../fixtures/everything-http.mjs", import.meta.url));
/** How long the server may take to start on a loaded machine. */
const START_TIMEOUT_MS = 20_000;

let child: ChildProcess | undefined;
let origin = "";
const clients: McpClient[] = [];

beforeAll(async () => {
  child = spawn(process.execPath, [fixture, "sse"], { stdio: ["ignore", "ignore", "pipe"] });
  origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server-everything did not start")), START_TIMEOUT_MS);
    let seen = "";
    child!.stderr!.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const match = /mcpwire-fixture listening (\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${match[1]}`);
      }
    });
    child!.once("exit", (code) => reject(new Error(`server-everything exited with ${code}`)));
  });
}, START_TIMEOUT_MS + 5_000);

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child!.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
});

async function connected(target: string): Promise<McpClient> {
  const client = await connect(target, { timeoutMs: 20_000 });
  clients.push(client);
  return client;
}

describe("server-everything over legacy HTTP+SSE", () => {
  it("is reached by its /sse URL: handshake, tools, progress on the stream", async () => {
    const client = await connected(`${origin}/sse`);
    expect(client.transportKind).toBe("sse");
    expect(client.era).toBe("legacy");
    expect(LEGACY_REVISIONS).toContain(client.protocolVersion);
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["echo", "get-sum", "trigger-long-running-operation"]));
    const echo = await client.callTool("echo", { message: "héllo ✓" });
    expect(JSON.stringify(echo.content)).toContain("héllo ✓");
    const seen: number[] = [];
    const result = await client.callTool(
      "trigger-long-running-operation",
      { duration: 0.3, steps: 3 },
      { onProgress: (progress) => seen.push(progress.progress) },
    );
    expect(result.isError ?? false).toBe(false);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("is reached by fallback from its base URL, and answers 20 concurrent calls", async () => {
    const client = await connected(`${origin}/`);
    expect(client.session.transport.kind).toBe("streamable-http");
    expect(client.transportKind).toBe("sse");
    expect(client.era).toBe("legacy");
    const sums = await Promise.all(Array.from({ length: 20 }, (_, i) => client.callTool("get-sum", { a: i, b: 1 })));
    sums.forEach((sum, i) => expect(JSON.stringify(sum.content)).toContain(String(i + 1)));
    expect((await client.listPrompts()).length).toBeGreaterThan(0);
    await client.close();
    expect((await client.ended).error).toBeUndefined();
  });
});
