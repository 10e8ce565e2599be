/**
 * A child's stderr into the gateway's log (`childStderr: "log"`): the server's own diagnostics
 * are what an operator reads in `kubectl logs`, so each line it writes becomes a `child_stderr`
 * report to telemetry, with the child's pid, the era it serves and its session.
 *
 * Bounded, so that a child cannot flood the log or grow the gateway's memory: a line is cut at
 * MAX_CHILD_STDERR_LINE characters (stderr-lines.ts), and each child has a budget of lines
 * (line-budget.ts: CHILD_STDERR_BURST_LINES at once, CHILD_STDERR_LINES_PER_SECOND after). A line
 * past the budget is counted, not kept; the count is reported once per
 * CHILD_STDERR_DROPPED_REPORT_MS at most (`childStderrDropped`), and at the child's end.
 *
 * The stdio transport drains stderr whatever this does, and keeps its tail for failures; this
 * only reads what the transport forwards, and never slows the child.
 */
import { MAX_CHILD_STDERR_LINE } from "../ops/log-lines.js";
import type { GatewayTelemetry, RequestEra } from "../ops/telemetry.js";
import { LineBudget } from "./line-budget.js";
import { StderrLines, type StderrLine } from "./stderr-lines.js";

/**
 * Lines of one child logged at once before its budget applies: a stack trace, or a server's
 * start-up banner, whole.
 * @default 200
 */
export const CHILD_STDERR_BURST_LINES = 200;

/**
 * Lines of one child logged per second once its burst is spent: a line per request of a busy
 * child, while a flood costs the log at most this many lines a second per child.
 * @default 50
 */
export const CHILD_STDERR_LINES_PER_SECOND = 50;

/**
 * How often, at most, one child's dropped lines are reported (one `child_stderr_dropped` line
 * with their count): often enough to see a flood as it happens, rarely enough not to be one.
 * @default 1000 ms
 */
export const CHILD_STDERR_DROPPED_REPORT_MS = 1_000;

/** What the gateway does with its children's stderr beside keeping its tail for failures. */
export type ChildStderrMode =
  /** Each line is a `child_stderr` log line, within the bounds above. */
  | "log"
  /** Drained and not logged (a server that prints secrets on its stderr). */
  | "drop";

/** Whose stderr it is, as its lines say. */
export interface ChildStderrSource {
  /** The era of the callers the child serves: the modern pool's, or legacy (a stateless pool, a session). */
  era: RequestEra;
  /** A legacy session's child: the session id, hashed before it is written. */
  sessionId?: string;
}

export interface ChildStderrLogOptions {
  source: ChildStderrSource;
  telemetry: GatewayTelemetry;
  /** The child's pid, read when a line is reported (the transport knows it once the child is spawned). */
  pid: () => number;
  /** Milliseconds on a monotonic clock, for the budget. @default monotonicNow */
  now?: () => number;
}

export class ChildStderrLog {
  private readonly lines: StderrLines;
  private readonly budget: LineBudget;
  private dropped = 0;
  private reportTimer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(private readonly options: ChildStderrLogOptions) {
    this.lines = new StderrLines(MAX_CHILD_STDERR_LINE, (line) => this.onLine(line));
    this.budget = new LineBudget(CHILD_STDERR_BURST_LINES, CHILD_STDERR_LINES_PER_SECOND, options.now);
  }

  /** The stdio transport's `stderr` callback: text as it arrives, in pieces that are not always whole lines. */
  readonly write = (text: string): void => {
    if (!this.ended) this.lines.push(text);
  };

  /**
   * The child is gone: its last line without a newline is reported, then what was dropped.
   * Idempotent; what arrives after it is not read.
   */
  end(): void {
    if (this.ended) return;
    this.lines.end();
    this.ended = true;
    this.reportDropped();
  }

  private onLine(line: StderrLine): void {
    if (this.budget.take()) {
      const { era, sessionId } = this.options.source;
      this.tell(() => this.options.telemetry.childStderr?.({ pid: this.options.pid(), era, sessionId, text: line.text, truncated: line.truncated }));
      return;
    }
    this.dropped++;
    if (this.reportTimer === undefined) {
      this.reportTimer = setTimeout(() => this.reportDropped(), CHILD_STDERR_DROPPED_REPORT_MS);
      // A report due is no reason to keep the process alive; the child's end reports it anyway.
      this.reportTimer.unref();
    }
  }

  private reportDropped(): void {
    clearTimeout(this.reportTimer);
    this.reportTimer = undefined;
    if (this.dropped === 0) return;
    const dropped = this.dropped;
    this.dropped = 0;
    const { era, sessionId } = this.options.source;
    this.tell(() => this.options.telemetry.childStderrDropped?.({ pid: this.options.pid(), era, sessionId, dropped }));
  }

  /** A telemetry that throws must neither break the reading of the child's stderr nor throw from a timer. */
  private tell(report: () => void): void {
    try {
      report();
    } catch {
      // The log's failure is its own.
    }
  }
}
