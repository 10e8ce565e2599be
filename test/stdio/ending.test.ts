/** Ending: the close ladder, process groups, cancellation, and children dying with their parent. */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { McpClient, StdioTransport, TransportSession, connect } from "../../src/index.js";
import { trackedProcessTrees } from "../../src/transport/stdio/process-tree.js";
import { FIXTURES, ROOT, eventually, failure, firstText, fixture, isRunning, runningInGroup, useCleanup } from "./helpers.js";

const cleanup = useCleanup();

describe("close()", () => {
  it("resolves after the child exited by itself on the end of stdin, with its exit code", async () => {
    const transport = fixture("stdio-print-env.mjs", [], { stdinCloseGraceMs: 10_000 });
    const client = await cleanup.connect(transport);
    const pid = transport.pid!;
    await client.close();
    expect(transport.exitCode).toBe(0);
    expect(transport.exitSignal).toBeNull();
    const ending = await client.ended;
    expect(ending).toEqual({ exitCode: 0, signal: null });
    expect(runningInGroup(pid)).toEqual([]);
  });

  it("sends SIGTERM to a child that ignores the end of stdin", async () => {
    const transport = fixture("stdio-ignores-sigterm.mjs", ["--slow-exit", "50"], { terminateGraceMs: 10_000 });
    const client = await cleanup.connect(transport);
    await client.close();
    expect(transport.stderrTail).toContain("SIGTERM received");
    expect(transport.exitCode).toBe(0);
    expect(runningInGroup(transport.pid!)).toEqual([]);
  });

  it("sends SIGKILL to a child that ignores SIGTERM too", async () => {
    const transport = fixture("stdio-ignores-sigterm.mjs");
    const client = await cleanup.connect(transport);
    await client.close();
    expect(transport.stderrTail).toContain("SIGTERM received and ignored");
    expect(transport.exitSignal).toBe("SIGKILL");
    expect((await client.ended).signal).toBe("SIGKILL");
    expect(runningInGroup(transport.pid!)).toEqual([]);
  });

  it("is idempotent, and every call resolves only once the child is gone", async () => {
    const transport = fixture("stdio-ignores-sigterm.mjs");
    const client = await cleanup.connect(transport);
    const pid = transport.pid!;
    await Promise.all([
      client.close().then(() => expect(isRunning(pid)).toBe(false)),
      client.close().then(() => expect(isRunning(pid)).toBe(false)),
    ]);
    await client.close();
  });

  for (const stubborn of [false, true]) {
    it(`stops the whole process group, not only the direct child${stubborn ? " (grandchild ignores SIGTERM)" : ""}`, async () => {
      const transport = fixture("stdio-spawns-grandchild.mjs", stubborn ? ["--stubborn"] : []);
      const client = await cleanup.connect(transport);
      const pids = JSON.parse(firstText(await client.callTool("pids"))) as { server: number; grandchild: number };
      cleanup.trackPid(pids.grandchild);
      expect(isRunning(pids.grandchild)).toBe(true);
      await client.close();
      expect(isRunning(pids.server)).toBe(false);
      expect(isRunning(pids.grandchild)).toBe(false);
      expect(runningInGroup(transport.pid!)).toEqual([]);
    });
  }

  it("stops what a child that exited by itself left running", async () => {
    const transport = fixture("stdio-spawns-grandchild.mjs");
    const client = await cleanup.connect(transport);
    const pids = JSON.parse(firstText(await client.callTool("pids"))) as { server: number; grandchild: number };
    cleanup.trackPid(pids.grandchild);
    const error = await failure(client.callTool("exit", { code: 4 }));
    expect(error.reason).toBe("DISCONNECTED");
    expect(error.exitCode).toBe(4);
    // Without anyone calling close(): the failure stops the rest of the group.
    await eventually(() => !isRunning(pids.grandchild));
    await client.close();
    expect(runningInGroup(transport.pid!)).toEqual([]);
  });

  it("leaves nothing tracked for killing on exit once children are gone", async () => {
    const before = trackedProcessTrees();
    const client = await cleanup.connect(fixture("stdio-print-env.mjs"));
    expect(trackedProcessTrees()).toBe(before + 1);
    await client.close();
    expect(trackedProcessTrees()).toBe(before);
  });
});

describe("a child that goes away", () => {
  it("fails a request sent after it closed its stdout but before it exited with its exit code, not a bare 'closed'", async () => {
    // The child closes stdout, says so on stderr, and exits with code 3 a moment later: a request
    // sent in between must wait for the exit status rather than fail without it.
    const script = "require(\"node:fs\").closeSync(1); process.stderr.write('stdout closed\\n'); setTimeout(() => process.exit(3), 20);";
    let stderr = "";
    let closedStdout!: () => void;
    const stdoutClosed = new Promise<void>((resolve) => (closedStdout = resolve));
    const transport = cleanup.track(
      new StdioTransport({
        command: process.execPath,
        args: ["-e", script],
        stderr: (text) => {
          stderr += text;
          if (stderr.includes("stdout closed")) closedStdout();
        },
      }),
    );
    const session = new TransportSession(transport);
    await session.open();
    await stdoutClosed;
    const error = await failure(session.request("tools/list"));
    expect(error.reason).toBe("DISCONNECTED");
    expect(error.exitCode).toBe(3);
    expect(error.message).toContain("exited with code 3");
    await session.close();
  });
});

describe("cancelling the connect", () => {
  // A child that never answers initialize and does not read its stdin.
  const mute = () =>
    cleanup.track(new StdioTransport({ command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"], stdinCloseGraceMs: 200, terminateGraceMs: 500 }));

  it("an aborted connect rejects with the signal's reason and leaves nothing running", async () => {
    const transport = mute();
    const controller = new AbortController();
    const connecting = McpClient.connect(transport, { signal: controller.signal });
    await eventually(() => transport.pid !== undefined);
    setTimeout(() => controller.abort(new Error("user gave up")), 100);
    await expect(connecting).rejects.toThrow("user gave up");
    expect(runningInGroup(transport.pid!)).toEqual([]);
    expect(transport.exitSignal).toBe("SIGTERM");
  });

  it("a connect that times out fails with TIMEOUT and leaves nothing running", async () => {
    const transport = mute();
    const error = await failure(McpClient.connect(transport, { timeoutMs: 300 }));
    expect(error.reason).toBe("TIMEOUT");
    expect(runningInGroup(transport.pid!)).toEqual([]);
  });

  it("a signal aborted before connect starts nothing", async () => {
    const transport = mute();
    const controller = new AbortController();
    controller.abort(new Error("never mind"));
    await expect(McpClient.connect(transport, { signal: controller.signal })).rejects.toThrow("never mind");
    expect(transport.pid).toBeUndefined();
  });

  it("connect({ command, args }) spawns and closes like the transport", async () => {
    const client = await connect({ command: process.execPath, args: [`${FIXTURES}stdio-print-env.mjs`] });
    const transport = client.session.transport as StdioTransport;
    cleanup.track(transport);
    expect(client.transportKind).toBe("stdio");
    await client.close();
    expect(transport.exitCode).toBe(0);
  });
});

describe("children die with their parent", () => {
  async function runParent(mode: string, signal?: NodeJS.Signals) {
    const parent = spawn(process.execPath, ["--import", "tsx", `${FIXTURES}stdio-parent.ts`, mode], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "pipe"],
    });
    cleanup.trackPid(parent.pid);
    let stderr = "";
    parent.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      parent.on("exit", (code, signal) => resolve({ code, signal })),
    );
    const firstLine = await new Promise<string>((resolve, reject) => {
      createInterface({ input: parent.stdout }).once("line", resolve);
      void ended.then(() => reject(new Error(`the parent ended before it reported its children: ${stderr}`)));
    });
    const pids = JSON.parse(firstLine) as { stubborn: number; wrapper: number; grandchild: number };
    for (const pid of Object.values(pids)) cleanup.trackPid(pid);
    for (const pid of Object.values(pids)) expect(isRunning(pid)).toBe(true);
    if (signal) parent.kill(signal);
    else parent.stdin.write("go\n");
    return { pids, ending: await ended };
  }

  it("on process.exit()", async () => {
    const { pids, ending } = await runParent("exit");
    expect(ending.code).toBe(0);
    await eventually(() => Object.values(pids).every((pid) => !isRunning(pid)));
  });

  it("on an uncaught exception", async () => {
    const { pids, ending } = await runParent("throw");
    expect(ending.code).not.toBe(0);
    await eventually(() => Object.values(pids).every((pid) => !isRunning(pid)));
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`on ${signal}, which still ends the parent as it would have`, async () => {
      const { pids, ending } = await runParent("wait", signal);
      expect(ending.signal).toBe(signal);
      await eventually(() => Object.values(pids).every((pid) => !isRunning(pid)));
    });
  }
});
