/**
 * One run of `mcpwire`: read the command line, understand the target, connect, run the command,
 * close, and say how it went with an exit code. Everything it touches comes in as `CliIo`, so a
 * run is a function of its inputs.
 */
import { createRequire } from "node:module";
import type { McpClient } from "../client/client.js";
import { connect } from "../connect.js";
import { parseCommandLine } from "./args.js";
import { prepareCommand } from "./commands.js";
import { ExitCode, type ExitCodeValue } from "./exit-codes.js";
import { describeFailure } from "./failure.js";
import { ProgressDisplay, type TerminalStream } from "./progress.js";
import { DEFAULT_COLUMNS, type RenderContext } from "./render.js";
import { resolveCliTarget } from "./target.js";
import { HELP } from "./usage.js";

const packageJson = createRequire(import.meta.url)("../../package.json") as { version: string };

export interface CliIo {
  /** The arguments after the program name. */
  argv: readonly string[];
  stdout: TerminalStream;
  stderr: TerminalStream;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Aborted when the user interrupts (Ctrl-C) or the process is told to stop; its reason says which. */
  signal: AbortSignal;
}

/** The reason `CliIo.signal` is aborted with when the process is told to stop. */
export class StopRequest extends Error {
  override readonly name = "StopRequest";
  constructor(readonly signalName: "SIGINT" | "SIGTERM") {
    super(`stopped by ${signalName}`);
  }
}

export async function runCli(io: CliIo): Promise<ExitCodeValue> {
  let verbose = false;
  let setup = true;
  let notAServerNote: string | undefined;
  let client: McpClient | undefined;
  const progress = ProgressDisplay.on(io.stderr);
  try {
    const invocation = parseCommandLine(io.argv);
    if (invocation.kind === "help") {
      io.stdout.write(HELP);
      return ExitCode.OK;
    }
    if (invocation.kind === "version") {
      io.stdout.write(`${packageJson.version}\n`);
      return ExitCode.OK;
    }
    const { options } = invocation;
    verbose = options.verbose;
    const command = prepareCommand(invocation.command, invocation.operands);
    const target = await resolveCliTarget(invocation.target, {
      configFile: options.configFile,
      envAllow: options.envAllow,
      hasHeaders: Object.keys(options.headers).length > 0,
      cwd: io.cwd,
      env: io.env,
    });
    notAServerNote = target.notAServerNote;
    if (verbose) io.stderr.write(`mcpwire: target: ${target.understoodAs}\n`);
    client = await connect(target.config, {
      timeoutMs: options.timeoutMs,
      protocolVersion: options.protocol,
      headers: Object.keys(options.headers).length > 0 ? options.headers : undefined,
      signal: io.signal,
    });
    setup = false;
    const outcome = await command({
      client,
      json: options.json,
      render: renderContextFor(io.stdout),
      write: (text) => {
        // Output replaces the progress line rather than running on after it (they may share a terminal).
        progress?.clear();
        io.stdout.write(text);
      },
      signal: io.signal,
      onProgress: (update) => progress?.update(update),
    });
    progress?.clear();
    if (outcome.note) io.stderr.write(`mcpwire: ${outcome.note}\n`);
    return outcome.code;
  } catch (error) {
    progress?.clear();
    const stop = io.signal.aborted && io.signal.reason instanceof StopRequest ? io.signal.reason : undefined;
    const report = describeFailure(error, { setup, interrupted: stop !== undefined, notAServerNote, verbose });
    io.stderr.write(`mcpwire: ${report.line}\n`);
    if (verbose) for (const detail of report.details) io.stderr.write(`  ${detail}\n`);
    return stop?.signalName === "SIGTERM" ? ExitCode.TERMINATED : report.code;
  } finally {
    // Nothing is left running: the child process is stopped, the HTTP session ended.
    await client?.close().catch(() => {});
  }
}

function renderContextFor(stdout: TerminalStream): RenderContext {
  // A terminal of unknown size reports 0 columns.
  return stdout.isTTY ? { columns: stdout.columns || DEFAULT_COLUMNS, terminal: true } : { columns: DEFAULT_COLUMNS, terminal: false };
}
