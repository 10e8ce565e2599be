/**
 * deploy/link-server-bin.mjs, run at image build time: it links the installed package's command
 * to <prefix>/bin/mcp-server, the entrypoint's default target, and refuses, naming what to give,
 * a package whose command cannot be told.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEPLOY } from "./manifests.js";

const SCRIPT = `${DEPLOY}link-server-bin.mjs`;

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [SCRIPT, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

let prefix: string;

beforeEach(() => {
  prefix = mkdtempSync(join(tmpdir(), "mcpwire-link-"));
});
afterEach(() => rmSync(prefix, { recursive: true, force: true }));

/** A package installed under the prefix, with `bin` as given and a script at each path it names. */
function installPackage(name: string, bin: unknown, scripts: string[] = []): void {
  const dir = join(prefix, "node_modules", name);
  mkdirSync(join(dir, "dist"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "1.0.0", bin }));
  for (const script of scripts) {
    writeFileSync(join(dir, script), "#!/usr/bin/env node\nprocess.stdout.write('served\\n');\n");
    chmodSync(join(dir, script), 0o644);
  }
}

describe("link-server-bin", () => {
  it("links a package's one command, made executable, to bin/mcp-server", async () => {
    installPackage("@acme/server", "dist/index.js", ["dist/index.js"]);
    const { code, stdout } = await run([prefix, "@acme/server"]);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(join(prefix, "bin", "mcp-server"));
    expect(readlinkSync(join(prefix, "bin", "mcp-server"))).toBe("../node_modules/@acme/server/dist/index.js");
    const served = spawn(join(prefix, "bin", "mcp-server"), [], { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    served.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    expect(await new Promise((resolve) => served.on("close", resolve))).toBe(0);
    expect(output).toBe("served\n");
  });

  it("picks the command named when the package has several", async () => {
    installPackage("multi", { "multi-a": "dist/a.js", "multi-b": "dist/b.js" }, ["dist/a.js", "dist/b.js"]);
    expect((await run([prefix, "multi", "multi-b"])).code).toBe(0);
    expect(readlinkSync(join(prefix, "bin", "mcp-server"))).toBe("../node_modules/multi/dist/b.js");
  });

  it("refuses a package with several commands and none named, listing them and the build argument", async () => {
    installPackage("multi", { "multi-a": "dist/a.js", "multi-b": "dist/b.js" }, ["dist/a.js", "dist/b.js"]);
    const { code, stderr } = await run([prefix, "multi"]);
    expect(code).toBe(1);
    expect(stderr).toContain("multi-a, multi-b");
    expect(stderr).toContain("MCP_SERVER_BIN");
  });

  it("refuses a command the package does not have, naming the ones it has", async () => {
    installPackage("multi", { "multi-a": "dist/a.js" }, ["dist/a.js"]);
    const { code, stderr } = await run([prefix, "multi", "multi-z"]);
    expect(code).toBe(1);
    expect(stderr).toContain('no command "multi-z"; it has "multi-a"');
  });

  it("refuses a package that declares no command", async () => {
    installPackage("library-only", undefined);
    const { code, stderr } = await run([prefix, "library-only"]);
    expect(code).toBe(1);
    expect(stderr).toContain("declares no command");
  });

  it("refuses a command whose file is missing", async () => {
    installPackage("broken", "dist/missing.js");
    const { code, stderr } = await run([prefix, "broken"]);
    expect(code).toBe(1);
    expect(stderr).toContain("missing.js");
  });

  it("says how to call it when the arguments are missing", async () => {
    const { code, stderr } = await run([]);
    expect(code).toBe(2);
    expect(stderr).toContain("usage: node link-server-bin.mjs <prefix> <package> [bin]");
  });
});
