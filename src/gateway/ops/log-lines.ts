/**
 * The gateway's JSON log lines: one object per line, written through a `(line) => void` writer
 * (process.stderr by default). Each builder below copies the fields it knows by name out of a
 * report and nothing else, so a body, a header value or an environment value cannot reach a line
 * unless someone adds a field here for it: the reports carry none, and extra members a caller
 * put on a report object are never read. Strings that come from callers (the method, the
 * request id) are folded or checked against a safe shape first. The one text written as it came
 * is a line of a child's stderr (`child_stderr`): the server's own words, cut at
 * MAX_CHILD_STDERR_LINE, kept out altogether with `childStderr: "drop"`.
 */
import { methodLabel } from "./method-label.js";
import type { SessionHasher } from "./session-hash.js";
import type { ChildExitCause, ChildStderrDroppedReport, ChildStderrReport, RejectionCause, RequestReport } from "./telemetry.js";

/** Where log lines go: one call per line, the line without its line feed. */
export type LogWriter = (line: string) => void;

/** Writes each line to process.stderr, with its line feed. */
export const stderrLogWriter: LogWriter = (line) => {
  process.stderr.write(`${line}\n`);
};

/** The longest string value a line keeps; past it the value is cut (a principal, a note's field). */
export const MAX_LOG_STRING = 200;

/**
 * The longest text a `child_stderr` line keeps, in characters (UTF-16 code units, so at most
 * 12 KiB of UTF-8): a long stack frame fits, a child's megabyte without a newline does not. Past
 * it the text is cut, ends with "…", and the line says `"truncated":true`.
 */
export const MAX_CHILD_STDERR_LINE = 4096;

/** A request id the gateway made (or a caller's JSON-RPC id, if the front reports that): short and plain, else not written as given. */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,64}$/;
/** Names of events: our own words, lower case with `_`, `.` or `-`. */
const SAFE_EVENT = /^[a-z][a-z0-9_.-]{0,63}$/;
/** Names of a note's fields: words in camel case, as the report fields are. */
const SAFE_FIELD = /^[a-zA-Z][a-zA-Z0-9_]{0,63}$/;

type Field = string | number | boolean;

export class GatewayLog {
  constructor(
    private readonly write: LogWriter,
    private readonly hashSession: SessionHasher,
    private readonly now: () => Date = () => new Date(),
  ) {}

  request(report: RequestReport): void {
    this.line("request", {
      requestId: safeId(report.requestId),
      era: report.era === "legacy" ? "legacy" : "modern",
      method: methodLabel(String(report.method)),
      outcome: String(report.outcome),
      status: finiteNumber(report.status),
      durationMs: finiteNumber(Math.round(report.durationMs * 10) / 10),
      session: typeof report.sessionId === "string" ? this.hashSession(report.sessionId) : undefined,
      principal: typeof report.principal === "string" ? bounded(report.principal) : undefined,
      childPid: finiteNumber(report.childPid),
      caller: report.caller === "resumed" || report.caller === "gone" ? report.caller : undefined,
    });
  }

  rejected(cause: RejectionCause, status: number, requestId: string): void {
    this.line("rejected", { requestId: safeId(requestId), cause: String(cause), status: finiteNumber(status) });
  }

  childSpawned(pid: number): void {
    this.line("child_spawned", { pid: finiteNumber(pid) });
  }

  childExited(pid: number, cause: ChildExitCause, exitCode: number | null, signal: string | null): void {
    this.line("child_exited", {
      pid: finiteNumber(pid),
      cause: String(cause),
      exitCode: finiteNumber(exitCode ?? undefined),
      // A signal name is one of Node's (SIGTERM...); anything else is not written as given.
      signal: typeof signal === "string" && /^SIG[A-Z0-9]{1,12}$/.test(signal) ? signal : undefined,
    });
  }

  childStderr(report: ChildStderrReport): void {
    const text = String(report.text);
    const cut = report.truncated === true || text.length > MAX_CHILD_STDERR_LINE;
    this.line("child_stderr", {
      ...this.childSource(report),
      // As the server wrote it: JSON.stringify escapes its control characters, so it stays one line.
      text: cut ? `${text.slice(0, MAX_CHILD_STDERR_LINE)}…` : text,
      truncated: cut ? true : undefined,
    });
  }

  childStderrDropped(report: ChildStderrDroppedReport): void {
    this.line("child_stderr_dropped", { ...this.childSource(report), dropped: finiteNumber(report.dropped) });
  }

  /**
   * A notable event of the gateway's own (`listening`, `drain_started`, `crash_loop`): its name
   * and field names must be plain words, else the event is written as `note` and the field left
   * out. The values are written as given (strings cut at MAX_LOG_STRING): a note is for what the
   * gateway itself says, never for anything a caller sent.
   */
  note(event: string, fields: Readonly<Record<string, Field>> = {}): void {
    const kept: Record<string, Field | undefined> = {};
    for (const [name, value] of Object.entries(fields)) {
      if (!SAFE_FIELD.test(name) || name === "time" || name === "event") continue;
      kept[name] = typeof value === "string" ? bounded(value) : typeof value === "number" ? finiteNumber(value) : value === true;
    }
    this.line(SAFE_EVENT.test(event) ? event : "note", kept);
  }

  /** Which child a stderr report is of: its pid, the era it serves, its session hashed. */
  private childSource(report: { pid: number; era: string; sessionId?: string }): Record<string, Field | undefined> {
    return {
      pid: finiteNumber(report.pid),
      era: report.era === "legacy" ? "legacy" : "modern",
      session: typeof report.sessionId === "string" ? this.hashSession(report.sessionId) : undefined,
    };
  }

  private line(event: string, fields: Readonly<Record<string, Field | undefined>>): void {
    // JSON leaves U+2028 and U+2029 as they are, and some readers of lines break lines at them.
    const line = JSON.stringify({ time: this.now().toISOString(), event, ...fields }).replace(LINE_SEPARATORS, escapeSeparator);
    try {
      this.write(line);
    } catch {
      // A log that cannot be written (stderr closed) never fails a request.
    }
  }
}

const LINE_SEPARATORS = /[\u2028\u2029]/g;

function escapeSeparator(separator: string): string {
  return separator === "\u2028" ? "\\u2028" : "\\u2029";
}

function safeId(id: unknown): string {
  return typeof id === "string" && SAFE_ID.test(id) ? id : "invalid";
}

function bounded(text: string): string {
  return text.length <= MAX_LOG_STRING ? text : `${text.slice(0, MAX_LOG_STRING)}…`;
}

function finiteNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
