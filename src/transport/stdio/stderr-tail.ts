/**
 * The last lines a child wrote on stderr, bounded in count and in bytes, for the failures that
 * need them (`McpTransportError.stderrTail`).
 *
 * A child may log megabytes, with or without newlines; the tail holds at most `maxBytes` of it
 * whatever arrives, so draining stderr continuously never grows memory. A line longer than the
 * bound keeps its end (where a stack trace's message usually is), marked with a leading "…".
 */
import { checkWholeNumber } from "../../util/whole-number.js";

/** Lines kept. Enough for a stack trace's head and the few lines logged before a crash. @default 50 */
export const DEFAULT_STDERR_TAIL_LINES = 50;
/** Bytes kept, all lines together. Small enough to attach to every error and log it. @default 8 KiB */
export const DEFAULT_STDERR_TAIL_BYTES = 8 * 1024;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const TRUNCATED = "…";

export interface StderrTailOptions {
  /** @default DEFAULT_STDERR_TAIL_LINES */
  maxLines?: number;
  /** @default DEFAULT_STDERR_TAIL_BYTES */
  maxBytes?: number;
}

/** One kept line: its bytes, and whether its beginning was cut off. */
interface KeptLine {
  bytes: Buffer;
  truncated: boolean;
}

export class StderrTail {
  readonly maxLines: number;
  readonly maxBytes: number;
  /** Complete lines, oldest first; together at most `maxLines` lines and `maxBytes` bytes. */
  private lines: KeptLine[] = [];
  private lineBytes = 0;
  /** The line being written, as the pieces it arrived in; compacted to its last `maxBytes`. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private partialTruncated = false;
  private totalBytes = 0;

  constructor(options: StderrTailOptions = {}) {
    this.maxLines = checkPositive("maxLines", options.maxLines ?? DEFAULT_STDERR_TAIL_LINES);
    this.maxBytes = checkPositive("maxBytes", options.maxBytes ?? DEFAULT_STDERR_TAIL_BYTES);
  }

  /** Every byte ever pushed, kept or not. */
  get bytesSeen(): number {
    return this.totalBytes;
  }

  push(chunk: Uint8Array): void {
    this.totalBytes += chunk.length;
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.appendPartial(chunk.subarray(start));
        return;
      }
      this.appendPartial(chunk.subarray(start, newline));
      this.finishLine();
      start = newline + 1;
    }
  }

  /** The kept lines, newest last, joined with "\n"; "" when nothing was written. */
  text(): string {
    const pieces: string[] = [];
    // Each line is charged its newline too; the first one has none, hence the extra byte.
    let budget = this.maxBytes + 1;
    let count = 0;
    if (this.partialBytes > 0) {
      const line = this.partialLine();
      pieces.push(decode(line));
      budget -= line.bytes.length + 1;
      count++;
    }
    for (let i = this.lines.length - 1; i >= 0 && count < this.maxLines; i--) {
      const line = this.lines[i]!;
      if (line.bytes.length + 1 > budget) break;
      pieces.push(decode(line));
      budget -= line.bytes.length + 1;
      count++;
    }
    return pieces.reverse().join("\n");
  }

  private appendPartial(piece: Uint8Array): void {
    if (piece.length === 0) return;
    // Copied: a view would keep the whole chunk it came from alive.
    this.partial.push(Buffer.from(piece));
    this.partialBytes += piece.length;
    // Compacted only past twice the bound, so a line arriving a byte at a time costs O(1) per byte.
    if (this.partialBytes > 2 * this.maxBytes) this.compactPartial();
  }

  private compactPartial(): void {
    const whole = Buffer.concat(this.partial, this.partialBytes);
    const kept = whole.length > this.maxBytes ? whole.subarray(whole.length - this.maxBytes) : whole;
    if (kept !== whole) this.partialTruncated = true;
    this.partial = [Buffer.from(kept)];
    this.partialBytes = kept.length;
  }

  private partialLine(): KeptLine {
    if (this.partial.length !== 1 || this.partialBytes > this.maxBytes) this.compactPartial();
    let bytes = this.partial[0] ?? Buffer.alloc(0);
    if (bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN) bytes = bytes.subarray(0, bytes.length - 1);
    return { bytes, truncated: this.partialTruncated };
  }

  private finishLine(): void {
    const line = this.partialBytes > 0 ? this.partialLine() : { bytes: Buffer.alloc(0), truncated: false };
    this.partial = [];
    this.partialBytes = 0;
    this.partialTruncated = false;
    this.lines.push(line);
    this.lineBytes += line.bytes.length;
    while (this.lines.length > this.maxLines || (this.lineBytes > this.maxBytes && this.lines.length > 1)) {
      this.lineBytes -= this.lines.shift()!.bytes.length;
    }
  }
}

/** A kept line as text; a cut beginning loses its broken first character and gains a mark. */
function decode(line: KeptLine): string {
  let bytes = line.bytes;
  if (line.truncated) {
    let skip = 0;
    // UTF-8 continuation bytes (10xxxxxx) are the rest of a character cut off by the bound.
    while (skip < bytes.length && (bytes[skip]! & 0xc0) === 0x80) skip++;
    bytes = bytes.subarray(skip);
  }
  const text = bytes.toString("utf8");
  return line.truncated ? TRUNCATED + text : text;
}

function checkPositive(name: string, value: number): number {
  return checkWholeNumber(value, name, "stderr tail", { min: 1 });
}
