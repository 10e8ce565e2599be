/**
 * `connectAll(config)`: every server of an `mcpServers` file, as real child processes: the ones
 * that start are connected, each broken one is reported by name with why, tools are listed under
 * unique prefixed names, and one close() stops every child.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { aiTools } from "../../src/ai.js";
import { connectAll, type ConnectedServers } from "../../src/adapters/connect-all.js";
import { readServersFile } from "../../src/config/mcp-servers-file.js";
import { McpTransportError, type StdioTransport } from "../../src/index.js";
import { langchainTools } from "../../src/langchain.js";

const MINI_SERVER = fileURLToPath(new URL("../fixtures/stdio-mini-server.mjs", import.meta.url));

/** A plain-JavaScript server that starts in milliseconds; `marker` lets the test find its process. */
function miniServer(name: string, tools: string[], marker: string): Record<string, unknown> {
  const toolCode = tools.map((tool) => `${JSON.stringify(tool)}: (args) => text(${JSON.stringify(name)} + ": " + (args.text ?? ""))`).join(", ");
  return {
    command: process.execPath,
    args: [
      "--input-type=module",
      "-e",
      `// ${marker}\nimport { serve, text } from ${JSON.stringify(MINI_SERVER)}; serve({ name: ${JSON.stringify(name)}, tools: { ${toolCode} } });`,
    ],
  };
}

/** Answers initialize, then dies on the first request after it. */
function diesAfterHandshake(marker: string): Record<string, unknown> {
  const code = `// ${marker}
import { createInterface } from "node:readline";
createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === "initialize") {
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "fragile", version: "1" } } }) + "\\n");
  } else if (message.id !== undefined) process.exit(5);
});`;
  return { command: process.execPath, args: ["--input-type=module", "-e", code] };
}

/** The pids of running processes whose command line holds `marker`. */
async function processesWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8");
      const stat = await readFile(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (cmdline.includes(marker) && state !== "Z") pids.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return pids;
}

let dir: string;
let marker: string;
const opened: ConnectedServers[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "mcpwire-connect-all-"));
  marker = `mcpwire-test-${randomUUID()}`;
});
afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((servers) => servers.close()));
  for (const pid of await processesWith(marker)) process.kill(pid, "SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

async function writeServers(servers: Record<string, unknown>): Promise<string> {
  const path = join(dir, "mcp.json");
  await writeFile(path, JSON.stringify({ mcpServers: servers }));
  return path;
}

async function track(servers: Promise<ConnectedServers>): Promise<ConnectedServers> {
  const connected = await servers;
  opened.push(connected);
  return connected;
}

describe("connectAll", () => {
  it("connects the servers that start and reports each one that does not, by name and why", async () => {
    const path = await writeServers({
      alpha: miniServer("alpha", ["echo", "search"], marker),
      beta: miniServer("beta", ["echo"], marker),
      missing: { command: join(dir, "no-such-server") },
      mute: { command: process.execPath, args: ["-e", `// ${marker}\nsetInterval(() => {}, 1000)`], timeoutMs: 1_500 },
      off: { ...miniServer("off", ["echo"], marker), disabled: true },
    });
    const servers = await track(connectAll(path));

    expect(Object.keys(servers.clients)).toEqual(["alpha", "beta"]);
    expect(servers.clients.alpha!.serverInfo.name).toBe("alpha");
    expect(Object.keys(servers.failures)).toEqual(["missing", "mute"]);
    expect(servers.failures.missing).toBeInstanceOf(McpTransportError);
    expect(servers.failures.missing!.reason).toBe("UNAVAILABLE");
    // The mute server was bounded by its own timeoutMs, not by the others'.
    expect(servers.failures.mute).toMatchObject({ reason: "TIMEOUT", timeoutMs: 1_500 });
    expect(servers.disabled).toEqual(["off"]);
    expect(servers.source).toBe(path);
  });

  it("lists the tools of all servers under unique names prefixed by server, clashes resolved in file order", async () => {
    const servers = await track(
      connectAll(
        await writeServers({
          "team.alpha": miniServer("first", ["echo", "files.read"], marker),
          team_alpha: miniServer("second", ["echo"], marker),
        }),
      ),
    );
    const { tools, failures } = await servers.listTools();
    expect(failures).toEqual({});
    expect(tools.map((tool) => [tool.name, tool.server, tool.tool.name])).toEqual([
      ["team_alpha__echo", "team.alpha", "echo"],
      ["team_alpha__files_read", "team.alpha", "files.read"],
      ["team_alpha__echo_2", "team_alpha", "echo"],
    ]);
    // Each name reaches its own server.
    const second = tools[2]!;
    const result = await second.client.callTool(second.tool.name, { text: "hi" });
    expect(result.content).toEqual([{ type: "text", text: "second: hi" }]);
  });

  it("reports a server whose tool list fails, and lists the others", async () => {
    const servers = await track(
      connectAll(await writeServers({ alpha: miniServer("alpha", ["echo"], marker), fragile: diesAfterHandshake(marker) })),
    );
    expect(Object.keys(servers.clients)).toEqual(["alpha", "fragile"]);
    const { tools, failures } = await servers.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["alpha__echo"]);
    expect(failures.fragile).toMatchObject({ reason: "DISCONNECTED", exitCode: 5 });
  });

  it("gives the agent adapters the tools of every server, prefixed, each call routed to its server", async () => {
    const servers = await track(
      connectAll(await writeServers({ alpha: miniServer("alpha", ["echo"], marker), beta: miniServer("beta", ["echo"], marker) })),
    );
    const ai = await aiTools(servers);
    expect(Object.keys(ai)).toEqual(["alpha__echo", "beta__echo"]);
    const output = await (ai.beta__echo!.execute!({ text: "hello" }, { toolCallId: "1", messages: [] }) as Promise<unknown>);
    expect(output).toMatchObject({ isError: false, content: [{ type: "text", text: "beta: hello" }] });
    const langchain = await langchainTools(servers);
    expect(langchain.map((tool) => tool.name)).toEqual(["alpha__echo", "beta__echo"]);
    expect(await langchain[0]!.invoke({ text: "hey" })).toBe("alpha: hey");
  });

  it("closes every server with one close(), idempotent, and leaves no child running", async () => {
    const servers = await connectAll(
      await writeServers({ alpha: miniServer("alpha", ["echo"], marker), beta: miniServer("beta", ["echo"], marker) }),
    );
    const pids = Object.values(servers.clients).map((client) => (client.session.transport as StdioTransport).pid);
    expect(pids.every((pid) => typeof pid === "number")).toBe(true);
    expect(await processesWith(marker)).toHaveLength(2);
    await Promise.all([servers.close(), servers.close()]);
    await servers.close();
    expect(await processesWith(marker)).toEqual([]);
  });

  it("closes everything at the end of an `await using` block", async () => {
    const path = await writeServers({ alpha: miniServer("alpha", ["echo"], marker) });
    {
      await using servers = await connectAll(path);
      expect(Object.keys(servers.clients)).toEqual(["alpha"]);
      expect(await processesWith(marker)).toHaveLength(1);
    }
    expect(await processesWith(marker)).toEqual([]);
  });

  it("takes a file already read, and each server's own ceilings", async () => {
    const file = await readServersFile(
      await writeServers({ alpha: { ...miniServer("alpha", ["echo"], marker), timeoutMs: 4_321, maxInFlight: 3 } }),
    );
    const servers = await track(connectAll(file, { client: { timeoutMs: 9_999, clientInfo: { name: "host", version: "1" } } }));
    expect(servers.clients.alpha!.session.limits).toMatchObject({ timeoutMs: 4_321, maxInFlight: 3 });
  });

  it("stops connecting when its signal aborts: rejects with the reason and leaves no child running", async () => {
    const path = await writeServers({
      alpha: miniServer("alpha", ["echo"], marker),
      mute: { command: process.execPath, args: ["-e", `// ${marker}\nsetInterval(() => {}, 1000)`] },
    });
    const controller = new AbortController();
    const connecting = connectAll(path, { signal: controller.signal });
    // Abort once both children run (mute never answers its handshake), so that there is something to stop.
    await expect.poll(() => processesWith(marker), { timeout: 10_000 }).toHaveLength(2);
    controller.abort(new Error("the host is shutting down"));
    await expect(connecting).rejects.toThrow("the host is shutting down");
    expect(await processesWith(marker)).toEqual([]);
    await expect(connectAll(path, { signal: AbortSignal.abort(new Error("already")) })).rejects.toThrow("already");
  });

  it("refuses an option nobody reads before any server starts, naming it, instead of dropping it or failing every server", async () => {
    const path = await writeServers({ alpha: miniServer("alpha", ["echo"], marker) });
    // A ceiling given at the top level would be dropped: it belongs in options.client.
    await expect(connectAll(path, { timeoutMs: 1_000 } as never)).rejects.toThrow(
      /connectAll\(\): unknown option "timeoutMs".*client options such as "timeoutMs" go in options\.client/,
    );
    await expect(connectAll(path, { calss: {} } as never)).rejects.toThrow('unknown option "calss" (did you mean "calls"?)');
    // A typo among the client's options is the caller's mistake, not every server's failure to start.
    await expect(connectAll(path, { client: { timeotMs: 5_000 } } as never)).rejects.toThrow(
      'connectAll(): options.client has an unknown option "timeotMs" (did you mean "timeoutMs"?)',
    );
    await expect(connectAll(path, { client: { signal: AbortSignal.timeout(60_000) } } as never)).rejects.toThrow(
      "give it as connectAll's own options.signal",
    );
    await expect(connectAll(path, { client: { timeout: 1 } } as never)).rejects.toBeInstanceOf(TypeError);
    // A bad value of an option for all servers is the caller's mistake, not each server's failure to start.
    await expect(connectAll(path, { signal: "stop" } as never)).rejects.toThrow(
      new TypeError('connectAll(): "signal" must be an AbortSignal (AbortController\'s signal, AbortSignal.timeout()), got "stop"'),
    );
    await expect(connectAll(path, { transportFor: "stdio" } as never)).rejects.toThrow(
      new TypeError('connectAll(): "transportFor" must be a function from a declaration to a transport, got "stdio"'),
    );
    await expect(connectAll(path, { env: null } as never)).rejects.toThrow(
      new TypeError('connectAll(): "env" must be an object of variables by name (as process.env), got null'),
    );
    // A typo among the call settings, for all servers or for one, would run calls under other settings than asked.
    await expect(connectAll(path, { calls: { timeotMs: 5_000 } } as never)).rejects.toThrow(
      new TypeError(
        'connectAll options.calls: unknown setting "timeotMs" (did you mean "timeoutMs"?); the settings are timeoutMs, resetTimeoutOnProgress, maxTotalTimeoutMs, onProgress, servers',
      ),
    );
    await expect(connectAll(path, { calls: { servers: { alpha: { timeout: 5_000 } } } } as never)).rejects.toThrow(
      'connectAll options.calls: servers["alpha"]: unknown setting "timeout" (did you mean "timeoutMs"?)',
    );
    await expect(aiTools([], { servers: { alpha: { timeout: 5_000 } } } as never)).rejects.toThrow('options: servers["alpha"]: unknown setting "timeout"');
    // Settings for a server the file does not have (a misspelt name) would apply to none.
    await expect(connectAll(path, { calls: { servers: { alpah: { timeoutMs: 600_000 } } } })).rejects.toThrow(
      new TypeError(`connectAll options.calls: servers["alpah"] names no server of ${path} (did you mean "alpha"?); its servers are alpha`),
    );
    expect(await processesWith(marker)).toEqual([]);
  });

  it("refuses a listTools() option nobody reads, naming it, before listing anything", async () => {
    const servers = await track(connectAll(await writeServers({ alpha: miniServer("alpha", ["echo"], marker) })));
    await expect(servers.listTools({ prefx: false } as never)).rejects.toThrow(
      'servers.listTools(): unknown option "prefx" (did you mean "prefix"?); the options are prefix, separator, signal, timeoutMs',
    );
    await expect(servers.listTools({ timeout: 1 } as never)).rejects.toThrow(/unknown option "timeout" \(did you mean "timeoutMs"\?\)/);
    await expect(servers.listTools(null as never)).rejects.toThrow("servers.listTools(): options must be an object");
    // A bad value is the caller's mistake, refused as such, never reported as every server's failure to list.
    await expect(servers.listTools({ timeoutMs: "10s" } as never)).rejects.toThrow(
      new TypeError('servers.listTools(): "timeoutMs" must be a whole number of ms from 1 to 2147483647, got "10s" (default 60000)'),
    );
    await expect(servers.listTools({ timeoutMs: -1 })).rejects.toBeInstanceOf(TypeError);
    await expect(servers.listTools({ signal: "stop" } as never)).rejects.toThrow('servers.listTools(): "signal" must be an AbortSignal');
    // A string prefix would have been taken for true, silently.
    await expect(servers.listTools({ prefix: "tools" } as never)).rejects.toThrow(
      new TypeError('servers.listTools(): "prefix" must be true (each server\'s name) or false, got "tools"'),
    );
    await expect(servers.listTools({ separator: "." })).rejects.toThrow('"separator" must be at most 8 characters');
    const { tools } = await servers.listTools({ prefix: false, separator: "--", timeoutMs: 10_000 });
    expect(tools.map((tool) => tool.name)).toEqual(["echo"]);
  });

  it("refuses a callTool() name that is not a string, and an option nobody reads, naming it, before calling", async () => {
    const servers = await track(connectAll(await writeServers({ alpha: miniServer("alpha", ["echo"], marker) })));
    await servers.listTools();
    await expect(servers.callTool(5 as never, {})).rejects.toThrow(new TypeError("callTool(): the tool's name must be a non-empty string, got 5"));
    await expect(servers.callTool(null as never, {})).rejects.toThrow("the tool's name must be a non-empty string, got null");
    // `timeout` for `timeoutMs` would have run the call under the default deadline without a word.
    await expect(servers.callTool("alpha__echo", { text: "hi" }, { timeout: 1 } as never)).rejects.toThrow(
      /^callTool "alpha__echo": unknown option "timeout" \(did you mean "timeoutMs"\?\); the options are timeoutMs, resetTimeoutOnProgress, maxTotalTimeoutMs, onProgress, signal$/,
    );
    await expect(servers.callTool("alpha__echo", { text: "hi" }, { signal: "stop" } as never)).rejects.toThrow('"signal" must be an AbortSignal');
    await expect(servers.callTool("alpha__echo", { text: "hi" }, { timeoutMs: 10_000, signal: AbortSignal.timeout(60_000) })).resolves.toMatchObject({
      content: [{ type: "text", text: "alpha: hi" }],
    });
  });

  it("refuses a file it cannot read, naming it", async () => {
    await expect(connectAll(join(dir, "absent.json"))).rejects.toThrow("absent.json: cannot read the config file");
  });
});
