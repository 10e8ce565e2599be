/**
 * deploy/measure-child-rss.mjs, the measurement the memory limit is sized from: it reports the
 * RSS of real server-everything children spawned by mcpwire's stdio transport, and the committed
 * figure (deploy/child-rss.json), with the formula's growth allowance, covers what a child takes
 * on this machine's Node now.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEPLOY, ROOT, measuredChildRss, type ChildRss } from "./manifests.js";
import { CHILD_GROWTH } from "./memory-budget.js";

const SCRIPT = `${DEPLOY}measure-child-rss.mjs`;
/** A measurement that has not ended by then is a hang, which fails the test. */
const RUN_DEADLINE_MS = 25_000;

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (!existsSync(`${ROOT}dist/index.js`)) throw new Error(`${ROOT}dist/index.js does not exist: run "npm run build" first`);
  const child = spawn(process.execPath, [SCRIPT, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`measure-child-rss did not end within ${RUN_DEADLINE_MS} ms; stderr: ${stderr}`));
    }, RUN_DEADLINE_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe.runIf(process.platform === "linux")("measure-child-rss", () => {
  it("measures each child's RSS and PSS and the driving process's RSS, and writes them as JSON", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "mcpwire-rss-"));
    try {
      const out = join(scratch, "rss.json");
      const { code, stdout, stderr } = await run(["--children", "2", "--out", out]);
      expect(code, stderr).toBe(0);
      const measured = JSON.parse(stdout) as ChildRss;
      expect(JSON.parse(readFileSync(out, "utf8"))).toEqual(measured);
      expect(measured.children).toBe(2);
      expect(measured.node).toBe(process.version);
      // A Node process takes tens of MiB; PSS counts shared pages once, so it is the lower.
      expect(measured.childRssMiB.max).toBeGreaterThan(10);
      expect(measured.childPssMiB.max).toBeLessThanOrEqual(measured.childRssMiB.max);
      expect(measured.driverRssMiB).toBeGreaterThan(10);

      // What the memory limit was sized from, with its allowance, holds what a child takes now.
      expect(measuredChildRss().childRssMiB.max * CHILD_GROWTH).toBeGreaterThanOrEqual(measured.childRssMiB.max);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it("refuses a count of children out of range, saying what it takes", async () => {
    const { code, stderr } = await run(["--children", "0"]);
    expect(code).toBe(2);
    expect(stderr).toContain("is not a whole number from 1 to 64");
  });

  it("fails with its own message when the command does not start a server", async () => {
    const { code, stderr } = await run(["--children", "1", "--", `'${process.execPath}' -e 'process.exit(3)'`]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^measure-child-rss: /);
  });
});
