/**
 * The built command `node dist/cli/main.js gateway ...` (built by `npm run build`) as a real
 * process, for the tests that drive it from outside: its JSON log lines on stderr kept and
 * parsed, where it listens (from its `listening` line), its admin endpoints read (`/metrics`
 * parsed strictly, gauges and counters by name; the RSS once it settles), and whether a pid or a
 * process group is left.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { processGroupAlive } from "../../../src/transport/stdio/process-tree.js";
import { parsePrometheusText } from "../ops/helpers/parse-prometheus.js";

export const GATEWAY_BIN = fileURLToPath(new URL("../../../dist/cli/main.js", import.meta.url));

export interface GatewayProcess {
  child: ChildProcess;
  /** Every JSON log line so far, parsed. */
  lines: Array<Record<string, unknown>>;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The pids of the children it spawned so far, from its `child_spawned` lines. */
  spawnedPids(): number[];
  /** SIGKILLs it if it still runs, and resolves once it has exited. */
  close(): Promise<unknown>;
}

/** Starts `mcpwire gateway <args>` with only PATH and HOME from this environment, beside `env`. */
export function runGateway(args: string[], env: Record<string, string> = {}): GatewayProcess {
  const child = spawn(process.execPath, [GATEWAY_BIN, "gateway", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
  });
  let text = "";
  const lines: Array<Record<string, unknown>> = [];
  let partial = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => {
    text += chunk;
    partial += chunk;
    let cut: number;
    while ((cut = partial.indexOf("\n")) >= 0) {
      const line = partial.slice(0, cut);
      partial = partial.slice(cut + 1);
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // a usage message, not a log line
      }
    }
  });
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  return {
    child,
    lines,
    stderr: () => text,
    exited,
    spawnedPids: () => lines.filter((line) => line.event === "child_spawned").map((line) => Number(line.pid)),
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

export interface Listening {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  port: number;
  /** The admin server's base URL, when `--admin-listen` was given. */
  adminUrl: string | undefined;
}

/** Waits for the `listening` line and gives what it says. */
export async function listening(gateway: GatewayProcess, timeout = 30_000): Promise<Listening> {
  const found = () => gateway.lines.find((entry) => entry.event === "listening");
  // Stops waiting as soon as the process exits: its stderr then says why.
  await expect.poll(() => found() !== undefined || gateway.child.exitCode !== null, { timeout }).toBe(true);
  const line = found();
  if (line === undefined) throw new Error(`the gateway exited ${gateway.child.exitCode} before listening: ${gateway.stderr()}`);
  const url = String(line.url);
  return { url, port: Number(new URL(url).port), adminUrl: typeof line.adminUrl === "string" ? line.adminUrl : undefined };
}

/** One GET on the admin server: its status and text. */
export function adminGet(adminUrl: string, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(new URL(path, adminUrl), { agent: false }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
      response.on("error", reject);
    });
    request.on("error", reject);
  });
}

/** The value of one sample of `/metrics` (`mcpwire_gateway_` prefixed to `name`), 0 when absent. */
export interface Scrape {
  value(name: string, labels?: Record<string, string>): number;
}

export async function scrape(adminUrl: string): Promise<Scrape> {
  const { status, text } = await adminGet(adminUrl, "/metrics");
  if (status !== 200) throw new Error(`/metrics answered ${status}`);
  const families = parsePrometheusText(text);
  return {
    value(name, labels = {}) {
      const full = `mcpwire_gateway_${name}`;
      const family = families.get(full);
      const sample = family?.samples.find((entry) => entry.name === full && Object.entries(labels).every(([key, wanted]) => entry.labels[key] === wanted));
      return sample?.value ?? 0;
    },
  };
}

/**
 * The process's RSS once it stopped moving: scrapes until two readings in a row differ by less
 * than 1 MiB. Each scrape also turns the event loop of the gateway, so timers of the load settle.
 */
export async function settledRss(adminUrl: string): Promise<number> {
  let previous = Number.NaN;
  let settled = 0;
  await expect
    .poll(
      async () => {
        const rss = (await scrape(adminUrl)).value("process_resident_memory_bytes");
        const still = Math.abs(rss - previous) < 1024 * 1024;
        previous = rss;
        if (still) settled = rss;
        return still;
      },
      { timeout: 30_000, interval: 200 },
    )
    .toBe(true);
  return settled;
}

/** Whether a process of this pid is alive (a zombie counts: its parent has not reaped it). */
export function alive(pid: number): boolean {
  return signalReaches(pid);
}

/**
 * Whether any process is left in the process group led by `pid` (each child leads its own). A
 * zombie does not count, as for the stdio transport: a grandchild orphaned when its parent exits
 * is a zombie until init reaps it, and it runs nothing.
 */
export function groupAlive(pid: number): boolean {
  return processGroupAlive(pid);
}

/** Whether the process of this pid runs (Linux: from /proc, a zombie not counted). */
export function runs(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  return state !== "Z" && state !== "X";
}

function signalReaches(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else (a reused pid); ESRCH: nothing there.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
