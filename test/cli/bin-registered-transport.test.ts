/**
 * The bin reaches a transport registered by a module loaded first (NODE_OPTIONS="--import ..."),
 * named by a server of an mcpServers file; without that module the file is refused, naming the
 * transports that exist.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { FIXTURES, runBin } from "./helpers.js";

const REGISTRATION = { NODE_OPTIONS: `--import ${pathToFileURL(join(FIXTURES, "register-contract-transport.mjs")).href}` };

let dir: string;
let configFile: string;
let typoFile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mcpwire-cli-registered-"));
  configFile = join(dir, "mcp.json");
  await writeFile(configFile, JSON.stringify({ mcpServers: { contract: { transport: "contract-memory", label: "shelf" } } }));
  typoFile = join(dir, "typo.json");
  await writeFile(typoFile, JSON.stringify({ mcpServers: { typo: { type: "contract-memory", lable: "x" } } }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("mcpwire with a registered transport", () => {
  it("lists and calls the tools of a server declared with it", async () => {
    const tools = await runBin(["tools", "contract", "--config", configFile], { env: REGISTRATION });
    expect(tools.stderr).toBe("");
    expect(tools.code).toBe(ExitCode.OK);
    expect(tools.stdout).toMatch(/^echo\b/m);
    const call = await runBin(["call", "contract", "echo", "text=through the registry", "--config", configFile], { env: REGISTRATION });
    expect(call.code).toBe(ExitCode.OK);
    expect(call.stdout).toContain("through the registry");
  });

  it("refuses the file, naming the transports, when nothing registered it", async () => {
    const result = await runBin(["tools", "contract", "--config", configFile]);
    expect(result.code).toBe(ExitCode.CONFIG);
    expect(result.stderr).toContain(`"transport" must be one of stdio, http, sse, websocket (built in), or a name given to registerTransport (none is registered), got "contract-memory"`);
  });

  it("refuses a key its factory does not take, with a did you mean", async () => {
    const typo = await runBin(["tools", "typo", "--config", typoFile], { env: REGISTRATION });
    expect(typo.code).toBe(ExitCode.CONFIG);
    expect(typo.stderr).toContain('unknown key "lable" (did you mean "label"?)');
  });
});
