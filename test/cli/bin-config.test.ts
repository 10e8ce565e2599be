/**
 * Server names from an `mcpServers` file: named with --config, found in the working directory,
 * overridden or described by MCPWIRE_SERVER_<NAME>_* variables; and what happens when a name is
 * not declared or a file is wrong.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { startHttpContractServer, type HttpContractServer } from "../fixtures/http-contract-server.js";
import { ROOT, runBin, type RunOptions } from "./helpers.js";

const EVERYTHING_ENTRY = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

let server: HttpContractServer;
let dir: string;
let configFile: string;
/** A home with no config files, so that the machine's own never join in. */
let home: string;

beforeAll(async () => {
  server = await startHttpContractServer({ replies: "sse", stateful: true });
  dir = await mkdtemp(join(tmpdir(), "mcpwire-cli-"));
  home = join(dir, "home");
  await mkdir(home);
  configFile = join(dir, "mcp.json");
  await writeFile(
    configFile,
    JSON.stringify({
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING_ENTRY, "stdio"] },
        remote: { url: server.url },
        retired: { command: process.execPath, args: [EVERYTHING_ENTRY, "stdio"], disabled: true },
      },
    }),
  );
});

afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function inDir(cwd: string, env: Record<string, string> = {}): RunOptions {
  return { cwd, env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), ...env } };
}

describe("mcpwire with a config file", () => {
  it("--config FILE: a stdio server by name", async () => {
    const { code, stdout, stderr } = await runBin(["info", "everything", "--config", configFile, "--json"], inDir(home));
    expect(stderr).toBe("");
    expect(code).toBe(ExitCode.OK);
    expect(JSON.parse(stdout)).toMatchObject({ transport: "stdio", serverInfo: { name: expect.stringMatching(/everything/) } });
  });

  it("found in the working directory: an HTTP server by name", async () => {
    const { code, stdout } = await runBin(["info", "remote", "--json"], inDir(dir));
    expect(code).toBe(ExitCode.OK);
    expect(JSON.parse(stdout)).toMatchObject({ transport: "streamable-http", serverInfo: { name: "contract-server" } });
  });

  it("--verbose says which file the server came from", async () => {
    const { code, stderr } = await runBin(["ping", "remote", "--verbose"], inDir(dir));
    expect(code).toBe(ExitCode.OK);
    expect(stderr).toBe(`mcpwire: target: server "remote" from ${configFile} (http)\n`);
  });

  it("a server the environment alone describes needs no file", async () => {
    const { code, stdout } = await runBin(["call", "handbook", "echo", "text=from env"], inDir(home, { MCPWIRE_SERVER_HANDBOOK_URL: server.url }));
    expect({ code, stdout }).toEqual({ code: ExitCode.OK, stdout: "from env\n" });
  });

  it("a name no file declares is run as a command, and the failure says no server has that name", async () => {
    const { code, stderr } = await runBin(["tools", "everythin"], inDir(dir));
    expect(code).toBe(ExitCode.UNAVAILABLE);
    expect(stderr).toContain(`${configFile} declares no server "everythin" (it declares "everything", "remote")`);
  });

  it("a server marked disabled: a config error", async () => {
    const { code, stderr } = await runBin(["tools", "retired", "--config", configFile], inDir(home));
    expect(code).toBe(ExitCode.CONFIG);
    expect(stderr).toMatch(/^mcpwire: .*server "retired" is marked "disabled": true\n$/);
  });

  it("--config naming a file that does not exist: a config error", async () => {
    const { code, stderr } = await runBin(["tools", "everything", "--config", join(dir, "missing.json")], inDir(home));
    expect(code).toBe(ExitCode.CONFIG);
    expect(stderr).toMatch(/missing\.json: cannot read the config file \(ENOENT\)/);
  });

  it("--config with a URL or a command line, which no file is read for: a usage error, not a flag dropped", async () => {
    for (const target of [server.url, `${process.execPath} ${EVERYTHING_ENTRY} stdio`]) {
      const { code, stderr } = await runBin(["ping", target, "--config", configFile], inDir(home));
      expect(code).toBe(ExitCode.USAGE);
      expect(stderr).toMatch(/^mcpwire: --config applies to a server named in the file; this target is the (http endpoint|command line) /);
    }
  });

  it("a broken file: a config error for a name, but no obstacle to a command line", async () => {
    const broken = join(dir, "broken");
    await mkdir(broken);
    await writeFile(join(broken, ".mcp.json"), "{ not json");
    const byName = await runBin(["tools", "everything"], inDir(broken));
    expect(byName.code).toBe(ExitCode.CONFIG);
    expect(byName.stderr).toMatch(/\.mcp\.json: not valid JSON/);
    const byCommand = await runBin(["ping", `${process.execPath} ${EVERYTHING_ENTRY} stdio`], inDir(broken));
    expect(byCommand.code).toBe(ExitCode.OK);
  });

  it("a server name or a key of one server given twice: a config error naming the file, the server, the key and the lines", async () => {
    const twice = join(dir, "twice");
    await mkdir(twice);
    const sameName = join(twice, "same-name.json");
    await writeFile(sameName, ['{ "mcpServers": {', `  "remote": { "url": "${server.url}" },`, '  "remote": { "url": "http://127.0.0.1:1/mcp" } } }'].join("\n"));
    const byName = await runBin(["ping", "remote", "--config", sameName], inDir(home));
    expect(byName.code).toBe(ExitCode.CONFIG);
    expect(byName.stderr).toBe(`mcpwire: ${sameName}: server "remote" is declared twice (lines 2 and 3); JSON keeps only the last, so the first would be silently replaced: rename or remove one\n`);
    const sameKey = join(twice, "same-key.json");
    await writeFile(sameKey, ['{ "mcpServers": { "remote": {', `  "url": "${server.url}",`, '  "headers": { "X-A": "1" },', '  "headers": { "X-B": "2" } } } }'].join("\n"));
    const byKey = await runBin(["ping", "remote", "--config", sameKey], inDir(home));
    expect(byKey.code).toBe(ExitCode.CONFIG);
    expect(byKey.stderr).toBe(`mcpwire: ${sameKey}: server "remote": key "headers" is given twice (lines 3 and 4); JSON keeps only the last: rename or remove one\n`);
  });

  it("the same key at different levels, or key-like text in a string, is no duplicate", async () => {
    const fine = join(dir, "fine.json");
    await writeFile(
      fine,
      [
        '{ "mcpServers": {',
        `  "headers": { "url": "${server.url}", "headers": { "headers": "x\\", \\"headers\\": \\"y" } },`,
        `  "remote": { "url": "${server.url}", "headers": { "headers": "x" } } } }`,
      ].join("\n"),
    );
    const { code, stderr } = await runBin(["ping", "headers", "--config", fine], inDir(home));
    expect({ code, stderr }).toEqual({ code: ExitCode.OK, stderr: "" });
  });
});
