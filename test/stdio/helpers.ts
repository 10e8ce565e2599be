/**
 * Shared by the stdio tests: fixture servers with a short close ladder, cleanup that runs even
 * when a test fails, and a look at live processes that does not rely on the code under test.
 */
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";
import { McpClient, StdioTransport, type ClientOptions, type StdioTransportOptions } from "../../src/index.js";
export { failure } from "../helpers/failure.js";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));

/** Short waits for the close ladder: the tests are about the steps, not about patience. */
export const FAST_LADDER = { stdinCloseGraceMs: 300, terminateGraceMs: 600 } as const;

/** A transport to one of the plain-JavaScript fixture servers. */
export function fixture(name: string, args: string[] = [], options: Partial<StdioTransportOptions> = {}): StdioTransport {
  return new StdioTransport({ command: process.execPath, args: [FIXTURES + name, ...args], ...FAST_LADDER, ...options });
}

/**
 * Tracks what a test starts and stops it after each test, pass or fail: clients are closed,
 * then any process left in their groups is killed.
 */
export function useCleanup(): {
  connect(transport: StdioTransport, options?: ClientOptions): Promise<McpClient>;
  track(transport: StdioTransport): StdioTransport;
  trackPid(pid: number | undefined): void;
} {
  const clients: McpClient[] = [];
  const transports: StdioTransport[] = [];
  const pids: number[] = [];
  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.close()));
    const groups = [...transports.splice(0).map((t) => t.pid), ...pids.splice(0)];
    for (const pid of groups) {
      if (pid === undefined) continue;
      for (const target of [-pid, pid]) {
        try {
          process.kill(target, "SIGKILL");
        } catch {
          // gone already, as it should be
        }
      }
    }
  });
  return {
    async connect(transport, options = {}) {
      transports.push(transport);
      const client = await McpClient.connect(transport, options);
      clients.push(client);
      return client;
    },
    track(transport) {
      transports.push(transport);
      return transport;
    },
    trackPid(pid) {
      if (pid !== undefined) pids.push(pid);
    },
  };
}

interface ProcStat {
  pid: number;
  state: string;
  pgrp: number;
}

function readStat(pid: string): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pid: Number(pid), state: fields[0]!, pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/** True while `pid` is a running process (a zombie is not). */
export function isRunning(pid: number): boolean {
  if (process.platform !== "linux") {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  const stat = readStat(String(pid));
  return stat !== undefined && stat.state !== "Z" && stat.state !== "X";
}

/** The running processes of group `pgid` (zombies excluded). */
export function runningInGroup(pgid: number): number[] {
  if (process.platform !== "linux") {
    try {
      process.kill(-pgid, 0);
      return [pgid];
    } catch {
      return [];
    }
  }
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(readStat)
    .filter((stat): stat is ProcStat => stat !== undefined && stat.pgrp === pgid && stat.state !== "Z" && stat.state !== "X")
    .map((stat) => stat.pid);
}

/** Resolves once `check` holds; fails after a generous deadline (the machine may be loaded). */
export async function eventually(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The text of the first content block of a tool result. */
export function firstText(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}
