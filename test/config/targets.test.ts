import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { McpTransportError, RecordingTransport, StdioTransport, connect, resolveTarget } from "../../src/index.js";
import { configForString } from "../../src/config/targets.js";

describe("target auto-detection", () => {
  it.each([
    ["ws://127.0.0.1:9/mcp", "websocket"],
    ["wss://tools.example.com/mcp", "websocket"],
    ["http://127.0.0.1:3001/mcp", "streamable-http"],
    ["https://api.example.com", "streamable-http"],
    ["npx -y @modelcontextprotocol/server-memory", "stdio"],
  ])("%s picks %s", (target, kind) => {
    expect(resolveTarget(target).transport.kind).toBe(kind);
  });

  it("reads an http(s) URL ending in /sse as the legacy transport", () => {
    expect(configForString("http://127.0.0.1:3001/sse").transport).toBe("sse");
    expect(configForString("https://old.example.com/v1/sse/").transport).toBe("sse");
  });

  it("splits a command line like a shell but keeps it an argv", () => {
    expect(configForString(`node "my server.js" --name 'a b'`)).toEqual({
      name: "node",
      transport: "stdio",
      command: "node",
      args: ["my server.js", "--name", "a b"],
    });
    expect(() => configForString("node server.js | tee log")).toThrow(/shell syntax/);
  });

  it("refuses a URL of another scheme instead of running it as a command, without echoing the URL", () => {
    for (const target of ["ftp://user:secret@files.example.com/mcp", "unix:///run/mcp.sock", " HTTPX://host/mcp"]) {
      expect(() => configForString(target)).toThrow(/^a target starting with [a-z]+:\/\/ is a URL of a scheme mcpwire does not speak; give an http\(s\):\/\/ URL/i);
      expect(() => configForString(target)).not.toThrow(/secret|example|host/);
    }
  });

  it("keeps a URL verbatim, with its declaration's ceilings", () => {
    const { config } = resolveTarget({ url: "http://127.0.0.1:3001", headers: { Authorization: "Bearer t" } });
    expect(config).toEqual({ name: "127.0.0.1:3001", transport: "http", url: "http://127.0.0.1:3001", headers: { Authorization: "Bearer t" } });
  });

  it("takes configs, command objects, transports and server objects", () => {
    expect(resolveTarget({ name: "h", transport: "stdio", command: "node", maxInFlight: 4 }).config?.maxInFlight).toBe(4);
    expect(resolveTarget({ command: "node", args: ["x.js"] }).transport).toBeInstanceOf(StdioTransport);
    const recording = new RecordingTransport({});
    expect(resolveTarget(recording).transport).toBe(recording);
    expect(resolveTarget({ connect: async () => {} }).transport.kind).toBe("memory");
  });

  it("refuses what it cannot read, saying what it takes", () => {
    expect(() => resolveTarget(42 as never)).toThrow(/cannot tell how to reach a number; give a URL, a command line/);
    expect(() => resolveTarget({ nothing: true } as never)).toThrow(/cannot tell how to reach this object/);
    expect(() => resolveTarget({ name: "x", transport: "http", url: "http://x/mcp", comand: "y" } as never)).toThrow(/unknown key "comand"/);
  });
});

  it("refuses a URL with credentials without repeating them, or the query, in the error", () => {
    for (const target of ["http://user:pw-SECRET@127.0.0.1:9/mcp?api_key=KEY-SECRET", { url: "ws://user:pw-SECRET@127.0.0.1:9/mcp?api_key=KEY-SECRET" }]) {
      let message = "";
      try {
        resolveTarget(target);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/target "(http|ws):\/\/127\.0\.0\.1:9\/mcp": "url" must not carry credentials/);
      expect(message).not.toMatch(/SECRET/);
    }
  });

describe("connect(target) end to end", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  it("runs a command line as a child process, without a shell", async () => {
    await using client = await connect(`"${process.execPath}" --import tsx test/fixtures/contract-server-stdio.ts`);
    expect(client.transportKind).toBe("stdio");
    expect((await client.callTool("echo", { text: "via a command line" })).content).toEqual([{ type: "text", text: "via a command line" }]);
  });

  it("suggests the usual /mcp path when a bare host answers 404", async () => {
    server = createServer((_req, res) => res.writeHead(404, { "content-type": "text/plain" }).end("not here"));
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const error = await connect(`http://127.0.0.1:${port}`, { protocolVersion: "legacy", timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpTransportError);
    expect((error as McpTransportError).httpStatus).toBe(404);
    expect((error as McpTransportError).message).toContain(`often /mcp (try http://127.0.0.1:${port}/mcp)`);
  });
});
