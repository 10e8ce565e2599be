import { describe, expect, it } from "vitest";
import { parseServerConfig } from "../../src/config/server-config.js";
import { expandVariables } from "../../src/config/expand.js";

const where = 'mcp.json: server "handbook"';

describe("parseServerConfig", () => {
  it("accepts a stdio and a remote declaration, keeping only the keys given", () => {
    expect(parseServerConfig({ name: "handbook", transport: "stdio", command: "uvx", args: ["handbook-mcp"], envAllow: ["HOME", "PATH"] }, where)).toEqual({
      name: "handbook",
      transport: "stdio",
      command: "uvx",
      args: ["handbook-mcp"],
      envAllow: ["HOME", "PATH"],
    });
    expect(
      parseServerConfig(
        { name: "handbook", transport: "http", url: "http://handbook.svc.cluster.local/mcp", headers: { Authorization: "Bearer t" }, timeoutMs: 5_000 },
        where,
      ),
    ).toEqual({ name: "handbook", transport: "http", url: "http://handbook.svc.cluster.local/mcp", headers: { Authorization: "Bearer t" }, timeoutMs: 5_000 });
  });

  it("accepts the names Windows gives its variables, such as ProgramFiles(x86), in envAllow and env", () => {
    const declared = { name: "tools", transport: "stdio", command: "x", envAllow: ["ProgramFiles(x86)", "CommonProgramFiles(x86)"], env: { "ProgramFiles(x86)": "C:\\PF86" } };
    expect(parseServerConfig(declared, where)).toMatchObject({ envAllow: ["ProgramFiles(x86)", "CommonProgramFiles(x86)"], env: { "ProgramFiles(x86)": "C:\\PF86" } });
  });

  it.each([
    [{ name: "handbook", transport: "stdio" }, 'a stdio server needs "command"'],
    [{ name: "handbook", transport: "stdio", command: "uvx", url: "http://x/mcp" }, 'a stdio server takes no "url"'],
    [{ name: "handbook", transport: "http", command: "uvx", url: "http://x/mcp" }, 'a http server takes no "command"'],
    [{ name: "handbook", transport: "http" }, 'a http server needs "url"'],
    [{ name: "handbook", transport: "http", url: "not a url" }, '"url" is not a valid URL'],
    [{ name: "handbook", transport: "websocket", url: "http://x/ws" }, "must start with ws:// or wss://"],
    [{ name: "handbook", transport: "http", url: "http://user:pw@x/mcp" }, "must not carry credentials"],
    [{ name: "handbook", transport: "stdio", comand: "uvx" }, 'unknown key "comand" (did you mean "command"?)'],
    [{ name: "handbook", transport: "tcp", url: "x" }, '"transport" must be one of stdio, http, sse, websocket'],
    [{ name: "handbook", transport: "stdio", command: "x", timeoutMs: -1 }, '"timeoutMs" must be a whole number'],
    [{ name: "handbook", transport: "stdio", command: "x", args: "a b" }, '"args" must be a list of strings'],
    [{ name: "handbook", transport: "stdio", command: "x", env: { A: 1 } }, '"env.A" must be a string'],
    [{ name: "handbook", transport: "stdio", command: "x", envAllow: ["OK", "A=B"] }, '"envAllow" holds "A=B", which is not a variable name (a name is non-empty, without "=" or NUL)'],
    [{ name: "handbook", transport: "stdio", command: "x", env: { "A=B": "v" } }, '"env" has a bad name "A=B"'],
    [{ name: "handbook", transport: "sse", url: "http://x/sse", fallback: false }, '"fallback" applies to http servers only'],
    [{ name: "handbook", transport: "http", url: "http://x/mcp", redirect: "always" }, '"redirect" must be "same-origin" or "none"'],
    [{ name: "handbook", transport: "stdio", command: "x", stderrTailLines: 0 }, '"stderrTailLines" must be a whole number from 1'],
    [{ name: "handbook", transport: "stdio", command: "x", terminateGraceMs: -1 }, '"terminateGraceMs" must be a whole number of ms from 0'],
    [{ name: "handbook", transport: "stdio", command: "x", nonProtocolLines: "ignore" }, '"nonProtocolLines" must be "fail" or "skip"'],
    [{ name: "handbook", transport: "stdio", command: "x", keepAlive: {} }, 'a stdio server takes no "keepAlive"'],
    [{ name: "handbook", transport: "websocket", url: "ws://x/mcp", keepAlive: { intervalMs: -1 } }, '"keepAlive.intervalMs" must be a whole number of ms from 0 (off)'],
    [{ name: "handbook", transport: "websocket", url: "ws://x/mcp", keepAlive: { interval: 1 } }, '"keepAlive.interval" is not an option'],
    [{ name: "handbook", transport: "websocket", url: "ws://x/mcp", upgradeTimeoutMs: 0 }, '"upgradeTimeoutMs" must be a whole number of ms from 1'],
    [{ name: "handbook", transport: "websocket", url: "ws://x/mcp", redirect: "none" }, '"redirect" applies to http and sse servers only'],
    [{ name: "handbook", transport: "sse", url: "http://x/sse", listen: false }, '"listen" applies to http servers only'],
    [{ name: "handbook", transport: "http", url: "http://x/mcp", listen: "no" }, '"listen" must be true or false'],
    [{ name: "handbook", transport: "http", url: "http://x/mcp", closeTimeoutMs: 5 }, '"closeTimeoutMs" applies to websocket servers only'],
  ])("refuses %j naming the server and the problem", (value, words) => {
    expect(() => parseServerConfig(value, where)).toThrow(`${where}: `);
    expect(() => parseServerConfig(value, where)).toThrow(words);
  });
});

describe("expandVariables", () => {
  const env = { TOKEN: "abc", EMPTY: "" };
  it("expands ${env:NAME}, ${NAME} and ${NAME:-fallback}", () => {
    expect(expandVariables("Bearer ${env:TOKEN}/${TOKEN}", env, "x")).toBe("Bearer abc/abc");
    expect(expandVariables("${MISSING:-none} ${EMPTY:-blank}", env, "x")).toBe("none blank");
    expect(expandVariables("no references", env, "x")).toBe("no references");
  });
  it("expands names with parentheses, as Windows has them (${env:ProgramFiles(x86)}, ${ProgramFiles(x86)})", () => {
    const windows = { "ProgramFiles(x86)": "C:\\Program Files (x86)" };
    expect(expandVariables("${env:ProgramFiles(x86)}\\tool.exe", windows, "x")).toBe("C:\\Program Files (x86)\\tool.exe");
    expect(expandVariables("${ProgramFiles(x86)}", windows, "x")).toBe("C:\\Program Files (x86)");
    expect(expandVariables("${CommonProgramFiles(x86):-none}", windows, "x")).toBe("none");
    expect(() => expandVariables("${env:CommonProgramFiles(x86)}", windows, "x")).toThrow(
      "x: the environment variable CommonProgramFiles(x86) is not set",
    );
  });
  it("leaves other ${...} text as it is, for the child's shell", () => {
    for (const text of ["${HOME%/*}", "${#TOKEN}", "${ TOKEN }", "${}", "${1X}", "${TOKEN:=x}", "${a b}"]) {
      expect(expandVariables(text, env, "x")).toBe(text);
    }
  });
  it("refuses an unset variable, naming it", () => {
    expect(() => expandVariables("Bearer ${env:GITHUB_TOKEN}", env, "mcp.json: server \"gh\".headers")).toThrow(
      'mcp.json: server "gh".headers: the environment variable GITHUB_TOKEN is not set',
    );
  });
});
