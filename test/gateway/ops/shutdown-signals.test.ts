/**
 * onShutdownSignals: SIGTERM starts the drain, a second SIGTERM or a SIGINT hurries it, a signal
 * after that exits at once; the exit code is 0 after a drain that waited, else the signal's.
 * First over an emitter that plays the process, then in a real process sent real signals.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { EventEmitter, once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { DrainResult } from "../../../src/gateway/ops/drain.js";
import { onShutdownSignals } from "../../../src/gateway/ops/shutdown-signals.js";

/** A drain that records how it was driven and ends when told. */
function recordingDrain() {
  const calls: string[] = [];
  let finish!: (result: DrainResult) => void;
  const result = new Promise<DrainResult>((resolve) => (finish = resolve));
  let hurried = false;
  return {
    calls,
    end: () => finish({ hurried, failedRequests: 0 }),
    drain: {
      start: () => {
        calls.push("start");
        return result;
      },
      hurry: () => {
        calls.push("hurry");
        hurried = true;
        return result;
      },
    },
  };
}

describe("onShutdownSignals, over an emitter", () => {
  it("drains on SIGTERM and gives 0 when the drain was not hurried", async () => {
    const source = new EventEmitter();
    const { drain, calls, end } = recordingDrain();
    const wiring = onShutdownSignals(drain, { source, exit: () => calls.push("exit") });
    source.emit("SIGTERM");
    expect(calls).toEqual(["start"]);
    end();
    expect(await wiring.exitCode).toBe(0);
    source.emit("SIGTERM"); // after the end: nothing more
    expect(calls).toEqual(["start"]);
    wiring.dispose();
    expect(source.listenerCount("SIGTERM") + source.listenerCount("SIGINT")).toBe(0);
  });

  it("hurries on a second SIGTERM and gives 143; a third signal exits at once", async () => {
    const source = new EventEmitter();
    const { drain, calls, end } = recordingDrain();
    const exits: number[] = [];
    const wiring = onShutdownSignals(drain, { source, exit: (code) => exits.push(code) });
    source.emit("SIGTERM");
    source.emit("SIGTERM");
    expect(calls).toEqual(["start", "hurry"]);
    source.emit("SIGINT");
    expect(exits).toEqual([130]);
    end();
    expect(await wiring.exitCode).toBe(143);
    wiring.dispose();
  });

  it("hurries on SIGINT, even as the first signal, and gives 130", async () => {
    const source = new EventEmitter();
    const { drain, calls, end } = recordingDrain();
    const wiring = onShutdownSignals(drain, { source, exit: () => calls.push("exit") });
    source.emit("SIGINT");
    expect(calls).toEqual(["hurry"]);
    end();
    expect(await wiring.exitCode).toBe(130);
    wiring.dispose();
  });
});

const FIXTURE = fileURLToPath(new URL("./fixtures/drain-process.ts", import.meta.url));
const started: ChildProcess[] = [];

afterEach(async () => {
  for (const child of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await once(child, "exit");
    }
  }
});

/** Starts the fixture; `lines` fills as it prints; `line(text)` resolves when a line starting so appears. */
function startProcess(drainDelayMs: number, drainMs: number) {
  const child = spawn(process.execPath, ["--import", "tsx", FIXTURE, String(drainDelayMs), String(drainMs)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  started.push(child);
  const lines: string[] = [];
  const waiters: { prefix: string; resolve: (line: string) => void }[] = [];
  let buffer = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf("\n"); end !== -1; end = buffer.indexOf("\n")) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      lines.push(line);
      for (const waiter of waiters.filter((w) => line.startsWith(w.prefix))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const line = (prefix: string) =>
    new Promise<string>((resolve) => {
      const seen = lines.find((l) => l.startsWith(prefix));
      if (seen !== undefined) resolve(seen);
      else waiters.push({ prefix, resolve });
    });
  return { child, lines, line, exited };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("onShutdownSignals, in a real process", () => {
  it("drains on SIGTERM: the stuck request is failed after drainMs, the child closed, exit 0", async () => {
    const run = startProcess(0, 50);
    const childPid = Number((await run.line("ready")).split(" ")[1]);
    run.child.kill("SIGTERM");
    const [code] = await run.exited;
    expect(code).toBe(0);
    expect(run.lines).toEqual([
      `ready ${childPid}`,
      "phase delay",
      "phase refusing",
      "refusing",
      "request failed",
      "phase closing",
      "closing children",
      `child ${childPid} gone`,
      "phase done",
      "exit 0",
    ]);
    expect(alive(childPid)).toBe(false);
  });

  it("skips the waits on a second SIGTERM, still closes the child, and exits 143", async () => {
    const run = startProcess(600_000, 600_000);
    const childPid = Number((await run.line("ready")).split(" ")[1]);
    run.child.kill("SIGTERM");
    await run.line("phase delay");
    run.child.kill("SIGTERM");
    const [code] = await run.exited;
    expect(code).toBe(143);
    expect(run.lines).toContain("closing children at once");
    expect(run.lines).toContain(`child ${childPid} gone`);
    expect(run.lines.at(-1)).toBe("exit 143");
    expect(alive(childPid)).toBe(false);
  });

  it("stops at once on SIGINT and exits 130", async () => {
    const run = startProcess(600_000, 600_000);
    const childPid = Number((await run.line("ready")).split(" ")[1]);
    run.child.kill("SIGINT");
    const [code] = await run.exited;
    expect(code).toBe(130);
    expect(run.lines).toContain(`child ${childPid} gone`);
    expect(alive(childPid)).toBe(false);
  });
});
