/**
 * Both eras over stdio, found without the user choosing (basic/transports/stdio, "Backward
 * Compatibility"): the same test code against a legacy server (official SDK v1) and a modern one
 * (official SDK v2, modern only), then the probe's awkward cases.
 */
import { describe, expect, it } from "vitest";
import { McpTransportError, connect, forgetEras, type ConnectOptions } from "../../src/index.js";

const node = process.execPath;
const servers = [
  { name: "legacy (SDK v1)", command: `"${node}" --import tsx test/fixtures/contract-server-stdio.ts`, era: "legacy", revision: "2025-11-25" },
  { name: "modern (SDK v2)", command: `"${node}" --import tsx test/fixtures/modern-server.ts stdio`, era: "modern", revision: "2026-07-28" },
] as const;

const handlers: ConnectOptions["handlers"] = { elicitation: () => ({ action: "accept", content: { name: "Ada" } }) };

describe.each(servers)("stdio, $name", ({ command, era, revision }) => {
  it("finds the era by itself, and the same calls work", async () => {
    forgetEras();
    await using client = await connect(command, { handlers });
    expect(client.era).toBe(era);
    expect(client.protocolVersion).toBe(revision);
    const names = (await client.listTools()).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["echo", "ask_elicitation"]));
    expect((await client.callTool("echo", { text: "same code" })).content).toEqual([{ type: "text", text: "same code" }]);
    // A server-to-client question: a request in the legacy era, an input round in the modern one.
    const form = await client.callTool("ask_elicitation");
    expect(JSON.parse((form.content[0] as { text: string }).text)).toEqual({ action: "accept", content: { name: "Ada", team: "support" } });
  });
});

describe("modern era over stdio: subscriptions/listen", () => {
  it("keeps a listen stream open past readTimeoutMs and delivers list changes to the usual listener", async () => {
    await using client = await connect(`"${node}" --import tsx test/fixtures/modern-server.ts stdio`, { readTimeoutMs: 400 });
    const changes: string[] = [];
    client.onToolsListChanged(() => changes.push("tools"));
    expect(await client.listen({ toolsListChanged: true })).toEqual({ toolsListChanged: true });
    await new Promise((resolve) => setTimeout(resolve, 900));
    await client.callTool("add_tool", { name: "fresh" });
    await expect.poll(() => changes, { timeout: 5_000 }).toEqual(["tools"]);
    expect((await client.listTools()).map((tool) => tool.name)).toContain("fresh");
  });
});

describe("the stdio era probe", () => {
  const fixture = (mode: string) => `"${node}" test/fixtures/era-stdio-server.mjs ${mode}`;
  /**
   * What the fixture logs on stderr, as lines. Forwarded chunks are not always whole lines, and
   * a line may still be in the pipe when a call returns: tests poll for what they expect.
   */
  const seen = () => {
    let text = "";
    return {
      lines: () => text.split("\n").filter(Boolean),
      stderr: (chunk: string) => {
        text += chunk;
      },
    };
  };

  it("restarts a legacy server that exits on a request before initialize", async () => {
    forgetEras();
    const log = seen();
    await using client = await connect(fixture("exit-before-init"), { stderr: log.stderr });
    expect(client.era).toBe("legacy");
    // Output checks off: they would list the tools after this first call.
    expect((await client.callTool("echo", { text: "after a restart" }, { validateOutput: false })).content).toEqual([{ type: "text", text: "after a restart" }]);
    await expect.poll(log.lines).toEqual(["got server/discover", "got initialize", "got notifications/initialized", "got tools/call"]);
  });

  it("tries initialize beside a probe that gets no answer, well within the request timeout", async () => {
    forgetEras();
    const started = Date.now();
    await using client = await connect(fixture("ignore-unknown"), { probeTimeoutMs: 200, timeoutMs: 20_000 });
    expect(client.era).toBe("legacy");
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(client.session.load).toEqual({ inFlight: 0, waiting: 0 });
  });

  it("remembers the verdict for the command line, and takes one given by the user", async () => {
    forgetEras();
    const first = seen();
    const a = await connect(fixture("ignore-unknown"), { probeTimeoutMs: 100, stderr: first.stderr });
    await a.close();
    await expect.poll(() => first.lines()[0]).toBe("got server/discover");
    const second = seen();
    await using b = await connect(fixture("ignore-unknown"), { stderr: second.stderr });
    expect(b.era).toBe("legacy");
    await expect.poll(() => second.lines()[0]).toBe("got initialize");

    forgetEras();
    const given = seen();
    await using c = await connect(fixture("ignore-unknown"), { era: "legacy", stderr: given.stderr });
    await expect.poll(() => given.lines()[0]).toBe("got initialize");
    expect(c.era).toBe("legacy");
  });

  it("probes again when a remembered verdict proves wrong", async () => {
    forgetEras();
    const log = seen();
    await using client = await connect(fixture("exit-before-init"), { era: "modern", stderr: log.stderr });
    expect(client.era).toBe("legacy");
  });

  it("a modern error listing only legacy revisions means initialize, not failure", async () => {
    forgetEras();
    await using client = await connect(fixture("legacy-only"));
    expect(client.era).toBe("legacy");
    expect(client.protocolVersion).toBe("2025-11-25");
  });

  it("a server sharing no revision fails with a message that lists what each side speaks", async () => {
    forgetEras();
    const error = (await connect(fixture("no-shared")).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error;
    expect(error.message).toContain("speaks none of mcpwire's modern revisions (2026-07-28); it offers 2099-01-01");
  });

  it("a server that writes what is not JSON-RPC on stdout fails with PROTOCOL at once, started once, whatever the era", async () => {
    for (const options of [{}, { era: "legacy" as const }, { era: "modern" as const }]) {
      forgetEras();
      const log = seen();
      const error = (await connect(fixture("log-on-stdout"), { ...options, timeoutMs: 60_000, stderr: log.stderr }).then(
        () => undefined,
        (e: unknown) => e,
      )) as McpTransportError;
      // Not evidence of an era: no second process, no other handshake, and not a TIMEOUT at the deadline.
      expect(error).toBeInstanceOf(McpTransportError);
      expect(error.reason).toBe("PROTOCOL");
      expect(error.message).toContain('set nonProtocolLines: "skip"');
      expect(error.message).not.toContain("[info]");
      await expect.poll(log.lines).toEqual([`got ${options.era === "legacy" ? "initialize" : "server/discover"}`]);
    }
  });

  it("honours a pinned revision or era without probing", async () => {
    forgetEras();
    const log = seen();
    await using client = await connect(fixture("exit-before-init"), { protocolVersion: "2025-06-18", stderr: log.stderr });
    expect(client.protocolVersion).toBe("2025-06-18");
    await expect.poll(() => log.lines()[0]).toBe("got initialize");
    await expect(connect(fixture("exit-before-init"), { protocolVersion: "modern" })).rejects.toMatchObject({ reason: "DISCONNECTED" });
  });
});
