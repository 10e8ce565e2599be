/**
 * A real peer: @modelcontextprotocol/server-everything in its Streamable HTTP mode (SSE replies,
 * sessions, an event store for resumption), started as a child process on 127.0.0.1.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp } from "./helpers.js";

const fixture = fileURLToPath(new URL("../fixtures/everything-http.mjs", import.meta.url));
/** How long the server may take to start on a loaded machine. */
const START_TIMEOUT_MS = 20_000;

let child: ChildProcess | undefined;
let url = "";

beforeAll(async () => {
  child = spawn(process.execPath, [fixture], { stdio: ["ignore", "ignore", "pipe"] });
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server-everything did not start")), START_TIMEOUT_MS);
    let seen = "";
    child!.stderr!.on("data", (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      const match = /mcpwire-fixture listening (\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${match[1]}/mcp`);
      }
    });
    child!.once("exit", (code) => reject(new Error(`server-everything exited with ${code}`)));
  });
}, START_TIMEOUT_MS + 5_000);

afterAll(async () => {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child!.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
});

describe("server-everything over Streamable HTTP", () => {
  it("handshakes, lists and calls tools", async () => {
    const client = await connectHttp(url);
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.session.sessionId).toMatch(/^[\x21-\x7E]+$/);
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["echo", "get-sum", "trigger-long-running-operation"]));
    const echo = await client.callTool("echo", { message: "héllo ✓" });
    expect(JSON.stringify(echo.content)).toContain("héllo ✓");
    const sum = await client.callTool("get-sum", { a: 2, b: 40 });
    expect(JSON.stringify(sum.content)).toContain("42");
  });

  it("streams progress notifications on the reply stream before the result", async () => {
    const client = await connectHttp(url);
    const seen: number[] = [];
    const result = await client.callTool(
      "trigger-long-running-operation",
      { duration: 0.3, steps: 3 },
      { onProgress: (progress) => seen.push(progress.progress) },
    );
    expect(result.isError ?? false).toBe(false);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("answers 20 concurrent calls, reads resources and prompts, and ends its session on close", async () => {
    const client = await connectHttp(url);
    const sums = await Promise.all(Array.from({ length: 20 }, (_, i) => client.callTool("get-sum", { a: i, b: 1 })));
    sums.forEach((sum, i) => expect(JSON.stringify(sum.content)).toContain(String(i + 1)));
    const resources = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const read = await client.readResource(resources[0]!.uri);
    expect(read.contents.length).toBeGreaterThan(0);
    expect((await client.listPrompts()).length).toBeGreaterThan(0);
    await client.close();
    expect((await client.ended).error).toBeUndefined();
  });
});
