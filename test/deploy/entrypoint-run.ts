/**
 * Runs deploy/entrypoint.sh as the image runs it, and watches what it says: JSON lines on stdout
 * and stderr, awaited in order, each wait bounded; and what it leaves behind.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { afterEach } from "vitest";
import { DEPLOY } from "./manifests.js";

export const ENTRYPOINT = `${DEPLOY}entrypoint.sh`;
/** How long a run may take before the test gives up on it (a hang is a failure, not a wait). */
export const RUN_DEADLINE_MS = 25_000;

export interface Run {
  child: ChildProcess;
  /** The next line on stdout (or on stderr, for `stderrLine`) that parses as JSON, in order. */
  stdoutLine(): Promise<Record<string, unknown>>;
  stderrLine(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

const running = new Set<ChildProcess>();

/**
 * Registers the afterEach that kills what `startEntrypoint` started, for the file it is called in.
 */
export function killedAfterEach(): void {
  afterEach(async () => {
    // Whatever a test left running is killed and reaped before the next one: the entrypoint's whole
    // process group, so that an entrypoint that failed to exec leaves no orphan behind it.
    await Promise.all(
      [...running].map(async (child) => {
        const gone = child.exitCode === null && child.signalCode === null ? new Promise((resolve) => child.once("exit", resolve)) : undefined;
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // the group is gone already
        }
        await gone;
      }),
    );
    running.clear();
  });
}

/**
 * Runs the entrypoint (or `command`, an argv that ends by exec-ing it) with only `env` and PATH,
 * as the leader of its own process group.
 */
export function startEntrypoint(env: Record<string, string>, command: readonly string[] = [ENTRYPOINT]): Run {
  // The host's MCPWIRE_* variables never steer the run; PATH is what finds node.
  // detached: the leader of its own process group, which afterEach kills as a whole.
  const child = spawn(command[0]!, command.slice(1), { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  running.add(child);
  let stdout = "";
  let stderr = "";
  const stdoutWaiters: ((line: Record<string, unknown>) => void)[] = [];
  const stdoutLines: Record<string, unknown>[] = [];
  const stderrWatchers: { match: (line: Record<string, unknown>) => boolean; resolve: (line: Record<string, unknown>) => void }[] = [];
  const jsonLines = (buffer: string, take: (line: Record<string, unknown>) => void): string => {
    const lines = buffer.split("\n");
    for (const line of lines.slice(0, -1)) {
      try {
        take(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a JSON line
      }
    }
    return lines.at(-1)!;
  };
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    stdout = jsonLines(stdout + chunk, (line) => {
      const waiter = stdoutWaiters.shift();
      if (waiter) waiter(line);
      else stdoutLines.push(line);
    });
  });
  let stderrAll = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderrAll += chunk;
    stderr = jsonLines(stderr + chunk, (line) => {
      for (const watcher of stderrWatchers.filter((w) => w.match(line))) {
        stderrWatchers.splice(stderrWatchers.indexOf(watcher), 1);
        watcher.resolve(line);
      }
    });
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
    child.once("close", (code, signal) => resolve({ code, signal, stderr: stderrAll }));
  });
  const deadline = <T>(what: string, promise: Promise<T>): Promise<T> =>
    Promise.race([
      promise,
      exited.then(({ code, signal }) => Promise.reject(new Error(`the entrypoint ended (${code ?? signal}) before ${what}; stderr: ${stderrAll}`))),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no ${what} within ${RUN_DEADLINE_MS} ms; stderr: ${stderrAll}`)), RUN_DEADLINE_MS).unref()),
    ]);
  return {
    child,
    stdoutLine: () => deadline("line on stdout", stdoutLines.length > 0 ? Promise.resolve(stdoutLines.shift()!) : new Promise((resolve) => stdoutWaiters.push(resolve))),
    stderrLine: (match) => deadline("awaited log line", new Promise((resolve) => stderrWatchers.push({ match, resolve }))),
    exited,
  };
}

/** The processes whose command line holds `marker`: a child the gateway left behind would be one. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
