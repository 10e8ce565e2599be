/**
 * Real servers published on npm, started the way users start them: connect, list tools, call
 * one tool, close, and nothing of their process group is left running.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StdioTransport } from "../../src/index.js";
import { ROOT, firstText, runningInGroup, useCleanup } from "./helpers.js";

const cleanup = useCleanup();
const dir = mkdtempSync(join(tmpdir(), "mcpwire-npm-servers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The package's bin run by node directly (fast, one process). */
function bin(name: string, args: string[], options: { env?: Record<string, string> } = {}): StdioTransport {
  return new StdioTransport({
    command: process.execPath,
    args: [join(ROOT, "node_modules", "@modelcontextprotocol", name, "dist", "index.js"), ...args],
    env: options.env,
    terminateGraceMs: 2_000,
  });
}

describe("servers published on npm", () => {
  it("@modelcontextprotocol/server-everything through npx (npx, a shell and node: one group)", async () => {
    const transport = new StdioTransport({
      command: "npx",
      args: ["--no-install", "mcp-server-everything", "stdio"],
      cwd: ROOT,
      terminateGraceMs: 2_000,
    });
    const client = await cleanup.connect(transport, { timeoutMs: 30_000 });
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("echo");
    const result = await client.callTool("echo", { message: "héllo" });
    expect(firstText(result)).toContain("héllo");
    const pgid = transport.pid!;
    expect(runningInGroup(pgid).length).toBeGreaterThan(1); // npx did start more than itself
    await client.close();
    expect(runningInGroup(pgid)).toEqual([]);
  });

  it("@modelcontextprotocol/server-memory", async () => {
    const memoryFile = join(dir, "memory.jsonl");
    const transport = bin("server-memory", [], { env: { MEMORY_FILE_PATH: memoryFile } });
    const client = await cleanup.connect(transport, { timeoutMs: 30_000 });
    expect((await client.listTools()).map((tool) => tool.name)).toContain("create_entities");
    await client.callTool("create_entities", {
      entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }],
    });
    const graph = await client.callTool("read_graph");
    expect(firstText(graph)).toContain("wrote the first program");
    await client.close();
    expect(runningInGroup(transport.pid!)).toEqual([]);
  });

  it("@modelcontextprotocol/server-filesystem", async () => {
    writeFileSync(join(dir, "note.txt"), "a note in a directory the server may read");
    const transport = bin("server-filesystem", [dir]);
    const client = await cleanup.connect(transport, { timeoutMs: 30_000 });
    expect((await client.listTools()).map((tool) => tool.name)).toContain("read_text_file");
    const result = await client.callTool("read_text_file", { path: join(dir, "note.txt") });
    expect(firstText(result)).toBe("a note in a directory the server may read");
    await client.close();
    expect(runningInGroup(transport.pid!)).toEqual([]);
  });
});
