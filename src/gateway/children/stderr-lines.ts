/**
 * A child's stderr, as the stdio transport hands it over (text in pieces that are not whole
 * lines), cut into lines for the gateway's log. A child may write megabytes without a newline:
 * the line being written keeps at most `maxChars` characters, the rest of it is counted as cut
 * and let go, so what is held never grows past one line's bound whatever arrives.
 */

/** One line of a child's stderr, without its line ending. */
export interface StderrLine {
  text: string;
  /** The line was longer than the bound: `text` is its beginning. */
  truncated: boolean;
}

export class StderrLines {
  /** The line being written: its kept beginning, as pieces, and their length together. */
  private pieces: string[] = [];
  private length = 0;
  private cut = false;

  /** @param maxChars the most characters (UTF-16 code units) kept of one line */
  constructor(
    private readonly maxChars: number,
    private readonly line: (line: StderrLine) => void,
  ) {}

  /** A piece of stderr text: each line it completes goes to `line`, in order. */
  push(text: string): void {
    let start = 0;
    while (start < text.length) {
      const newline = text.indexOf("\n", start);
      if (newline === -1) {
        this.keep(text, start, text.length);
        return;
      }
      this.keep(text, start, newline);
      this.finish();
      start = newline + 1;
    }
  }

  /** The child's stderr ended: a last line without a newline is still a line. */
  end(): void {
    if (this.length > 0 || this.cut) this.finish();
  }

  private keep(text: string, from: number, to: number): void {
    // Once cut, the rest of the line is let go: the kept text is the line's beginning, unbroken.
    if (from === to || this.cut) return;
    // One character more than the bound is kept: it may be the CR of a CRLF ending, and the line then fits.
    const room = this.maxChars + 1 - this.length;
    if (to - from > room) {
      this.cut = true;
      to = from + room;
    }
    this.pieces.push(text.slice(from, to));
    this.length += to - from;
  }

  private finish(): void {
    let text = this.pieces.length === 1 ? this.pieces[0]! : this.pieces.join("");
    const cut = this.cut;
    this.pieces = [];
    this.length = 0;
    this.cut = false;
    // CRLF line endings: the carriage return belongs to the ending, not to the line.
    if (!cut && text.endsWith("\r")) text = text.slice(0, -1);
    const truncated = cut || text.length > this.maxChars;
    if (truncated) {
      let end = this.maxChars;
      // A cut between the two halves of a surrogate pair would leave half a character.
      if (isHighSurrogate(text.charCodeAt(end - 1))) end--;
      text = text.slice(0, end);
    }
    // A blank line says nothing in a log of its own.
    if (text === "" && !truncated) return;
    this.line({ text, truncated });
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
