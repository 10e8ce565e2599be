/**
 * One endpoint, both eras, told apart per POST (basic/transports): a 2026-07-28 caller reaches a
 * pool child, a legacy caller its session's own child (`--legacy session`) or the pool
 * (`--legacy stateless`). Callers: mcpwire itself, the official SDK v1 client and the v2 client.
 */
import { Client as SdkV1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as SdkV1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as SdkV2Client, StreamableHTTPClientTransport as SdkV2Transport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { connect } from "../../../src/index.js";
import { closedAfterEach } from "../../helpers/owned.js";
import { EVERYTHING_TARGET, MODERN_TARGET, startGateway } from "../helpers/gateway-fixture.js";

const own = closedAfterEach(30_000);

describe("2026-07-28 callers reach the pool", () => {
  it("mcpwire calls a tool of the modern server through the gateway", async () => {
    const { url } = own(await startGateway({ target: MODERN_TARGET }));
    const client = own(await connect(url, { protocolVersion: "modern" }));
    expect(client.era).toBe("modern");
    const result = await client.callTool("echo", { text: "through the gateway" });
    expect(result.content).toEqual([{ type: "text", text: "through the gateway" }]);
  }, 60_000);

  it("the official v2 client calls a tool of the modern server", async () => {
    const { url } = own(await startGateway({ target: MODERN_TARGET }));
    const client = new SdkV2Client({ name: "v2", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new SdkV2Transport(new URL(url)));
    own({ close: () => client.close() });
    const result = await client.callTool({ name: "echo", arguments: { text: "v2" } });
    expect(result.content).toEqual([{ type: "text", text: "v2" }]);
  }, 60_000);
});

describe("legacy callers, session mode", () => {
  it("mcpwire initializes a session of server-everything and calls a tool", async () => {
    const { url } = own(await startGateway({ target: EVERYTHING_TARGET, poolMin: 0 }));
    const client = own(await connect(url, { protocolVersion: "legacy" }));
    expect(client.era).toBe("legacy");
    const result = await client.callTool("echo", { message: "hello" });
    expect(JSON.stringify(result.content)).toContain("hello");
  }, 60_000);

  it("the official v1 client initializes a session and lists tools", async () => {
    const { url } = own(await startGateway({ target: EVERYTHING_TARGET, poolMin: 0 }));
    const client = new SdkV1Client({ name: "v1", version: "1.0.0" });
    const transport = new SdkV1Transport(new URL(url));
    await client.connect(transport);
    own({ close: () => client.close() });
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("echo");
  }, 60_000);
});

describe("legacy callers, the official v2 client", () => {
  it("initializes a session (its default, legacy negotiation) and calls a tool", async () => {
    const { url } = own(await startGateway({ target: EVERYTHING_TARGET, poolMin: 0 }));
    const client = new SdkV2Client({ name: "v2-legacy", version: "1.0.0" });
    const transport = new SdkV2Transport(new URL(url));
    await client.connect(transport);
    own({ close: () => client.close() });
    expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);
    const result = await client.callTool({ name: "echo", arguments: { message: "v2 legacy" } });
    expect(JSON.stringify(result.content)).toContain("v2 legacy");
  }, 60_000);
});

describe("legacy callers, stateless mode", () => {
  it("mcpwire reaches a pool child the gateway initialized, without a session id", async () => {
    const { url } = own(await startGateway({ target: EVERYTHING_TARGET, legacy: "stateless" }));
    const client = own(await connect(url, { protocolVersion: "legacy" }));
    const result = await client.callTool("echo", { message: "stateless" });
    expect(JSON.stringify(result.content)).toContain("stateless");
  }, 60_000);

  it("the official v1 client initializes without a session and lists tools", async () => {
    const { url } = own(await startGateway({ target: EVERYTHING_TARGET, legacy: "stateless" }));
    const client = new SdkV1Client({ name: "v1", version: "1.0.0" });
    const transport = new SdkV1Transport(new URL(url));
    await client.connect(transport);
    own({ close: () => client.close() });
    expect(transport.sessionId).toBeUndefined();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("echo");
  }, 60_000);

  it("the official v2 client initializes without a session and calls a tool", async () => {
    const { url } = own(await startGateway({ target: EVERYTHING_TARGET, legacy: "stateless" }));
    const client = new SdkV2Client({ name: "v2-stateless", version: "1.0.0" });
    const transport = new SdkV2Transport(new URL(url));
    await client.connect(transport);
    own({ close: () => client.close() });
    expect(transport.sessionId).toBeUndefined();
    const result = await client.callTool({ name: "echo", arguments: { message: "v2 stateless" } });
    expect(JSON.stringify(result.content)).toContain("v2 stateless");
  }, 60_000);
});

describe("a 2026-07-28 subscriptions/listen stream", () => {
  it("outlives the request timeout and carries the child's change notifications", async () => {
    const { url, gateway } = own(await startGateway({ target: MODERN_TARGET, poolMin: 1, poolMax: 1, requestTimeoutMs: 1_500 }));
    await expect.poll(() => gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    const client = own(await connect(url, { protocolVersion: "modern" }));
    let changes = 0;
    client.onToolsListChanged(() => changes++);
    await client.listen({ toolsListChanged: true });
    // A request that times out proves the listen stream has been open longer than the timeout.
    await expect(client.callTool("sleep", { ms: 600_000 })).rejects.toMatchObject({ code: -32001 });
    await client.callTool("add_tool", { name: "late_tool" });
    await expect.poll(() => changes, { timeout: 20_000 }).toBeGreaterThan(0);
  }, 60_000);
});

describe("many 2026-07-28 callers on one pool", () => {
  it("50 callers with 200 calls in flight each get only their own answers and progress", async () => {
    const { url, gateway } = own(await startGateway({ target: MODERN_TARGET, poolMin: 2, poolMax: 2 }));
    await expect.poll(() => gateway.readiness.state().ready, { timeout: 30_000 }).toBe(true);
    const callers = await Promise.all(Array.from({ length: 50 }, () => connect(url, { protocolVersion: "modern" }).then(own)));
    const answers = await Promise.all(
      callers.flatMap((client, caller) =>
        Array.from({ length: 4 }, async (_, call) => {
          const tag = `caller ${caller} call ${call}`;
          const progress: string[] = [];
          const result = await client.callTool("count", { steps: 3, tag }, { onProgress: (update) => progress.push(`${update.progress}/${update.total} ${update.message}`) });
          return { tag, got: result.content, progress };
        }),
      ),
    );
    expect(answers).toHaveLength(200);
    for (const { tag, got, progress } of answers) {
      expect(got).toEqual([{ type: "text", text: tag }]);
      expect(progress).toEqual([`1/3 ${tag}`, `2/3 ${tag}`, `3/3 ${tag}`]);
    }
  }, 60_000);
});
