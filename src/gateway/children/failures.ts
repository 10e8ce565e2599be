/**
 * The failures the children side hands to a `RequestSink`, in our words only.
 *
 * A sink's error becomes a JSON-RPC error answer to a caller the child does not trust, and a log
 * line: it never carries the child's stderr, its own error text, or the cause underneath
 * (`McpTransportError` keeps those on fields, and the stdio transport fills them). So every
 * error that leaves this folder is made here, with the fields a caller may branch on and no others.
 */
import { McpTransportError, type McpFailureReason } from "../../errors.js";
import type { ChildExitCause } from "../ops/telemetry.js";

/** The same failure without what came from the child (stderr tail, server text, cause). */
export function cleanFailure(error: McpTransportError, method?: string): McpTransportError {
  return new McpTransportError(error.reason, error.message, {
    kind: error.kind,
    exitCode: error.exitCode,
    signal: error.signal,
    timeoutMs: error.timeoutMs,
    limitBytes: error.limitBytes,
    method: method ?? error.method,
  });
}

/** Any thrown value (an abort reason, say) as a clean failure of `reason`. */
export function asCleanFailure(value: unknown, reason: McpFailureReason, message: string, method?: string): McpTransportError {
  return value instanceof McpTransportError ? cleanFailure(value, method) : new McpTransportError(reason, message, { method });
}

/** DISCONNECTED for every request pending on a child that is gone: how it went, never why it said. */
export function childGone(exitCode: number | null, signal: string | null, cause: ChildExitCause | undefined): McpTransportError {
  let what: string;
  if (cause !== undefined && cause !== "crash" && cause !== "killed") what = `the server process was stopped by the gateway (${cause})`;
  else if (signal) what = `the server process was ended by ${signal}`;
  else if (exitCode !== null) what = `the server process exited with code ${exitCode}`;
  else what = "the server process closed its stdout";
  return new McpTransportError("DISCONNECTED", `${what} before it answered`, { exitCode, signal });
}

/** TIMEOUT for a request past the gateway's request timeout; the child was told with `notifications/cancelled`. */
export function requestTimedOut(method: string, timeoutMs: number): McpTransportError {
  return new McpTransportError("TIMEOUT", `${method} timed out after ${timeoutMs} ms in the gateway (the server was told to cancel it)`, {
    timeoutMs,
    method,
  });
}

/** LIMIT for a request past a ceiling of the gateway (a child's in-flight, the pool's queue). */
export function ceilingPassed(what: string, method: string): McpTransportError {
  return new McpTransportError("LIMIT", `${method} was refused: ${what}`, { method });
}

/** UNAVAILABLE when no child can take a request (none could be started, the pool is crash-looping or closed). */
export function noChild(why: string, method?: string): McpTransportError {
  return new McpTransportError("UNAVAILABLE", `no server process can take the request: ${why}`, { method });
}
