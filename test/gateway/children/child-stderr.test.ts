/**
 * The children's stderr in the gateway's log (child-stderr.ts), against real children and the
 * real telemetry: each line a pool child or a session's child writes, at its start and during a
 * call, is one `child_stderr` line with that child's pid (and the session, hashed); a line of a
 * megabyte is cut; a child that floods its stderr gets its budget of lines into the log and the
 * rest counted, to the line; `childStderr: "drop"` logs none of it.
 */
import { describe, expect, it } from "vitest";
import {
  CHILD_STDERR_BURST_LINES,
  CHILD_STDERR_LINES_PER_SECOND,
  ChildPool,
  SessionRelay,
  type SessionRelayOptions,
} from "../../../src/gateway/children/index.js";
import { createGatewayTelemetry } from "../../../src/gateway/ops/gateway-telemetry.js";
import { MAX_CHILD_STDERR_LINE } from "../../../src/gateway/ops/log-lines.js";
import type { Relay } from "../../../src/gateway/relay.js";
import { FAST_LADDER, call, echoServer, never, recorder, resultOf, stdioFixture, useCleanup } from "./helpers.js";

const cleanup = useCleanup();

/** The real telemetry, its log lines kept and parsed. */
function loggingTelemetry() {
  const lines: string[] = [];
  const telemetry = createGatewayTelemetry({ log: (line) => lines.push(line), processMetrics: false });
  const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { telemetry, parsed, stderrLines: () => parsed().filter((line) => line.event === "child_stderr") };
}

function pool(options: Omit<ConstructorParameters<typeof ChildPool>[0], "era"> & { era?: "modern" | "legacy-stateless" }): ChildPool {
  const made = new ChildPool({ era: "modern", stopTimings: FAST_LADDER, ...options });
  cleanup.own(made);
  cleanup.pids(() => made.pids);
  return made;
}

function session(options: Omit<SessionRelayOptions, "owner">): SessionRelay {
  const relay = new SessionRelay({ stopTimings: FAST_LADDER, ...options, owner: { message: () => {}, exited: () => {} } });
  cleanup.own(relay);
  cleanup.pids(() => (relay.pid === undefined ? [] : [relay.pid]));
  return relay;
}

async function request(relay: Pick<Relay, "request">, method: string, params?: Record<string, unknown>) {
  const seen = recorder();
  relay.request(call(1, method, params), seen.sink, never);
  return resultOf(await seen.settled);
}

const INITIALIZE = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "stderr-test", version: "1.0.0" } };

describe("a child's stderr in the gateway's log", () => {
  it("a pool child's lines, at its start and during a call, each one line with its pid", async () => {
    const { telemetry, parsed, stderrLines } = loggingTelemetry();
    const modern = pool({ command: echoServer("--stderr", "starting: hello from the server"), poolMin: 1, telemetry });
    await modern.start();
    expect(modern.ready).toBe(true);
    const [pid] = modern.pids;
    const text = "during the call\r\nwarn: a second line\n";
    expect(await request(modern.caller(), "stderr", { text })).toEqual({ written: text.length });

    await expect.poll(() => stderrLines().length, { timeout: 10_000 }).toBe(3);
    expect(stderrLines()).toEqual([
      { time: expect.any(String), event: "child_stderr", pid, era: "modern", text: "starting: hello from the server" },
      { time: expect.any(String), event: "child_stderr", pid, era: "modern", text: "during the call" },
      { time: expect.any(String), event: "child_stderr", pid, era: "modern", text: "warn: a second line" },
    ]);
    expect(parsed().find((line) => line.event === "child_spawned")).toMatchObject({ pid });
  });

  it("a session child's lines carry the session, hashed as the request lines hash it; a last line without a newline comes at its end", async () => {
    const { telemetry, parsed, stderrLines } = loggingTelemetry();
    const sessionId = "5e55e55e-session-id-never-written";
    const relay = session({ command: echoServer("--stderr", "session child up"), telemetry, sessionId });
    await request(relay, "initialize", INITIALIZE);
    await request(relay, "stderr", { text: "no newline at the end" });
    await relay.close();

    telemetry.requestDone({ requestId: "r-1", era: "legacy", method: "initialize", outcome: "ok", status: 200, durationMs: 1, sessionId });
    const hash = parsed().at(-1)!.session;
    expect(JSON.stringify(parsed())).not.toContain(sessionId);
    expect(stderrLines()).toEqual([
      { time: expect.any(String), event: "child_stderr", pid: relay.pid, era: "legacy", session: hash, text: "session child up" },
      { time: expect.any(String), event: "child_stderr", pid: relay.pid, era: "legacy", session: hash, text: "no newline at the end" },
    ]);
    // Its lines come before its exit's.
    const events = parsed().map((line) => line.event);
    expect(events.lastIndexOf("child_stderr")).toBeLessThan(events.indexOf("child_exited"));
  });

  it("a line of a megabyte is cut at the bound and marked", async () => {
    const { telemetry, stderrLines } = loggingTelemetry();
    const modern = pool({ command: echoServer(), poolMin: 1, telemetry });
    await modern.start();
    await request(modern.caller(), "stderr", { text: `${"z".repeat(1024 * 1024)}\nafter it\n` });
    await expect.poll(() => stderrLines().length, { timeout: 10_000 }).toBe(2);
    const [long, after] = stderrLines();
    expect(long).toMatchObject({ truncated: true, text: `${"z".repeat(MAX_CHILD_STDERR_LINE)}…` });
    expect(after).toMatchObject({ text: "after it" });
    expect(after!.truncated).toBeUndefined();
  });

  it("a child that floods its stderr: its budget of lines is logged, every other line counted as dropped", async () => {
    const { telemetry, parsed, stderrLines } = loggingTelemetry();
    const startedAt = performance.now();
    const relay = session({ command: stdioFixture("stdio-stderr-flood.mjs"), telemetry });
    await request(relay, "initialize", INITIALIZE);
    // 8 MiB of 109-byte lines in blocks of 1000, then a last line; answered once all are written.
    expect(await request(relay, "tools/call", { name: "flood", arguments: { mb: 8 } })).toMatchObject({ content: [{ text: "flooded 8" }] });
    await relay.close();
    const seconds = (performance.now() - startedAt) / 1000;

    const written = Math.ceil(Math.ceil((8 * 1024 * 1024) / 109) / 1000) * 1000 + 1;
    const logged = stderrLines().length;
    const dropped = parsed()
      .filter((line) => line.event === "child_stderr_dropped")
      .reduce((sum, line) => sum + Number(line.dropped), 0);
    expect(logged + dropped).toBe(written);
    expect(logged).toBeLessThan(written / 10);
    expect(logged).toBeGreaterThanOrEqual(CHILD_STDERR_BURST_LINES);
    expect(logged).toBeLessThanOrEqual(CHILD_STDERR_BURST_LINES + Math.ceil(CHILD_STDERR_LINES_PER_SECOND * seconds) + 1);
    expect(telemetry.metrics.childStderrDropped.get()).toBe(dropped);
    for (const line of stderrLines())
      expect(line).toMatchObject({ pid: relay.pid, era: "legacy", text: expect.stringMatching(/^(log line ){12}$|^last line before the answer$/) });
  }, 60_000);

  it.each(["log", "drop"] as const)("childStderr %s: the same child's lines are logged or not", async (childStderr) => {
    const { telemetry, parsed, stderrLines } = loggingTelemetry();
    const modern = pool({ command: echoServer("--stderr", "starting"), poolMin: 1, telemetry, childStderr });
    await modern.start();
    await request(modern.caller(), "stderr", { text: "during the call\n" });
    // Closed: the child's stderr has ended, so every line it wrote has been read.
    await modern.close();
    expect(parsed().some((line) => line.event === "child_exited")).toBe(true);
    expect(stderrLines().map((line) => line.text)).toEqual(childStderr === "log" ? ["starting", "during the call"] : []);
  });
});
