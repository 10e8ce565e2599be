import { expect } from "vitest";
import { StdioTransport } from "../../src/index.js";
import { ROOT, runningInGroup, useCleanup } from "../stdio/helpers.js";
import { runContractSuite } from "./suite.js";

const cleanup = useCleanup();

// The contract suite against a modern-era server (revision 2026-07-28, official SDK v2) over stdio.
runContractSuite({
  name: "stdio, modern era",
  era: "modern",
  transport: () =>
    cleanup.track(
      new StdioTransport({
        command: process.execPath,
        args: ["--import", "tsx", "test/fixtures/modern-contract-server.ts", "stdio"],
        cwd: ROOT,
        stdinCloseGraceMs: 500,
        terminateGraceMs: 2_000,
      }),
    ),
  unavailable: () => new StdioTransport({ command: "mcpwire-test-no-such-command" }),
  assertNothingRunning: async (client) => {
    const transport = client.session.transport as StdioTransport;
    expect(runningInGroup(transport.pid!)).toEqual([]);
  },
  limitEndsConnection: true,
});
