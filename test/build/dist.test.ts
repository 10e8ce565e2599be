/**
 * What `npm run build` leaves in dist/ (scripts/build.mjs): every entry of package.json's
 * `exports` and `bin` with its declarations, exports that keep their names through the bundle,
 * the version written in, and `import "mcpwire"` served by a few files rather than a module per
 * source file (the load time and RSS that buys are in bench/RESULTS.md, "The schemas without
 * zod, and one file to load").
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface PackageJson {
  version: string;
  bin: Record<string, string>;
  exports: Record<string, string | { types: string; import: string }>;
}
const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as PackageJson;
const entries = Object.entries(manifest.exports).flatMap(([name, target]) => (typeof target === "string" ? [] : [{ name, ...target }]));

function runNode(args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", timeout: 25_000 });
}

/**
 * Loader hooks that print each file URL loaded. `writeSync`, not `process.stdout.write`: from
 * Node 22 on, hooks run on a thread of their own, whose asynchronous writes may be lost when the
 * process exits (1 run in 5 on Node 24 printed nothing).
 */
const LOAD_LOGGER = `import { writeSync } from "node:fs"; export async function load(url, context, next) { if (url.startsWith("file:")) writeSync(1, url + "\\n"); return next(url, context); }`;

describe("the built package", () => {
  it("has every entry of exports and bin, with its declarations", () => {
    expect(entries.map((entry) => entry.name)).toEqual([".", "./testing", "./ai", "./langchain", "./sdk"]);
    for (const entry of entries) {
      expect(existsSync(`${ROOT}${entry.import}`), entry.import).toBe(true);
      expect(existsSync(`${ROOT}${entry.types}`), entry.types).toBe(true);
    }
    for (const bin of Object.values(manifest.bin)) expect(readFileSync(`${ROOT}${bin}`, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("keeps the name of every class and function it exports", async () => {
    const renamed: string[] = [];
    for (const entry of entries) {
      if (entry.name === "./ai" || entry.name === "./langchain") continue; // their optional peers are imported at the top
      const module = (await import(pathToFileURL(`${ROOT}${entry.import}`).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(module)) {
        if (typeof value === "function" && value.name !== name) renamed.push(`${entry.name} ${name} is named ${value.name}`);
      }
    }
    expect(renamed).toEqual([]);
  });

  it("carries the package's version, wherever its code lands", () => {
    expect(runNode([`${ROOT}dist/cli/main.js`, "--version"]).stdout).toBe(`${manifest.version}\n`);
    expect(readFileSync(`${ROOT}dist/cli/main.js`, "utf8")).not.toMatch(/package\.json/);
  });

  it('serves import "mcpwire" from a few files rather than one a source file, none of them the schemas or a dependency', () => {
    const hooks = LOAD_LOGGER;
    const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
    const child = runNode(["--import", `data:text/javascript,${encodeURIComponent(register)}`, "--input-type=module", "-e", `await import(${JSON.stringify(pathToFileURL(`${ROOT}dist/index.js`).href)});`]);
    expect(child.stderr).toBe("");
    const loaded = child.stdout.trim().split("\n");
    // No runtime dependency either: each loads with the feature that needs it (README, "Runtime dependencies").
    expect(loaded.filter((url) => url.includes("/node_modules/"))).toEqual([]);
    const files = loaded.filter((url) => url.includes("/dist/"));
    expect(files[0]).toMatch(/\/dist\/index\.js$/);
    // The entry and the chunks esbuild cuts by which entries share what: about thirty (31 once the
    // adapters shared the client's option checks), against about 200 for one module a source file.
    expect(files.length).toBeLessThanOrEqual(32);
    expect(files.filter((file) => /schemas/.test(file))).toEqual([]);
  });

  it('leaves the gateway\'s serving parts and the bridge\'s relay unloaded by import "mcpwire" (they load when one is started)', () => {
    const hooks = LOAD_LOGGER;
    const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
    const child = runNode(["--import", `data:text/javascript,${encodeURIComponent(register)}`, "--input-type=module", "-e", `await import(${JSON.stringify(pathToFileURL(`${ROOT}dist/index.js`).href)});`]);
    expect(child.stderr).toBe("");
    const sources = child.stdout
      .trim()
      .split("\n")
      .filter((url) => url.includes("/dist/"))
      .flatMap((url) => readFileSync(fileURLToPath(url), "utf8").match(/^\/\/ src\/\S+/gm) ?? []);
    expect(sources).toContain("// src/gateway/gateway.ts");
    expect(sources).toContain("// src/gateway/bridge/stdio-bridge.ts");
    const serving = sources.filter((source) => /^\/\/ src\/gateway\/(gateway-core|default-children|children\/(?!check-options)|sessions\/|http\/(handler|post-handler|forward)|bridge\/bridge-relay)/.test(source));
    expect(serving).toEqual([]);
  });

  it('leaves Node\'s HTTP client and server unloaded by import "mcpwire" (the gateway loads them when it listens)', () => {
    const script = `const before = new Set(process.moduleLoadList);
      await import(${JSON.stringify(pathToFileURL(`${ROOT}dist/index.js`).href)});
      console.log(JSON.stringify(process.moduleLoadList.filter((name) => !before.has(name))));`;
    const child = runNode(["--input-type=module", "-e", script]);
    expect(child.stderr).toBe("");
    const loaded = JSON.parse(child.stdout) as string[];
    expect(loaded.length).toBeGreaterThan(0);
    expect(loaded.filter((name) => /^NativeModule (http|https|_http_\w+)$/.test(name))).toEqual([]);
  });
});
