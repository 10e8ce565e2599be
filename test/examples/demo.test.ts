import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

describe("npm start (examples/demo.ts)", () => {
  it("prints the example server's tools and a tool result, and exits 0", async () => {
    const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", "examples/demo.ts"], { timeout: 60_000 });
    expect(stdout).toContain("tools: search_handbook, count_words");
    expect(stdout).toContain('search_handbook("refund") -> refunds: Refunds are issued within 14 days');
    expect(stdout).toContain("Done: every connection is closed.");
    expect(stderr).toBe("");
  });
});
