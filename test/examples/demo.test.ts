import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

describe("npm start (examples/demo.ts)", () => {
  it("reaches the example server over stdio, HTTP and in memory with the same calls, and exits 0", async () => {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", "examples/demo.ts"], { timeout: 60_000 });
    for (const kind of ["stdio", "streamable-http", "memory", "recording"]) {
      expect(stdout).toMatch(new RegExp(`connected to \\S+ \\S+ over ${kind}, protocol`));
    }
    expect(stdout.match(/tools: search_handbook, count_words/g)).toHaveLength(3);
    expect(stdout.match(/search_handbook\("refund"\) -> refunds: Refunds are issued within 14 days/g)).toHaveLength(3);
    expect(stdout).toContain("Done: every connection is closed and nothing is left running.");
    expect(stderr).toBe("");
  });
});
