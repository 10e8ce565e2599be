/**
 * The real `mcpwire` bin calling a tool that runs as a task: server-everything's
 * `simulate-research-query` (`execution.taskSupport: "required"`) over stdio.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { StopRequest, runCli } from "../../src/cli/run.js";
import { connect } from "../../src/index.js";
import { startHttpFixture, type HttpFixture } from "../helpers/http-fixture.js";
import { EVERYTHING_SERVER, runBin } from "./helpers.js";

let legacy: HttpFixture | undefined;
beforeAll(async () => {
  legacy = await startHttpFixture("test/fixtures/legacy-task-server.ts");
});
afterAll(() => {
  legacy?.child.kill("SIGTERM");
});

/** A run of the CLI in this process, its stderr a terminal. */
function runOnTerminal(argv: string[], signal: AbortSignal, onStderr: (text: string) => void = () => {}) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = runCli({
    argv,
    stdout: { write: (text: string) => void stdout.push(text) },
    stderr: {
      isTTY: true,
      columns: 80,
      write: (text: string) => {
        stderr.push(text);
        onStderr(text);
      },
    },
    env: process.env,
    cwd: process.cwd(),
    signal,
  });
  return { code, stdout, stderr };
}

describe("mcpwire call on a tool that runs as a task", () => {
  it("waits for the task and prints its result", async () => {
    const { code, stdout, stderr } = await runBin(["call", EVERYTHING_SERVER, "simulate-research-query", "topic=rust"]);
    expect({ code, stderr }).toEqual({ code: ExitCode.OK, stderr: "" });
    expect(stdout).toContain("# Research Report: rust");
    expect(stdout).toContain("Stage 4: Generating report ✓");
  });

  it("--json prints the task's final result, with the task it came from", async () => {
    const { code, stdout } = await runBin(["call", EVERYTHING_SERVER, "simulate-research-query", "topic=zig", "ambiguous=true", "--json"]);
    expect(code).toBe(ExitCode.OK);
    const result = JSON.parse(stdout) as { content: { text: string }[]; _meta: Record<string, { taskId: string }> };
    // Without a terminal the bin declares no elicitation: the server asks nothing of a client that cannot answer.
    expect(result.content[0]!.text).toContain("# Research Report: zig\n");
    expect(result._meta["io.modelcontextprotocol/related-task"]!.taskId).toMatch(/^\S+$/);
  });

  it("--timeout bounds the whole task, which fails with the timeout's exit code", async () => {
    const { code, stderr } = await runBin(["call", EVERYTHING_SERVER, "simulate-research-query", "topic=rust", "--timeout", "3500ms"]);
    expect(code).toBe(ExitCode.TIMEOUT);
    expect(stderr).toMatch(/callTool "simulate-research-query", task "\S+" timed out after 3500 ms/);
  });

  it("on a terminal, the progress line shows the task's state, and is erased before the result", async () => {
    const run = runOnTerminal(["call", EVERYTHING_SERVER, "simulate-research-query", "topic=rust"], new AbortController().signal);
    expect(await run.code).toBe(ExitCode.OK);
    expect(run.stderr).toContain("\r\u001b[2Ktask working: Gathering sources...");
    expect(run.stderr.at(-1)).toBe("\r\u001b[2K");
    expect(run.stdout.join("")).toContain("# Research Report: rust");
  });

  it("Ctrl-C cancels the task on the server before the CLI exits", async () => {
    const startedAt = new Date().toISOString();
    const interrupt = new AbortController();
    const run = runOnTerminal(["call", legacy!.url, "slow", "ms=60000"], interrupt.signal, (text) => {
      if (text.includes("task working")) interrupt.abort(new StopRequest("SIGINT"));
    });
    expect(await run.code).toBe(ExitCode.INTERRUPTED);
    await using client = await connect(legacy!.url);
    const mine = (await client.listTasks()).filter((state) => state.createdAt >= startedAt);
    expect(mine.map((state) => state.status)).toEqual(["cancelled"]);
  });
});
