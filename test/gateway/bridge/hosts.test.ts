/**
 * Two hosts through the built bridge, each in its own era: a legacy host (the official SDK v1
 * client over its StdioClientTransport, which spawns the bridge as it spawns any stdio server)
 * against server-everything over Streamable HTTP, server-to-client sampling included; and a
 * modern host (mcpwire's own client over stdio) against the 2026-07-28 server on the official v2
 * server package, its `Mcp-*` headers included (the server checks them against the body).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { connect } from "../../../src/connect.js";
import { BIN, FIXTURES, ROOT } from "../../cli/helpers.js";
import { useEverythingHttp } from "../../helpers/everything-fixture.js";
import { startHttpFixture, type HttpFixture } from "../../helpers/http-fixture.js";

const everything = useEverythingHttp();

describe("a legacy host (SDK v1 client over stdio) through the bridge", () => {
  it("lists and calls tools, and answers the remote's sampling request", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "gateway", everything.streamableHttp(), "--stdio"], cwd: ROOT, stderr: "pipe" });
    const client = new Client({ name: "legacy-host", version: "1.0.0" }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      role: "assistant",
      model: "host-model",
      content: { type: "text", text: `the host read: ${JSON.stringify(request.params.messages[0]?.content)}` },
    }));
    try {
      await client.connect(transport);
      expect(client.getServerVersion()?.name).toBe("mcp-servers/everything");
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["echo", "trigger-sampling-request"]));
      const echoed = await client.callTool({ name: "echo", arguments: { message: "through the bridge" } });
      expect(echoed.content).toEqual([{ type: "text", text: "Echo: through the bridge" }]);
      const sampled = await client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "dune", maxTokens: 5 } });
      expect(JSON.stringify(sampled.content)).toContain("the host read");
      expect(JSON.stringify(sampled.content)).toContain("dune");
    } finally {
      await client.close();
    }
    // The SDK's close ends stdin; the bridge ends the remote session and exits.
    await expect.poll(() => transport.pid === null || !isRunning(transport.pid)).toBe(true);
  });
});

describe("a host that probes the era (mcpwire, protocolVersion auto) through the bridge to a legacy remote", () => {
  it("is answered legacy: the probe fails over to initialize, and the call works", async () => {
    const client = await connect({ command: process.execPath, args: [BIN, "gateway", everything.streamableHttp(), "--stdio"], cwd: ROOT });
    try {
      expect(client.era).toBe("legacy");
      expect((await client.callTool("echo", { message: "probed" })).content).toEqual([{ type: "text", text: "Echo: probed" }]);
    } finally {
      await client.close();
    }
  });
});

describe("a legacy host through the bridge to a legacy HTTP+SSE remote", () => {
  it("reaches it by the fallback from Streamable HTTP, and calls a tool", async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "gateway", everything.sse(), "--stdio"], cwd: ROOT, stderr: "pipe" });
    const client = new Client({ name: "legacy-host", version: "1.0.0" });
    try {
      await client.connect(transport);
      const echoed = await client.callTool({ name: "echo", arguments: { message: "over sse" } });
      expect(echoed.content).toEqual([{ type: "text", text: "Echo: over sse" }]);
    } finally {
      await client.close();
    }
  });
});

describe("a modern host (mcpwire over stdio) through the bridge", () => {
  let modern: HttpFixture;
  beforeAll(async () => {
    modern = await startHttpFixture(`${FIXTURES}modern-server.ts`, "http");
  });
  afterAll(() => {
    modern?.child.kill("SIGKILL");
  });

  it("is modern end to end: discovers, lists, calls, and a tool whose arguments go into headers passes the server's check", async () => {
    const client = await connect({ command: process.execPath, args: [BIN, "gateway", modern.url, "--stdio"], cwd: ROOT }, { protocolVersion: "modern" });
    try {
      expect(client.era).toBe("modern");
      expect(client.serverInfo.name).toBe("modern-server");
      const tools = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["echo", "route"]));
      const echoed = await client.callTool("echo", { text: "modern through the bridge" });
      expect(echoed.content).toEqual([{ type: "text", text: "modern through the bridge" }]);
      const routed = await client.callTool("route", routeArguments());
      expect(routed.isError).not.toBe(true);
      expect(JSON.stringify(routed.content)).toContain("eu-west-1");
    } finally {
      await client.close();
    }
  });

  it("is found modern by a host that probes (protocolVersion auto)", async () => {
    const client = await connect({ command: process.execPath, args: [BIN, "gateway", modern.url, "--stdio"], cwd: ROOT });
    try {
      expect(client.era).toBe("modern");
      expect((await client.callTool("echo", { text: "probed" })).content).toEqual([{ type: "text", text: "probed" }]);
    } finally {
      await client.close();
    }
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function routeArguments(): Record<string, unknown> {
  return { region: "eu-west-1", priority: 3, dry: true, limits: { rows: 5 }, query: "plain" };
}
