/**
 * The exit codes of `mcpwire`: one per failure reason, so that a script branches on the code and
 * never parses a message. This table is the README's; a code never changes meaning.
 */
import type { McpFailureReason } from "../errors.js";

export const ExitCode = {
  /** The command did what was asked. */
  OK: 0,
  /** `call`: the tool ran and answered with `isError: true` (its result is printed). */
  TOOL_ERROR: 1,
  /** The command line is wrong: unknown command or option, missing or extra arguments, bad `key=value`. */
  USAGE: 2,
  /** The configuration is wrong: a config file that cannot be read or is invalid, a bad server declaration, a TLS file that cannot be read. */
  CONFIG: 3,
  /** The server could not be reached: refused connection, a command that does not start, HTTP 5xx. */
  UNAVAILABLE: 4,
  /** A deadline fired (`--timeout`, or a read that stalled). */
  TIMEOUT: 5,
  /** The connection ended while in use: the server process exited, the stream or socket closed. */
  DISCONNECTED: 6,
  /** The server did not speak the protocol, or answered the request with a JSON-RPC error. */
  PROTOCOL: 7,
  /** A message ran past the size ceiling. */
  LIMIT: 8,
  /** Anything else: a fault of mcpwire itself (`--verbose` shows the stack). */
  INTERNAL: 9,
  /** Interrupted (Ctrl-C): the request was cancelled and the server closed. 128 + SIGINT, as shells do. */
  INTERRUPTED: 130,
  /** Terminated (SIGTERM): the request was cancelled and the server closed. 128 + SIGTERM. */
  TERMINATED: 143,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

const FOR_REASON: Record<McpFailureReason, ExitCodeValue> = {
  UNAVAILABLE: ExitCode.UNAVAILABLE,
  TIMEOUT: ExitCode.TIMEOUT,
  DISCONNECTED: ExitCode.DISCONNECTED,
  PROTOCOL: ExitCode.PROTOCOL,
  LIMIT: ExitCode.LIMIT,
};

export function exitCodeForReason(reason: McpFailureReason): ExitCodeValue {
  return FOR_REASON[reason];
}
