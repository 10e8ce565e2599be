/**
 * A gateway on 127.0.0.1 (port 0) for the front's tests, with the stdio servers they run as
 * children, its JSON log lines kept for the test to read (the pids of children spawned, the
 * `listening` line), and a close that leaves no child and no socket.
 */
import { fileURLToPath } from "node:url";
import { createGateway, type Gateway, type GatewayParts } from "../../../src/gateway/gateway.js";
import type { GatewayOptions, GatewayTarget } from "../../../src/gateway/gateway-options.js";

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

/** The 2026-07-28 server on the official v2 package, over stdio. */
export const MODERN_TARGET: GatewayTarget = { command: process.execPath, args: ["--import", "tsx", path("../../fixtures/modern-server.ts"), "stdio"] };
/** @modelcontextprotocol/server-everything over stdio (legacy era, asks the client for sampling, elicitation, roots). */
export const EVERYTHING_TARGET: GatewayTarget = { command: process.execPath, args: [path("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"] };
/** @modelcontextprotocol/server-memory over stdio (legacy era), its file from `MEMORY_FILE_PATH`. */
export const MEMORY_ENTRY = path("../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js");
/** The echoing server of the children's tests (test/fixtures/stdio-gateway-echo.mjs), both eras: `hold` and `release`, `cancels`, `progress`... */
export const ECHO_TARGET: GatewayTarget = { command: process.execPath, args: [path("../../fixtures/stdio-gateway-echo.mjs")] };
/** A small legacy server in plain JavaScript (starts in milliseconds): `echo`, `sleep` (never answers), `exit`. */
export const MINI_TARGET: GatewayTarget = { command: process.execPath, args: [path("../../fixtures/stdio-exits-mid-call.mjs")] };

/** A server that starts reading its stdin only after ten minutes: no probe of it is answered within a test. */
export const SILENT_TARGET: GatewayTarget = { command: process.execPath, args: [path("../../fixtures/stdio-never-answers.mjs"), "--slow-start", "600000"] };

export interface RunningGateway {
  gateway: Gateway;
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  origin: string;
  port: number;
  /** Every log line so far, parsed. */
  logs: Array<Record<string, unknown>>;
  /** The pids of the children spawned so far, in order. */
  spawnedPids(): number[];
  close(): Promise<void>;
}

export async function startGateway(options: Omit<GatewayOptions, "listen" | "log"> & { listen?: string }, parts: GatewayParts = {}): Promise<RunningGateway> {
  const logs: Array<Record<string, unknown>> = [];
  const gateway = createGateway(
    { drainDelayMs: 0, drainMs: 2_000, listen: "127.0.0.1:0", ...options, log: (line) => logs.push(JSON.parse(line) as Record<string, unknown>) },
    parts,
  );
  const url = await gateway.listen();
  const parsed = new URL(url);
  return {
    gateway,
    url,
    origin: parsed.origin,
    port: Number(parsed.port),
    logs,
    spawnedPids: () => logs.filter((line) => line.event === "child_spawned").map((line) => Number(line.pid)),
    close: () => gateway.close(),
  };
}

/** Whether a process of this pid is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
