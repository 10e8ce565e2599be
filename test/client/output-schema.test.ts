/**
 * Checked structured output (server/tools, "Output Schema"), against a real server over stdio
 * and Streamable HTTP: a result is checked against its tool's `outputSchema` from the latest tool
 * list; a mismatch, or no `structuredContent`, is PROTOCOL of kind `output_schema`.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as JsonSchemaValidator from "@cfworker/json-schema";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { aiTools } from "../../src/ai.js";
import { connect, type ConnectOptions, type McpClient } from "../../src/index.js";
import { failure } from "../helpers/failure.js";
import { startHttpFixture } from "../helpers/http-fixture.js";

// Counts compilations: the client builds each schema's lookup once, with `dereference`.
const compilations = vi.hoisted(() => ({ count: 0 }));
vi.mock("@cfworker/json-schema", async (importOriginal) => {
  const real = await importOriginal<typeof JsonSchemaValidator>();
  return {
    ...real,
    dereference: (...args: Parameters<typeof real.dereference>) => {
      compilations.count++;
      return real.dereference(...args);
    },
  };
});

const node = JSON.stringify(process.execPath);
const stdioServer = `${node} --import tsx test/fixtures/output-schema-server.ts stdio`;


let http: { url: string; child: ChildProcess };
beforeAll(async () => {
  http = await startHttpFixture("test/fixtures/output-schema-server.ts", "http");
});
afterAll(() => {
  http.child.kill("SIGTERM");
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function listCount(client: McpClient): Promise<number> {
  const result = await client.callTool("list_count");
  return Number((result.content[0] as { text: string }).text);
}

describe.each([
  ["stdio", () => stdioServer],
  ["Streamable HTTP", () => http.url],
])("output schemas over %s", (_, target) => {
  const open = (options: ConnectOptions = {}) => connect(target(), options);

  it("passes a result that conforms, after one listing for a tool not listed yet", async () => {
    await using client = await open();
    const result = await client.callTool("matching");
    expect(result.structuredContent).toEqual({ count: 2, items: ["a", "b"] });
    expect((await client.callTool("local_ref")).structuredContent).toEqual({ at: { x: 1, y: 2 } });
    expect((await client.callTool("draft7")).structuredContent).toEqual({ pair: ["a", 1] });
    expect(await listCount(client)).toBe(1);
  });

  it("lists nothing more when the tools were listed already", async () => {
    await using client = await open();
    await client.listTools();
    await client.callTool("matching");
    expect(await listCount(client)).toBe(1);
  });

  it("fails PROTOCOL, kind output_schema, naming the tool and the first failing path", async () => {
    await using client = await open();
    const mismatch = await failure(client.callTool("mismatching"));
    expect(mismatch).toMatchObject({ reason: "PROTOCOL", kind: "output_schema", method: "tools/call" });
    expect(mismatch.message).toContain('callTool "mismatching" returned structuredContent that does not match');
    expect(mismatch.message).toContain("at /items/1 (keyword type)");

    const throughRef = await failure(client.callTool("local_ref", { broken: true }));
    expect(throughRef).toMatchObject({ reason: "PROTOCOL", kind: "output_schema" });
    expect(throughRef.message).toContain("at /at/y (keyword type)");
  });

  it("fails when a tool that declares a schema returns no structuredContent", async () => {
    await using client = await open();
    const missing = await failure(client.callTool("no_structured"));
    expect(missing).toMatchObject({ reason: "PROTOCOL", kind: "output_schema" });
    expect(missing.message).toContain('callTool "no_structured" returned no structuredContent, though the tool declares an outputSchema');
  });

  it("does not check an isError result", async () => {
    await using client = await open();
    const result = await client.callTool("tool_error");
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "the tool failed" }] });
  });

  it("never fetches a remote $ref: the call fails saying so", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    await using client = await open();
    const remote = await failure(client.callTool("remote_ref"));
    expect(remote).toMatchObject({ reason: "PROTOCOL", kind: "output_schema" });
    expect(remote.message).toContain("has a $ref at /properties/a/$ref to a schema that is not within it");
    expect(remote.message).toContain("remote ones are never fetched");
    expect(remote.message).not.toContain("example.invalid");
    for (const [request] of fetchSpy.mock.calls) expect(String(request instanceof Request ? request.url : request)).not.toContain("example.invalid");
  });

  it("validateOutput: false, for the client or for one call, passes the result through", async () => {
    await using unchecked = await open({ validateOutput: false });
    expect((await unchecked.callTool("mismatching")).structuredContent).toEqual({ count: 2, items: ["a", 7] });
    expect((await unchecked.callTool("no_structured")).content).toEqual([{ type: "text", text: "no structure" }]);
    // Nothing was listed for checks that are off.
    expect(await listCount(unchecked)).toBe(0);
    expect(await failure(unchecked.callTool("mismatching", {}, { validateOutput: true }))).toMatchObject({ kind: "output_schema" });

    await using checked = await open();
    expect((await checked.callTool("mismatching", {}, { validateOutput: false })).structuredContent).toEqual({ count: 2, items: ["a", 7] });
    expect(await failure(checked.callTool("mismatching"))).toMatchObject({ kind: "output_schema" });
  });

  it("compiles each tool's schema once, and again after notifications/tools/list_changed", async () => {
    await using client = await open();
    compilations.count = 0;
    for (let i = 0; i < 3; i++) await client.callTool("matching");
    await client.callTool("versioned");
    expect(compilations.count).toBe(2);
    // A listing that reads the same keeps what was compiled.
    await client.listTools();
    await client.callTool("versioned");
    expect(compilations.count).toBe(2);
    expect(await listCount(client)).toBe(2);

    const changed = new Promise<void>((resolve) => client.onToolsListChanged(resolve));
    await client.callTool("bump_schema");
    await changed;
    // The schema now requires v2: the stale compiled one would have passed.
    const stale = await failure(client.callTool("versioned"));
    expect(stale).toMatchObject({ kind: "output_schema" });
    expect(stale.message).toContain("at the root of structuredContent (keyword required)");
    expect(compilations.count).toBe(3);
    expect(await listCount(client)).toBe(3);
  });

  it("one listing serves calls made together", async () => {
    await using client = await open();
    await Promise.all([client.callTool("matching"), client.callTool("local_ref"), client.callTool("draft7")]);
    expect(await listCount(client)).toBe(1);
  });

  it("the agent adapters get the same check: the model reads a failure in our words", async () => {
    await using client = await open();
    const tools = await aiTools(client);
    const output = await (tools.mismatching!.execute!({}, { toolCallId: "c", messages: [] }) as unknown as Promise<Record<string, unknown>>);
    expect(output).toMatchObject({ isError: true, failure: { kind: "PROTOCOL", retryable: false } });
    expect(JSON.stringify(output)).toContain("does not match its declared output schema");
    const passed = await (tools.matching!.execute!({}, { toolCallId: "d", messages: [] }) as unknown as Promise<Record<string, unknown>>);
    expect(passed).toMatchObject({ isError: false, structuredContent: { count: 2, items: ["a", "b"] } });
  });
});

describe("output schemas across a reconnection", () => {
  it("forgets them when the client reconnects: the server may have changed while it was away", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpwire-reconnect-"));
    try {
      // Each start of the server is counted in this file; its `versioned` schema requires v<start>.
      const restarting = `${stdioServer} ${JSON.stringify(join(dir, "starts"))}`;
      await using client = await connect(restarting, { reconnect: { initialDelayMs: 10 } });
      expect((await client.callTool("versioned")).structuredContent).toEqual({ v1: true });
      expect(await listCount(client)).toBe(1);
      const reconnected = new Promise<void>((resolve) => client.onReconnected(resolve));

      expect(await failure(client.callTool("exit"))).toMatchObject({ reason: "DISCONNECTED" });
      await reconnected;
      // The restarted server sent no list_changed; its schema now requires v2. The schema kept from
      // before the drop would have passed this result.
      const stale = await failure(client.callTool("versioned"));
      expect(stale).toMatchObject({ reason: "PROTOCOL", kind: "output_schema" });
      expect(stale.message).toContain("at the root of structuredContent (keyword required)");
      // Listed again, once, from the new server.
      expect(await listCount(client)).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("validateOutput is checked where it is given", () => {
  it("refuses a value that is not a boolean", async () => {
    await expect(connect(stdioServer, { validateOutput: "yes" as unknown as boolean })).rejects.toThrow('"validateOutput" must be true or false');
    await using client = await connect(stdioServer);
    await expect(client.callTool("matching", {}, { validateOutput: 1 as unknown as boolean })).rejects.toThrow(
      '"validateOutput" must be true or false',
    );
  });
});
