import { describe, expect, it } from "vitest";
import { DEFAULT_STDIN_CLOSE_GRACE_MS, DEFAULT_TERMINATE_GRACE_MS, loadSpawner, spawnProcessTree } from "../../src/transport/stdio/process-tree.js";

// On POSIX mcpwire spawns with node:child_process directly (cross-spawn is for Windows' .cmd
// shims), so the first child starts without waiting for a module to load (bench/RESULTS.md,
// "Cold start"). These check that this costs nothing in what reaches the child.
describe.skipIf(process.platform === "win32")("spawning on POSIX", () => {
  it("has nothing to load before the first spawn", () => {
    expect(loadSpawner()).toBeUndefined();
  });

  it("passes every argument to the child unchanged: spaces, quotes, shell characters, an empty one", async () => {
    const args = ["two words", `"quoted"`, "it's", "$HOME", "a;b|c&d", "", "*"];
    const tree = spawnProcessTree(process.execPath, ["-e", "process.stdout.write(JSON.stringify(process.argv.slice(1)))", ...args], {
      env: { PATH: process.env.PATH ?? "" },
    });
    let output = "";
    tree.child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    await tree.exited;
    expect(JSON.parse(output)).toEqual(args);
    await tree.stop({ stdinCloseGraceMs: DEFAULT_STDIN_CLOSE_GRACE_MS, terminateGraceMs: DEFAULT_TERMINATE_GRACE_MS });
  });

  it("reports a command that does not exist as an 'error' on the child, as cross-spawn would", async () => {
    const tree = spawnProcessTree("mcpwire-no-such-command", [], { env: { PATH: process.env.PATH ?? "" } });
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => tree.child.once("error", resolve));
    expect(error.code).toBe("ENOENT");
    await tree.exited;
  });
});
