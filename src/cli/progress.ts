/**
 * The progress line of a long call: redrawn in place on stderr, and only when stderr is a
 * terminal (a log file or a pipe gets no carriage returns and escape codes).
 */
import type { TaskState } from "../client/tasks/task-state.js";
import type { Progress } from "../session/session.js";
import { DEFAULT_COLUMNS, progressLine, taskStatusLine } from "./render.js";

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
    this.draw(progressLine(progress, this.stream.columns || DEFAULT_COLUMNS));
  }

  /** A call that runs as a task: its latest state, in place of a progress count. */
  updateTask(state: TaskState): void {
    this.draw(taskStatusLine(state, this.stream.columns || DEFAULT_COLUMNS));
  }

  private draw(line: string): void {
    this.stream.write(CLEAR_LINE + line);
    this.shown = true;
  }

  /** Erases the line, so that what follows starts on a clean one. */
  clear(): void {
    if (!this.shown) return;
    this.stream.write(CLEAR_LINE);
    this.shown = false;
  }
}
