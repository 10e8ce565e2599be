/**
 * Newline framing of a byte stream (stdio, and any stream that reuses its framing), with the
 * byte ceiling kept while reading.
 *
 * Pure: bytes in, lines out, no I/O. Linear in the bytes received: each byte is scanned for a
 * newline once, when its chunk arrives, and decoded once; the bytes of an unfinished line are
 * never rescanned. A line within one chunk is decoded straight from it. A line spread over
 * several chunks is decoded piece by piece as they arrive (a streaming decoder carries a
 * character cut between two chunks over to the next), so that its chunks are not held until the
 * line ends: a 16 MiB line costs its text once, not its bytes and its text.
 *
 * A line longer than `maxLineBytes` is reported as soon as its length crosses the ceiling, and
 * none of it is kept: a peer cannot make us hold more than `maxLineBytes` of one line.
 *
 * Decoding is strict, as a fatal `TextDecoder` is (a line that is not UTF-8 is refused rather
 * than silently repaired: the spec requires UTF-8), and like it drops one leading byte order
 * mark, but cheaper on the common path: a chunk that is all ASCII (one SIMD check) is decoded
 * line by line as latin1, with no check per line; other lines are validated with `isUtf8` and
 * then decoded.
 */
import { isAscii, isUtf8 } from "node:buffer";
import { TextDecoder } from "node:util";
import { asBuffer } from "../common/bytes.js";

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
/** The UTF-8 byte order mark, EF BB BF. */
const BOM = [0xef, 0xbb, 0xbf] as const;

/** What one chunk completed. */
export interface FramedChunk {
  /**
   * The lines this chunk completed, in order, decoded, without their line ending; `null` stands
   * for a line that is not valid UTF-8 (the caller decides whether that fails the stream).
   */
  lines: (string | null)[];
  /**
   * True when a line crossed `maxLineBytes` in this chunk. The lines before it are in `lines`;
   * the framer keeps nothing of it and refuses further input.
   */
  tooLong: boolean;
}

export class LineFramer {
  /** The unfinished line, as the text of the chunks (or chunk tails) it arrived in. */
  private pieces: string[] = [];
  /** Decodes the unfinished line (fatal: invalid UTF-8 is refused); one per line. */
  private decoder: TextDecoder | undefined;
  /** The unfinished line is not valid UTF-8: it is read to its end and reported as null. */
  private invalid = false;
  private partBytes = 0;
  private overflowed = false;

  /** @param maxLineBytes the longest line accepted, in bytes, the newline excluded (a CR before it counts) */
  constructor(private readonly maxLineBytes: number) {
    if (!Number.isInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new RangeError(`maxLineBytes must be a whole number of at least 1, got ${String(maxLineBytes)}`);
    }
  }

  /** Bytes of the unfinished line held now (at most `maxLineBytes`). */
  get pendingBytes(): number {
    return this.partBytes;
  }

  /** True once a line crossed the ceiling; the framer then refuses input. */
  get failed(): boolean {
    return this.overflowed;
  }

  /** Frames one chunk. */
  push(chunk: Uint8Array): FramedChunk {
    const lines: (string | null)[] = [];
    if (this.overflowed) return { lines, tooLong: true };
    const bytes = asBuffer(chunk);
    /** Whether the whole chunk is ASCII, found out when a line first ends within it. */
    let ascii: boolean | undefined;
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (this.partBytes + (end - start) > this.maxLineBytes) {
        this.overflow();
        return { lines, tooLong: true };
      }
      if (newline === -1) {
        this.hold(bytes.subarray(start));
        break;
      }
      let line: string | null | undefined;
      if (this.decoder === undefined) {
        ascii ??= isAscii(bytes);
        line = decodeLine(bytes, start, newline, ascii);
      } else {
        line = this.finish(bytes.subarray(start, newline));
      }
      if (line !== undefined) lines.push(line);
      start = newline + 1;
    }
    return { lines, tooLong: false };
  }

  /** Forgets everything held (the stream ended or failed). */
  reset(): void {
    this.pieces = [];
    this.decoder = undefined;
    this.invalid = false;
    this.partBytes = 0;
  }

  private overflow(): void {
    this.overflowed = true;
    this.reset();
  }

  /** Decodes one more piece of an unfinished line. */
  private hold(part: Buffer): void {
    this.decoder ??= new TextDecoder("utf-8", { fatal: true });
    this.partBytes += part.length;
    if (this.invalid) return;
    try {
      this.pieces.push(this.decoder.decode(part, { stream: true }));
    } catch {
      this.invalid = true;
      this.pieces = [];
    }
  }

  /** The unfinished line with its last piece, `tail`: decoded, or null/undefined as `decodeLine` says. */
  private finish(tail: Buffer): string | null | undefined {
    let line: string | null;
    if (this.invalid) line = null;
    else {
      try {
        this.pieces.push(this.decoder!.decode(tail));
        line = this.pieces.join("");
      } catch {
        line = null;
      }
    }
    this.reset();
    if (line === null) return null;
    // As in decodeLine: a CR before the newline is dropped, and a blank line carries nothing.
    if (line.endsWith("\r")) line = line.slice(0, -1);
    return /^[ \t\r]*$/.test(line) ? undefined : line;
  }
}

/**
 * The line in `bytes[start, end)`, decoded; undefined for a blank line, null for one not UTF-8.
 * `ascii` says the bytes are known to be ASCII (then each is one character, as in latin1).
 */
function decodeLine(bytes: Buffer, start: number, end: number, ascii: boolean): string | null | undefined {
  // CRLF is accepted: a server on Windows may end its lines that way.
  if (end > start && bytes[end - 1] === CARRIAGE_RETURN) end--;
  if (isBlank(bytes, start, end)) return undefined;
  // Decoded from a view of the line, not with `toString(encoding, start, end)`: that one takes
  // another path inside Node for a line that does not start its chunk, which one call at a time
  // never sends, and the first calls in flight would throw away the optimized code of `push` to
  // compile it again (bench/RESULTS.md, "One path whether calls overlap or not").
  if (ascii) return bytes.subarray(start, end).toString("latin1");
  // One leading byte order mark is dropped, as a TextDecoder does.
  if (end - start >= 3 && bytes[start] === BOM[0] && bytes[start + 1] === BOM[1] && bytes[start + 2] === BOM[2]) start += 3;
  const line = bytes.subarray(start, end);
  return isUtf8(line) ? line.toString("utf8") : null;
}

/** Blank lines carry no message; they are skipped rather than treated as malformed ones. */
function isBlank(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const byte = bytes[i];
    if (byte !== 0x20 && byte !== 0x09 && byte !== CARRIAGE_RETURN) return false;
  }
  return true;
}
