/**
 * Shared by the pool tests: telemetry that keeps what a pool reported, a pool closed (and its
 * process groups killed) after each test, and the `_meta` of a 2026-07-28 request.
 */
import { ChildPool, type ChildPoolOptions } from "../../../src/gateway/children/index.js";
import type { ChildExitCause, GatewayTelemetry } from "../../../src/gateway/ops/telemetry.js";
import { FAST_LADDER, type useCleanup } from "./helpers.js";

/** Telemetry that keeps what the pool reported. */
export function recordingTelemetry() {
  const spawned: number[] = [];
  const exited: { pid: number; cause: ChildExitCause }[] = [];
  const notes: string[] = [];
  const running: number[] = [];
  /** Spawns and exits in the order they came: `spawn <pid>`, `exit <pid> <cause>`. */
  const events: string[] = [];
  const telemetry: GatewayTelemetry = {
    requestDone: () => {},
    rejected: () => {},
    inFlight: () => {},
    sessions: () => {},
    listenStreams: () => {},
    children: (count) => running.push(count),
    childSpawned: (pid) => {
      spawned.push(pid);
      events.push(`spawn ${pid}`);
    },
    childExited: (pid, cause) => {
      exited.push({ pid, cause });
      events.push(`exit ${pid} ${cause}`);
    },
    note: (event) => notes.push(event),
  };
  return { telemetry, spawned, exited, notes, running, events };
}

/** A pool (modern unless told) with the fast close ladder, closed by `cleanup` after the test. */
export function ownedPool(cleanup: ReturnType<typeof useCleanup>, options: Partial<ChildPoolOptions> & Pick<ChildPoolOptions, "command">): ChildPool {
  const made = new ChildPool({ era: "modern", stopTimings: FAST_LADDER, ...options });
  cleanup.own(made);
  cleanup.pids(() => made.pids);
  return made;
}

/** The `_meta` a 2026-07-28 request carries. */
export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
