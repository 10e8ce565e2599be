/**
 * The schema library (valita) is loaded by the first connect, not by `import "mcpwire"`, and
 * through `require` (its CommonJS build, without the ES wrapper): a node process reads the
 * CommonJS module cache after the import and after a connect (built package).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const MAIN = `
import { createRequire } from "node:module";
const cache = createRequire(import.meta.url).cache;
const valita = () => Object.keys(cache).filter((path) => path.includes("@badrap/valita")).map((path) => path.slice(path.indexOf("@badrap/valita")));
const { connect, RecordingTransport } = await import(${JSON.stringify(pathToFileURL(join(ROOT, "dist/index.js")).href)});
const afterImport = valita();
const client = await connect(new RecordingTransport({ "tools/list": { tools: [] } }));
await client.listTools();
const afterConnect = valita();
await client.close();
console.log(JSON.stringify({ afterImport, afterConnect }));`;

describe("the schemas are loaded lazily", () => {
  it('leaves valita unloaded by import "mcpwire" and loads its CommonJS build on the first connect', () => {
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", MAIN], { cwd: ROOT, encoding: "utf8", timeout: 25_000 });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    const { afterImport, afterConnect } = JSON.parse(child.stdout) as { afterImport: string[]; afterConnect: string[] };
    expect(afterImport).toEqual([]);
    expect(afterConnect).toEqual([join("@badrap/valita", "dist", "node-cjs", "index.js")]);
  });
});
