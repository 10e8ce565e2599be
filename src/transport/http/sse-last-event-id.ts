/**
 * The last event ID of an event stream, as the SSE standard keeps it (HTML, "Event stream
 * interpretation"): an `id` field sets the last event ID buffer, and every blank line (the
 * dispatch of an event) makes that buffer the last event ID, whether or not the event had data.
 *
 * eventsource-parser reports an event's id only with an event that has data, so an event of an
 * id alone (`id: 7` then a blank line, the way a server primes a stream it may close, SEP-1699)
 * would leave nothing to resume from. This follows the id fields beside the parser: it looks at
 * the first three characters of each line and copies only the value of an `id` line, so a long
 * data line costs a search for its end, never a copy. An event cut off by the end of the stream
 * is not dispatched, so its id does not count, as the standard says.
 */

const LF = 10;
const CR = 13;

export class LastEventIdTracker {
  /** The last event ID: the id of the last dispatched event that had one (or inherited one). */
  lastEventId: string | undefined;
  /** The standard's last event ID buffer: set by an `id` field, made the last event ID at dispatch. */
  private buffer: string | undefined;
  /** The first characters of the line being read, until they tell whether it is an `id` line. */
  private head = "";
  private line: "undecided" | "id" | "other" = "undecided";
  /** The value of the `id` line being read. */
  private value = "";
  /** The last chunk ended with CR: an LF first in the next one ends no second line. */
  private afterCr = false;

  /** Follows the fields of one chunk of decoded text. */
  scan(text: string): void {
    let at = 0;
    if (this.afterCr) {
      this.afterCr = false;
      if (text.charCodeAt(0) === LF) at = 1;
    }
    // The next LF and CR, each searched again only once passed: a chunk of many lines is read once.
    let lf = text.indexOf("\n", at);
    let cr = text.indexOf("\r", at);
    while (at < text.length) {
      if (lf !== -1 && lf < at) lf = text.indexOf("\n", at);
      if (cr !== -1 && cr < at) cr = text.indexOf("\r", at);
      const end = cr === -1 ? lf : lf === -1 || cr < lf ? cr : lf;
      this.take(text, at, end === -1 ? text.length : end);
      if (end === -1) return;
      this.endLine();
      at = end + 1;
      if (text.charCodeAt(end) === CR) {
        if (at === text.length) this.afterCr = true;
        else if (text.charCodeAt(at) === LF) at++;
      }
    }
  }

  /** Characters `from` to `to` of the line being read. */
  private take(text: string, from: number, to: number): void {
    if (from === to || this.line === "other") return;
    if (this.line === "id") {
      this.value += text.slice(from, to);
      return;
    }
    const taken = Math.min(to, from + 3 - this.head.length);
    this.head += text.slice(from, taken);
    if (this.head === "id:") {
      this.line = "id";
      this.value = text.slice(taken, to);
    } else if (this.head.length === 3 || !"id:".startsWith(this.head)) {
      this.line = "other";
    }
  }

  private endLine(): void {
    if (this.line === "id" || this.head === "id") {
      // A line "id" alone is the field with an empty value. One space after the colon is not part of it.
      const value = this.value.charCodeAt(0) === 32 ? this.value.slice(1) : this.value;
      if (!value.includes("\0")) this.buffer = value;
    } else if (this.head === "" && this.line === "undecided") {
      // A blank line dispatches the event.
      if (this.buffer !== undefined) this.lastEventId = this.buffer;
    }
    this.head = "";
    this.value = "";
    this.line = "undecided";
  }
}
