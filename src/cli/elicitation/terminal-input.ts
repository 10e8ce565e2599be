/**
 * Questions on the terminal: a prompt on stderr (stdout keeps the command's output), one line of
 * the answer from stdin. Stdin is read only once a first question is asked, so a command that
 * asks nothing never touches it; lines typed (or piped) ahead of a question wait for it.
 *
 * The terminal stays in its ordinary line mode (readline without terminal handling): the
 * terminal echoes and edits the line, and Ctrl-C is the usual SIGINT that interrupts mcpwire.
 * The end of input (Ctrl-D, a pipe that closed) answers every question with `null`.
 */
import { createInterface, type Interface } from "node:readline";
import { abortReason } from "../../util/abort.js";
import type { TerminalStream } from "../progress.js";

interface Waiter {
  resolve(line: string | null): void;
}

export class TerminalInput {
  private lines: Interface | undefined;
  private readonly queued: string[] = [];
  private readonly waiters: Waiter[] = [];
  private ended = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: Pick<TerminalStream, "write">,
  ) {}

  /** Writes text for the user (on stderr), as it is. */
  say(text: string): void {
    this.output.write(text);
  }

  /**
   * Writes `prompt` and resolves with the next line (without its line break), or `null` once
   * the input ended; rejects with the signal's reason when `signal` aborts first. With `fresh`,
   * lines typed before the prompt are dropped: a consent is never an Enter pressed earlier.
   */
  ask(prompt: string, signal?: AbortSignal, options: { fresh?: boolean } = {}): Promise<string | null> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (options.fresh) this.queued.length = 0;
    this.output.write(prompt);
    this.start();
    const queued = this.queued.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.ended) return Promise.resolve(null);
    return new Promise<string | null>((resolve, reject) => {
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(abortReason(signal!));
      };
      const waiter: Waiter = {
        resolve: (line) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(line);
        },
      };
      this.waiters.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Stops reading stdin (at the end of the run), so that nothing holds the process. */
  close(): void {
    this.lines?.close();
    this.lines = undefined;
    this.finish();
  }

  private start(): void {
    if (this.lines || this.ended) return;
    this.lines = createInterface({ input: this.input, terminal: false, crlfDelay: Infinity });
    this.lines.on("line", (line) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter.resolve(line);
      else this.queued.push(line);
    });
    this.lines.on("close", () => this.finish());
  }

  private finish(): void {
    this.ended = true;
    for (const waiter of this.waiters.splice(0)) waiter.resolve(null);
  }
}
