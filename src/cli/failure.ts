/**
 * A failure as the user sees it: one clear line on stderr and the exit code of its kind; with
 * `--verbose`, the details under it (the error's data fields, its causes, the server's stderr).
 */
import { ConfigError } from "../config/server-config.js";
import { McpTransportError } from "../errors.js";
import { ExitCode, exitCodeForReason, type ExitCodeValue } from "./exit-codes.js";
import { forTerminal } from "./render.js";
import { UsageError } from "./usage.js";

export interface FailureReport {
  code: ExitCodeValue;
  /** The one line, without the program name. */
  line: string;
  /** Lines shown with `--verbose` only. */
  details: string[];
}

export interface FailureContext {
  /** The failure happened while reading the target or setting up the connection. */
  setup: boolean;
  /** Ctrl-C was pressed. */
  interrupted: boolean;
  /** For a one-word command that would not start: no config file declares a server of that name. */
  notAServerNote?: string;
  verbose: boolean;
}


export function describeFailure(error: unknown, context: FailureContext): FailureReport {
  if (context.interrupted) return { code: ExitCode.INTERRUPTED, line: "interrupted; the request was cancelled", details: [] };
  if (error instanceof UsageError) return { code: ExitCode.USAGE, line: `${error.message} (see mcpwire --help)`, details: [] };
  if (error instanceof ConfigError || (error instanceof TypeError && context.setup)) {
    return { code: ExitCode.CONFIG, line: error.message, details: causeLines(error) };
  }
  if (error instanceof McpTransportError) return describeTransportFailure(error, context);
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: ExitCode.INTERNAL,
    line: `unexpected error: ${message}${context.verbose ? "" : " (--verbose shows where)"}`,
    details: error instanceof Error && error.stack ? error.stack.split("\n").slice(1).map((line) => line.trim()) : [],
  };
}

function describeTransportFailure(error: McpTransportError, context: FailureContext): FailureReport {
  let line = error.message;
  // The one line is ours: the server's own words (often the clue to a bad argument) are shown,
  // fenced off as such, only among the --verbose details.
  if (error.reason === "UNAVAILABLE" && context.notAServerNote) line += `; ${context.notAServerNote}`;
  if (error.kind === "output_schema") line += "; --no-validate-output prints the result unchecked";
  const more = [error.serverMessage ? "the server's message" : undefined, error.stderrTail ? "the server's stderr" : undefined].filter(Boolean);
  if (more.length > 0 && !context.verbose) line += ` (--verbose shows ${more.join(" and ")})`;
  const details: string[] = [`reason: ${error.reason}`];
  const fields: [string, unknown][] = [
    ["JSON-RPC error code", error.code],
    ["method", error.method],
    ["HTTP status", error.httpStatus],
    ["exit code", error.exitCode],
    ["signal", error.signal],
    ["timeout", error.timeoutMs === undefined ? undefined : `${error.timeoutMs} ms`],
    ["limit", error.limitBytes === undefined ? undefined : `${error.limitBytes} bytes`],
    ["server message", error.serverMessage],
    ["server data", error.serverData === undefined ? undefined : JSON.stringify(error.serverData)],
  ];
  for (const [label, value] of fields) {
    if (value !== undefined && value !== null) details.push(`${label}: ${forTerminal(String(value))}`);
  }
  details.push(...causeLines(error));
  if (error.stderrTail) {
    details.push("server stderr (last lines):");
    details.push(...forTerminal(error.stderrTail).replace(/\n$/, "").split("\n").map((text) => `  | ${text}`));
  }
  return { code: exitCodeForReason(error.reason), line, details };
}

/** `caused by: ...` for each error in the `cause` chain (a refused connection, a spawn error). */
function causeLines(error: Error): string[] {
  const lines: string[] = [];
  let cause: unknown = error.cause;
  for (let depth = 0; cause !== undefined && depth < 5; depth++) {
    const text = cause instanceof Error ? `${cause.name}: ${cause.message}${codeOf(cause)}` : String(cause);
    lines.push(`caused by: ${forTerminal(text)}`);
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return lines;
}

function codeOf(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === "string" && !error.message.includes(code) ? ` (${code})` : "";
}
