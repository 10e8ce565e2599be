/**
 * The few constructs on the path every call takes that are there for speed, each behind a name,
 * so that the code calling them reads as plain code. Each is kept because `npm run bench` shows
 * that it pays (bench/RESULTS.md, "Speed tricks, measured"); anything the bench could not tell
 * apart from plain code was written as plain code instead.
 *
 * - `copyWith`: a copy of an object with one key set, made key by key instead of with object
 *   spread. On the stdio bench, once warmed up, spread in the progress token of every request
 *   raised the client's peak RSS from about 81 to about 102 MiB (4 alternating runs each, ranges
 *   that do not overlap).
 *
 * - `TurnBatch`: the lines a stdio connection writes in one turn of the event loop (a chunk of
 *   replies settles many requests, and their callers send the next ones at once) held and written
 *   at the end of the turn as one string, in one system call instead of one each. On the stdio
 *   bench, 10 000 calls with 64 in flight took about 330 writes instead of 10 000, and cost 0.76x
 *   the CPU per call at 1.6x the calls per second (bench/RESULTS.md, "Hot path (issue 20)"). It
 *   first corked the stream and let Node hand the lines to `writev`; one string joined in
 *   JavaScript costs less than Node's bookkeeping of each chunk (an entry, a callback, an encoding
 *   each): 13.9 against 16.0 µs of CPU a call with 64 in flight, in 5 alternating runs
 *   (bench/RESULTS.md, "A shorter stdio call path").
 *   Every line goes through it, one call at a time as well: one path whether calls overlap or not.
 *
 * Elsewhere, because it is a data structure rather than a line of code: `collections/id-table.ts`
 * (`IdTable`), which holds what is in flight in place of a `Map`. With a `Map`, the stdio bench
 * with 64 calls in flight, warmed up, cost 15.0 µs of CPU per call instead of 10.6, and peaked at
 * 118 MiB of RSS instead of 81; HTTP/JSON, 238 µs instead of 198 and 130 MiB instead of 99.
 * And `transport/http/request-abort.ts` (`RequestAbort`), the abort switch of an HTTP request in
 * place of an AbortController (10 to 15 µs per Streamable HTTP call in the profile that led to it).
 */

/**
 * `{ ...object, [key]: value }`: a new object with the own enumerable string keys of `object`
 * (none when it is undefined), in their order, and `key` set to `value`. `object` is left as it was.
 */
export function copyWith(object: Readonly<Record<string, unknown>> | undefined, key: string, value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const name in object) if (Object.hasOwn(object, name)) copy[name] = object[name];
  copy[key] = value;
  return copy;
}

/** What a `TurnBatch` needs of its stream: `net.Socket` and every `stream.Writable` have it. */
interface LineStream {
  write(chunk: string): boolean;
  destroy(error?: Error): unknown;
  readonly writableNeedDrain: boolean;
  readonly writableHighWaterMark: number;
}

/**
 * The lines of one turn of the event loop, written to the stream together as one string once the
 * turn's callbacks and promise reactions have run (`process.nextTick`).
 */
export class TurnBatch {
  /** The lines of this turn not written yet, in the order of the calls. */
  private readonly held: string[] = [];
  /** Their length in UTF-16 units, as the stream's high-water mark counts a string. */
  private heldLength = 0;
  /** The stream's high-water mark, read once: it does not change. */
  private readonly highWaterMark: number;

  /**
   * Scheduled with no arguments: `process.nextTick(fn, arg)` takes a path of Node's tick queue
   * that nothing else on a call's way takes, and the first batch would throw away the optimized
   * code of that queue (which runs every promise reaction) to compile it again.
   */
  private readonly writeHeldAtTurnEnd = (): void => this.flushOrDestroy();

  constructor(private readonly stream: LineStream) {
    this.highWaterMark = stream.writableHighWaterMark;
  }

  /**
   * Holds `chunk` with the other lines of this turn, to be written with them at its end. Returns
   * what `write` returns: false when the stream's buffer is over its high-water mark (wait for
   * 'drain'). Held lines that reach the high-water mark are written at once, so that false always
   * has a 'drain' to come.
   *
   * One call at a time, a turn holds one line; with calls overlapping, many. Both take the same
   * steps (a line is pushed, the lines are joined at the end of the turn): a branch that only
   * overlapping calls took (a second line added to the first) had V8 throw away the optimized
   * code of the connection's `send` the first time calls overlapped, and compile it again inside
   * the first window of calls in flight (bench/RESULTS.md, "One turn, one path").
   */
  write(chunk: string): boolean {
    const held = this.held;
    if (held.length === 0) process.nextTick(this.writeHeldAtTurnEnd);
    held.push(chunk);
    this.heldLength += chunk.length;
    if (this.heldLength >= this.highWaterMark) return this.flush();
    return !this.stream.writableNeedDrain;
  }

  /**
   * Writes what is held at once (the stream is about to close, or the held text reached the
   * high-water mark); returns what `write` returns, and throws what it throws to the caller.
   */
  flush(): boolean {
    const held = this.held;
    if (held.length === 0) return !this.stream.writableNeedDrain;
    const text = held.join("");
    held.length = 0;
    this.heldLength = 0;
    return this.stream.write(text);
  }

  /**
   * `flush()` where there is no caller to throw to (the end of the turn, the stream about to
   * close): a write that throws destroys the stream instead, whose 'error' says it.
   */
  flushOrDestroy(): void {
    try {
      this.flush();
    } catch (error) {
      this.stream.destroy(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
