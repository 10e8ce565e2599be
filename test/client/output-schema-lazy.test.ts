/**
 * The JSON Schema validator is loaded when a first output schema is checked, not by
 * `import "mcpwire"`: a node process with a module hook logs every module it loads, with marks
 * after the import and after a checked call (built package, real stdio server).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "mcpwire-lazy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOOKS = `
import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.MODULE_LOG, url + "\\n");
  return next(url, context);
}`;

const REGISTER = `
import { register } from "node:module";
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

const server = `${JSON.stringify(process.execPath)} --import tsx test/fixtures/output-schema-server.ts stdio`;

const MAIN = `
import { appendFileSync } from "node:fs";
const mark = (what) => appendFileSync(process.env.MODULE_LOG, "-- " + what + "\\n");
const { connect } = await import(${JSON.stringify(pathToFileURL(join(ROOT, "dist/index.js")).href)});
mark("imported");
const client = await connect(${JSON.stringify(server)});
await client.callTool("list_count");
mark("called a tool without a schema");
await client.callTool("matching");
mark("checked an output schema");
await client.close();`;

describe("the validator is loaded lazily", () => {
  it('is absent after import "mcpwire" and after calls with nothing to check, present after the first check', () => {
    const log = join(dir, "modules.log");
    const child = spawnSync(
      process.execPath,
      ["--import", `data:text/javascript,${encodeURIComponent(REGISTER)}`, "--input-type=module", "-e", MAIN],
      { cwd: ROOT, env: { ...process.env, MODULE_LOG: log }, encoding: "utf8", timeout: 25_000 },
    );
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    const lines = readFileSync(log, "utf8").split("\n");
    const imported = lines.indexOf("-- imported");
    const withoutSchema = lines.indexOf("-- called a tool without a schema");
    const checked = lines.indexOf("-- checked an output schema");
    expect(imported).toBeGreaterThan(0);
    expect(withoutSchema).toBeGreaterThan(imported);
    expect(checked).toBeGreaterThan(withoutSchema);
    const validator = (line: string) => line.includes("/node_modules/@cfworker/json-schema/");
    // The hook sees mcpwire's own modules, so an absence means something.
    expect(lines.slice(0, imported).some((line) => line.includes("/dist/index.js"))).toBe(true);
    expect(lines.slice(0, withoutSchema).filter(validator)).toEqual([]);
    expect(lines.slice(withoutSchema, checked).some(validator)).toBe(true);
  });
});
