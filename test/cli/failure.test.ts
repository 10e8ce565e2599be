/** How a failure reaches the user: its exit code, one line, and the details `--verbose` adds. */
import { describe, expect, it } from "vitest";
import { ExitCode, exitCodeForReason } from "../../src/cli/exit-codes.js";
import { describeFailure, type FailureContext } from "../../src/cli/failure.js";
import { UsageError } from "../../src/cli/usage.js";
import { ConfigError, FAILURE_REASONS, McpTransportError } from "../../src/index.js";

const QUIET: FailureContext = { setup: false, interrupted: false, verbose: false };

describe("exit codes", () => {
  it("gives every failure reason its own code, apart from usage, config, tool error and success", () => {
    const codes = FAILURE_REASONS.map(exitCodeForReason);
    const others = [ExitCode.OK, ExitCode.TOOL_ERROR, ExitCode.USAGE, ExitCode.CONFIG, ExitCode.INTERNAL, ExitCode.INTERRUPTED];
    expect(new Set([...codes, ...others]).size).toBe(codes.length + others.length);
    expect(exitCodeForReason("UNAVAILABLE")).toBe(4);
    expect(exitCodeForReason("TIMEOUT")).toBe(5);
  });
});

describe("describeFailure", () => {
  it("names usage errors and points to --help", () => {
    expect(describeFailure(new UsageError("tools needs a target"), QUIET)).toEqual({
      code: ExitCode.USAGE,
      line: "tools needs a target (see mcpwire --help)",
      details: [],
    });
  });

  it("takes config errors, and type errors while setting up, as config errors", () => {
    expect(describeFailure(new ConfigError("mcp.json: not valid JSON"), QUIET).code).toBe(ExitCode.CONFIG);
    expect(describeFailure(new TypeError("bad option"), { ...QUIET, setup: true }).code).toBe(ExitCode.CONFIG);
    expect(describeFailure(new TypeError("x is undefined"), QUIET).code).toBe(ExitCode.INTERNAL);
  });

  it("quotes the server's own words apart from ours, on one line", () => {
    const error = new McpTransportError("PROTOCOL", 'getPrompt "x" failed: the server answered with error -32602', {
      code: -32602,
      serverMessage: "Prompt x\nnot found",
    });
    const report = describeFailure(error, QUIET);
    expect(report.code).toBe(ExitCode.PROTOCOL);
    expect(report.line).toBe('getPrompt "x" failed: the server answered with error -32602 (--verbose shows the server\'s message)');
    expect(report.details).toContain("JSON-RPC error code: -32602");
  });

  it("keeps the stderr tail for --verbose, and says so on the line otherwise", () => {
    const error = new McpTransportError("DISCONNECTED", "initialize failed: the server process exited with code 1", {
      exitCode: 1,
      stderrTail: "loading\nboom: missing API key\n",
      cause: Object.assign(new Error("spawn failed"), { code: "EPIPE" }),
    });
    const quiet = describeFailure(error, QUIET);
    expect(quiet.line).toMatch(/\(--verbose shows the server's stderr\)$/);
    const verbose = describeFailure(error, { ...QUIET, verbose: true });
    expect(verbose.line).not.toMatch(/--verbose/);
    expect(verbose.details).toEqual([
      "reason: DISCONNECTED",
      "exit code: 1",
      "caused by: Error: spawn failed (EPIPE)",
      "server stderr (last lines):",
      "  | loading",
      "  | boom: missing API key",
    ]);
  });

  it("adds the note about server names only to a command that would not start", () => {
    const note = 'mcp.json declares no server "handbok" (it declares "handbook")';
    const unavailable = new McpTransportError("UNAVAILABLE", 'could not start the server process: command "handbok" was not found');
    expect(describeFailure(unavailable, { ...QUIET, notAServerNote: note }).line).toContain(note);
    const timeout = new McpTransportError("TIMEOUT", "connecting timed out after 10 ms");
    expect(describeFailure(timeout, { ...QUIET, notAServerNote: note }).line).not.toContain(note);
  });

  it("reports an interruption as such, whatever error it caused", () => {
    expect(describeFailure(new Error("aborted"), { ...QUIET, interrupted: true }).code).toBe(ExitCode.INTERRUPTED);
  });

  it("reports anything else as an internal error, with the stack under --verbose", () => {
    const report = describeFailure(new RangeError("oops"), { ...QUIET, verbose: true });
    expect(report.code).toBe(ExitCode.INTERNAL);
    expect(report.line).toBe("unexpected error: oops");
    expect(report.details.length).toBeGreaterThan(0);
  });
});
