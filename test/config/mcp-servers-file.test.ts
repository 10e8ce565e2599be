import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseServersFile } from "../../src/config/mcp-servers-file.js";
import { loadServerConfig, loadServersFile } from "../../src/config/load.js";
import { configFileCandidates } from "../../src/config/locations.js";

describe("parseServersFile", () => {
  it("reads the desktop-host shape, telling stdio from URL servers", () => {
    const file = parseServersFile(
      JSON.stringify({
        globalShortcut: "ignored: not ours",
        mcpServers: {
          memory: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], env: { DEBUG: "1" } },
          remote: { url: "https://api.example.com/mcp", headers: { Authorization: "Bearer ${env:TOKEN}" } },
          legacy: { url: "https://old.example.com/sse" },
          socket: { url: "wss://ws.example.com/mcp" },
          off: { command: "x", disabled: true },
          approved: { command: "y", autoApprove: ["read"], description: "host bookkeeping" },
        },
      }),
      "claude_desktop_config.json",
      { TOKEN: "t0k" },
    );
    expect(file.servers).toEqual({
      memory: { name: "memory", transport: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"], env: { DEBUG: "1" } },
      remote: { name: "remote", transport: "http", url: "https://api.example.com/mcp", headers: { Authorization: "Bearer t0k" } },
      legacy: { name: "legacy", transport: "sse", url: "https://old.example.com/sse" },
      socket: { name: "socket", transport: "websocket", url: "wss://ws.example.com/mcp" },
      approved: { name: "approved", transport: "stdio", command: "y" },
    });
    expect(file.disabled).toEqual(["off"]);
  });

  it("reads the editor variant with its type field", () => {
    const file = parseServersFile(
      JSON.stringify({
        inputs: [],
        servers: {
          local: { type: "stdio", command: "node", args: ["server.js"] },
          web: { type: "http", url: "http://127.0.0.1:3001/mcp" },
          old: { type: "sse", url: "http://127.0.0.1:3001/events" },
        },
      }),
      ".vscode/mcp.json",
      {},
    );
    expect(Object.values(file.servers).map((s) => s.transport)).toEqual(["stdio", "http", "sse"]);
  });

  it.each([
    ["not json", "{", "not valid JSON"],
    ["an unknown shape", JSON.stringify({ tools: {} }), 'no "mcpServers" or "servers" object'],
    ["servers as a list", JSON.stringify({ mcpServers: [] }), '"mcpServers" must be an object of servers by name'],
    ["a typo", JSON.stringify({ mcpServers: { a: { command: "x", arg: [] } } }), 'mcp.json: server "a": unknown key "arg" (did you mean "args"?)'],
    ["a bad type", JSON.stringify({ servers: { a: { type: "grpc", url: "x" } } }), '"type" must be one of'],
    ["a url that is not a string", JSON.stringify({ mcpServers: { a: { url: 5 } } }), 'mcp.json: server "a": "url" must be the server\'s endpoint as a string, http(s):// or ws(s)://, got 5'],
    ["a missing variable", JSON.stringify({ mcpServers: { a: { url: "http://x/mcp", headers: { A: "${NOPE}" } } } }), "NOPE is not set"],
  ])("refuses %s with a clear message", (_, text, words) => {
    expect(() => parseServersFile(text, "mcp.json", {})).toThrow(words);
  });

  it.each([
    ["a mistyped scheme", "htps://mcp.example.com/mcp?api_key=${env:API_KEY}", 'server "keyed": "url" of a http server must start with http:// or https://, got a URL starting with "htps://"'],
    ["a scheme of another transport", "wss://mcp.example.com/${env:API_KEY}/mcp", 'server "keyed": "url" of a http server must start with http:// or https://, got a URL starting with "wss://"'],
    ["no scheme", "mcp.example.com/mcp?api_key=${env:API_KEY}", 'server "keyed": "url" is not a valid URL'],
  ])("refuses %s in a url without repeating the secret expanded into it", (_, url, words) => {
    const text = JSON.stringify({ mcpServers: { keyed: { type: "http", url } } });
    const read = () => parseServersFile(text, "mcp.json", { API_KEY: "sk-live-1234" });
    expect(read).toThrow(words);
    expect(read).not.toThrow("sk-live-1234");
  });
});

describe("loadServerConfig: defaults < file < environment", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcpwire-config-"));
    await writeFile(
      join(dir, "mcp.json"),
      JSON.stringify({ mcpServers: { handbook: { command: "uvx", args: ["handbook-mcp"], timeoutMs: 5_000 } } }),
    );
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("takes the file's declaration when the environment says nothing", async () => {
    const config = await loadServerConfig("handbook", { cwd: dir, home: dir, env: {} });
    expect(config).toEqual({ name: "handbook", transport: "stdio", command: "uvx", args: ["handbook-mcp"], timeoutMs: 5_000 });
  });

  it("moves the same server to HTTP by environment alone, keeping the file's other settings", async () => {
    const env = {
      MCPWIRE_SERVER_HANDBOOK_URL: "http://handbook.support.svc.cluster.local/mcp",
      MCPWIRE_SERVER_HANDBOOK_HEADERS: '{"Authorization":"Bearer x"}',
      MCPWIRE_SERVER_HANDBOOK_MAX_IN_FLIGHT: "8",
    };
    const config = await loadServerConfig("handbook", { cwd: dir, home: dir, env });
    expect(config).toEqual({
      name: "handbook",
      transport: "http",
      url: "http://handbook.support.svc.cluster.local/mcp",
      headers: { Authorization: "Bearer x" },
      timeoutMs: 5_000,
      maxInFlight: 8,
    });
  });

  it("sets every transport's data options by environment, each checked as the file's are", async () => {
    await writeFile(
      join(dir, "mcp.json"),
      JSON.stringify({ mcpServers: { handbook: { command: "uvx", envAllow: ["HOME"], terminateGraceMs: 100 }, socket: { url: "ws://127.0.0.1:1/mcp" } } }),
    );
    const stdio = await loadServerConfig("handbook", {
      cwd: dir,
      home: dir,
      env: {
        MCPWIRE_SERVER_HANDBOOK_ENV_ALLOW: "HOME, PATH",
        MCPWIRE_SERVER_HANDBOOK_CWD: "/srv",
        MCPWIRE_SERVER_HANDBOOK_NON_PROTOCOL_LINES: "skip",
        MCPWIRE_SERVER_HANDBOOK_STDIN_CLOSE_GRACE_MS: "50",
      },
    });
    expect(stdio).toMatchObject({ envAllow: ["HOME", "PATH"], cwd: "/srv", nonProtocolLines: "skip", stdinCloseGraceMs: 50, terminateGraceMs: 100 });
    const socket = await loadServerConfig("socket", {
      cwd: dir,
      home: dir,
      env: { MCPWIRE_SERVER_SOCKET_KEEPALIVE_INTERVAL_MS: "1000", MCPWIRE_SERVER_SOCKET_KEEPALIVE_TIMEOUT_MS: "2000", MCPWIRE_SERVER_SOCKET_UPGRADE_TIMEOUT_MS: "300" },
    });
    expect(socket).toMatchObject({ transport: "websocket", keepAlive: { intervalMs: 1000, timeoutMs: 2000 }, upgradeTimeoutMs: 300 });
    await expect(loadServerConfig("socket", { cwd: dir, home: dir, env: { MCPWIRE_SERVER_SOCKET_LISTEN: "yes" } })).rejects.toThrow(
      "environment variable MCPWIRE_SERVER_SOCKET_LISTEN must be true or false",
    );
    // LISTEN is an HTTP option: a websocket server is refused it, as in a file.
    await expect(loadServerConfig("socket", { cwd: dir, home: dir, env: { MCPWIRE_SERVER_SOCKET_LISTEN: "false" } })).rejects.toThrow(
      '"listen" applies to http servers only',
    );
  });

  it("drops the file's options of the old transport when the environment moves the server to another", async () => {
    await writeFile(join(dir, "mcp.json"), JSON.stringify({ mcpServers: { handbook: { command: "uvx", cwd: "/srv", terminateGraceMs: 100, timeoutMs: 5_000 } } }));
    const config = await loadServerConfig("handbook", { cwd: dir, home: dir, env: { MCPWIRE_SERVER_HANDBOOK_URL: "ws://handbook/mcp" } });
    expect(config).toEqual({ name: "handbook", transport: "websocket", url: "ws://handbook/mcp", timeoutMs: 5_000 });
  });

  it("needs no file when the environment describes the server", async () => {
    const env = { MCPWIRE_SERVER_SEARCH_API_COMMAND: "node 'my server.js' --fast" };
    const empty = await mkdtemp(join(tmpdir(), "mcpwire-empty-"));
    try {
      const config = await loadServerConfig("search-api", { cwd: empty, home: empty, env });
      expect(config).toEqual({ name: "search-api", transport: "stdio", command: "node", args: ["my server.js", "--fast"] });
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it("refuses bad environment values naming the variable", async () => {
    await expect(loadServerConfig("handbook", { cwd: dir, home: dir, env: { MCPWIRE_SERVER_HANDBOOK_TIMEOUT_MS: "soon" } })).rejects.toThrow(
      "environment variable MCPWIRE_SERVER_HANDBOOK_TIMEOUT_MS must be a whole number",
    );
    await expect(
      loadServerConfig("handbook", { cwd: dir, home: dir, env: { MCPWIRE_SERVER_HANDBOOK_URL: "http://x/mcp", MCPWIRE_SERVER_HANDBOOK_COMMAND: "node" } }),
    ).rejects.toThrow("both set");
  });

  it("says which servers exist when the name is unknown", async () => {
    await expect(loadServerConfig("handbok", { cwd: dir, home: dir, env: {} })).rejects.toThrow(/no server named "handbok"; it declares "handbook"/);
  });

  it("searches the usual locations in order, MCPWIRE_CONFIG first", async () => {
    await mkdir(join(dir, ".vscode"));
    await writeFile(join(dir, ".vscode", "mcp.json"), JSON.stringify({ servers: { other: { type: "http", url: "http://127.0.0.1:1/mcp" } } }));
    const explicit = join(dir, "explicit.json");
    await writeFile(explicit, JSON.stringify({ mcpServers: { x: { command: "node" } } }));
    expect(configFileCandidates({ cwd: dir, home: "/h", env: {}, platform: "linux" })).toEqual([
      join(dir, "mcp.json"),
      join(dir, ".mcp.json"),
      join(dir, ".vscode", "mcp.json"),
      join(dir, ".cursor", "mcp.json"),
      "/h/.cursor/mcp.json",
      "/h/.config/Claude/claude_desktop_config.json",
    ]);
    expect((await loadServersFile({ cwd: dir, home: dir, env: {} }))!.source).toBe(join(dir, "mcp.json"));
    expect((await loadServersFile({ cwd: dir, home: dir, env: { MCPWIRE_CONFIG: explicit } }))!.source).toBe(explicit);
  });

  it("fails clearly on a named file that cannot be read", async () => {
    await expect(loadServersFile({ configFile: join(dir, "missing.json") })).rejects.toThrow("cannot read the config file (ENOENT)");
  });
});

describe("a key given twice, which JSON.parse would keep silently the last of", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcpwire-dupes-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function fileWith(...lines: string[]): Promise<string> {
    const path = join(dir, "mcp.json");
    await writeFile(path, lines.join("\n"));
    return path;
  }

  it("refuses a server name declared twice, naming the file, the name and both lines", async () => {
    const path = await fileWith(
      '{ "mcpServers": {',
      '    "handbook": { "command": "uvx", "args": ["handbook-mcp"] },',
      '    "search":   { "url": "https://search.example.com/mcp" },',
      '    "handbook": { "command": "uvx", "args": ["other-mcp"] } } }',
    );
    const message = `${path}: server "handbook" is declared twice (lines 2 and 4); JSON keeps only the last, so the first would be silently replaced: rename or remove one`;
    await expect(loadServerConfig("handbook", { configFile: path, env: {} })).rejects.toThrow(message);
    await expect(loadServersFile({ cwd: dir, home: dir, env: {} })).rejects.toMatchObject({ name: "ConfigError", message });
  });

  it("refuses it in the editor variant and when one of the two is disabled", async () => {
    const path = await fileWith('{ "servers": {', '  "web": { "type": "http", "url": "http://127.0.0.1:1/mcp", "disabled": true },', '  "web": { "type": "http", "url": "http://127.0.0.1:2/mcp" } } }');
    await expect(loadServersFile({ configFile: path, env: {} })).rejects.toThrow(`${path}: server "web" is declared twice (lines 2 and 3)`);
  });

  it("refuses a key given twice in one server's entry, or in an object inside it, naming the server and the key", async () => {
    let path = await fileWith('{ "mcpServers": {', '  "memory": { "command": "npx",', '              "command": "node" } } }');
    await expect(loadServersFile({ configFile: path, env: {} })).rejects.toThrow(
      `${path}: server "memory": key "command" is given twice (lines 2 and 3); JSON keeps only the last: rename or remove one`,
    );
    path = await fileWith('{ "mcpServers": { "memory": { "command": "npx",', '  "env": { "DEBUG": "1" },', '  "env": { "TOKEN": "${env:T}" } } } }');
    await expect(loadServersFile({ configFile: path, env: { T: "t" } })).rejects.toThrow(`${path}: server "memory": key "env" is given twice (lines 2 and 3)`);
    path = await fileWith('{ "mcpServers": { "memory": { "command": "npx", "env": {', '  "DEBUG": "1",', '  "DEBUG": "0" } } } }');
    await expect(loadServersFile({ configFile: path, env: {} })).rejects.toThrow(`${path}: server "memory": key "DEBUG" is given twice in "env" (lines 2 and 3)`);
  });

  it("refuses the servers object itself given twice", async () => {
    const path = await fileWith('{ "mcpServers": { "a": { "command": "x" } },', '  "mcpServers": { "b": { "command": "y" } } }');
    await expect(loadServersFile({ configFile: path, env: {} })).rejects.toThrow(`${path}: "mcpServers" is given twice (lines 1 and 2)`);
  });

  it("does not flag key-like text inside a string value", async () => {
    const path = await fileWith(
      '{ "mcpServers": {',
      '  "jq": { "command": "jq", "args": ["-n", "{\\"command\\": 1, \\"command\\": 2}", "x\\", \\"command\\": \\"y", "C:\\\\"],',
      '          "description": "x\\", \\"command\\": \\"y" } } }',
    );
    const file = await loadServersFile({ configFile: path, env: {} });
    expect(file!.servers.jq).toEqual({ name: "jq", transport: "stdio", command: "jq", args: ["-n", '{"command": 1, "command": 2}', 'x", "command": "y', "C:\\"] });
  });

  it("does not flag the same key at different levels, in different servers, or outside the servers object", async () => {
    const path = await fileWith(
      '{ "inputs": [], "inputs": [],',
      '  "mcpServers": {',
      '    "env": { "command": "x", "env": { "env": "1" } },',
      '    "other": { "command": "y", "env": { "env": "2" } } },',
      '  "servers": { "a": {}, "a": {} } }',
    );
    const file = await loadServersFile({ configFile: path, env: {} });
    expect(Object.keys(file!.servers)).toEqual(["env", "other"]);
    expect(file!.servers.env).toMatchObject({ env: { env: "1" } });
  });
});
