import { expect } from "vitest";
import { StdioTransport } from "../../src/index.js";
import { ROOT, runningInGroup, useCleanup } from "../stdio/helpers.js";
import { runContractSuite } from "./suite.js";

// Whatever a failed test leaves running is killed after it (the suite itself closes its clients).
const cleanup = useCleanup();

runContractSuite({
  name: "stdio",
  transport: () => {
    const transport = new StdioTransport({
      command: process.execPath,
      args: ["--import", "tsx", "test/fixtures/contract-server-stdio.ts"],
      cwd: ROOT,
      // The SDK's server does not exit on the end of stdin while a request sleeps; SIGTERM ends it.
      stdinCloseGraceMs: 500,
      terminateGraceMs: 2_000,
    });
    return cleanup.track(transport);
  },
  unavailable: () => new StdioTransport({ command: "mcpwire-test-no-such-command" }),
  assertNothingRunning: async (client) => {
    const transport = client.session.transport as StdioTransport;
    const pid = transport.pid;
    expect(pid).toBeGreaterThan(0);
    // The child's own exit was seen, and no process of its group is alive.
    expect(transport.exitCode !== undefined || transport.exitSignal !== undefined).toBe(true);
    expect(transport.exitCode ?? transport.exitSignal).not.toBeNull();
    expect(runningInGroup(pid!)).toEqual([]);
    const ending = await client.ended;
    expect(ending.exitCode !== undefined || ending.signal !== undefined).toBe(true);
  },
  limitEndsConnection: true,
});
