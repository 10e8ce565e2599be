/**
 * The real `mcpwire` bin when things go wrong: servers that cannot start, time out, exit or
 * fail at start, a JSON-RPC error, Ctrl-C, and a reader that goes away. Each exit code is the
 * documented one for its reason.
 */
import { describe, expect, it } from "vitest";
import { ExitCode } from "../../src/cli/exit-codes.js";
import { CONTRACT_SERVER, EVERYTHING_SERVER, NEVER_ANSWERS_SERVER, commandLine, runBin, startBin } from "./helpers.js";

/** A server that writes to stderr and exits before answering, as one with a missing key does. */
const FAILING_SERVER = commandLine(
  process.execPath,
  "-e",
  "console.error('starting'); console.error(['boom', 'missing', 'API', 'key'].join(' ')); process.exit(1)",
);

describe("mcpwire over stdio: failures", () => {
  it("a command that does not exist: UNAVAILABLE, one line", async () => {
    const { code, stdout, stderr } = await runBin(["tools", "mcpwire-no-such-server-command --stdio"]);
    expect(code).toBe(ExitCode.UNAVAILABLE);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^mcpwire: could not start the server process: .*"mcpwire-no-such-server-command" was not found.*\n$/);
    expect(stderr.split("\n")).toHaveLength(2);
  });

  it("a tool that sleeps past --timeout: TIMEOUT", async () => {
    const { code, stderr } = await runBin(["call", CONTRACT_SERVER, "sleep", "ms=120000", "--timeout", "4s"]);
    expect(code).toBe(ExitCode.TIMEOUT);
    // On a loaded machine the deadline may already fire while connecting; either way it is --timeout's.
    expect(stderr).toMatch(/^mcpwire: .*timed out after 4000 ms/);
  });

  it("a tool that never answers: TIMEOUT naming the call", async () => {
    const { code, stderr } = await runBin(["call", NEVER_ANSWERS_SERVER, "silent", "--timeout", "3000"]);
    expect(code).toBe(ExitCode.TIMEOUT);
    expect(stderr).toMatch(/^mcpwire: (callTool "silent"|connecting) timed out after 3000 ms/);
  });

  it("a server that exits mid-call: DISCONNECTED", async () => {
    const { code, stderr } = await runBin(["call", CONTRACT_SERVER, "crash"]);
    expect(code).toBe(ExitCode.DISCONNECTED);
    expect(stderr).toMatch(/^mcpwire: .*exited with code 3/);
  });

  it("a server that fails at start: one line, and --verbose shows its stderr tail", async () => {
    const quiet = await runBin(["info", FAILING_SERVER]);
    expect(quiet.code).toBe(ExitCode.DISCONNECTED);
    expect(quiet.stderr).toMatch(/^mcpwire: .*exited with code 1.*\(--verbose shows the server's stderr\)\n$/);
    expect(quiet.stderr).not.toContain("boom missing API key");

    const verbose = await runBin(["info", FAILING_SERVER, "--verbose"]);
    expect(verbose.code).toBe(ExitCode.DISCONNECTED);
    expect(verbose.stderr).toMatch(/^ {2}exit code: 1$/m);
    expect(verbose.stderr).toMatch(/^ {4}\| starting\n {4}\| boom missing API key$/m);
  });

  it("a JSON-RPC error from the server: PROTOCOL, with the server's words apart", async () => {
    const { code, stderr } = await runBin(["prompt", EVERYTHING_SERVER, "no-such-prompt"]);
    expect(code).toBe(ExitCode.PROTOCOL);
    expect(stderr).toMatch(/^mcpwire: getPrompt "no-such-prompt" .* \(--verbose shows the server's message\)\n$/);
  });
});

describe("mcpwire: interruption", () => {
  it("Ctrl-C during a call cancels it, closes the server and exits 130 at once", async () => {
    const running = startBin(["call", NEVER_ANSWERS_SERVER, "silent", "--timeout", "60s", "--verbose"]);
    // The target line is written once the signal handlers are in place.
    await expect.poll(() => running.stderr(), { timeout: 20_000 }).toMatch(/target:/);
    running.child.kill("SIGINT");
    const { code, stderr } = await running.result;
    expect(code).toBe(ExitCode.INTERRUPTED);
    expect(stderr).toMatch(/^mcpwire: interrupted; the request was cancelled$/m);
  });
});

describe("mcpwire: a reader that goes away", () => {
  it("output into a closed pipe ends the run quietly, with the server closed", async () => {
    const running = startBin(["call", CONTRACT_SERVER, "blob", "bytes=4000000"]);
    running.child.stdout!.once("data", () => running.child.stdout!.destroy());
    const { code, stderr } = await running.result;
    expect(stderr).toBe("");
    expect(code).toBe(ExitCode.OK);
  });
});
