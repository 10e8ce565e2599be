/**
 * The progress line of a long call: redrawn in place on stderr, and only when stderr is a
 * terminal (a log file or a pipe gets no carriage returns and escape codes).
 */
import type { Progress } from "../session/session.js";
import { DEFAULT_COLUMNS, progressLine } from "./render.js";

/** Carriage return, then erase the whole line (ECMA-48 EL 2). */
const CLEAR_LINE = "\r\u001b[2K";

export interface TerminalStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export class ProgressDisplay {
  private shown = false;

  private constructor(private readonly stream: TerminalStream) {}

  /** A display on `stream` if it is a terminal; otherwise nothing is ever drawn. */
  static on(stream: TerminalStream): ProgressDisplay | undefined {
    return stream.isTTY ? new ProgressDisplay(stream) : undefined;
  }

  update(progress: Progress): void {
    this.stream.write(CLEAR_LINE + progressLine(progress, this.stream.columns || DEFAULT_COLUMNS));
    this.shown = true;
  }

  /** Erases the line, so that what follows starts on a clean one. */
  clear(): void {
    if (!this.shown) return;
    this.stream.write(CLEAR_LINE);
    this.shown = false;
  }
}
