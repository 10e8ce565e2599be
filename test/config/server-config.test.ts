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
    [{ name: "handbook", transport: "stdio", command: "x", envAllow: ["OK", "NOT OK"] }, "is not a variable name"],
    [{ name: "handbook", transport: "sse", url: "http://x/sse", fallback: false }, '"fallback" applies to http servers only'],
    [{ name: "handbook", transport: "http", url: "http://x/mcp", redirect: "always" }, '"redirect" must be "same-origin" or "none"'],
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
  it("refuses an unset variable, naming it", () => {
    expect(() => expandVariables("Bearer ${env:GITHUB_TOKEN}", env, "mcp.json: server \"gh\".headers")).toThrow(
      'mcp.json: server "gh".headers: the environment variable GITHUB_TOKEN is not set',
    );
  });
});
