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
 * - `writeInTurn`: a write that corks its stream until the end of the current turn of the event
 *   loop, so that the messages written in one turn (a chunk of replies settles many requests, and
 *   their callers send the next ones at once) leave in one `writev` instead of one system call
 *   each; `flushTurn` writes what is held at once, before the stream closes. On the stdio bench,
 *   10 000 calls with 64 in flight took about 330 writes instead of 10 000, and against the same
 *   build without it cost 0.76x the CPU per call at 1.6x the calls per second (bench/RESULTS.md,
 *   "Hot path (issue 20)"). The stdio connection uses it only while calls overlap.
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

/** What `writeInTurn` needs of a stream: `net.Socket` and every `stream.Writable` have it. */
interface Corkable {
  write(chunk: string): boolean;
  cork(): void;
  uncork(): void;
  readonly writableCorked: number;
}

/**
 * `stream.write(chunk)`, held with the other writes of this turn and written with them once the
 * turn's callbacks and promise reactions have run (`process.nextTick`). Returns what `write`
 * returns: false when the stream's buffer is over its high-water mark (wait for 'drain').
 */
export function writeInTurn(stream: Corkable, chunk: string): boolean {
  if (stream.writableCorked === 0) {
    stream.cork();
    process.nextTick(uncork, stream);
  }
  return stream.write(chunk);
}

function uncork(stream: Corkable): void {
  stream.uncork();
}

/** Writes at once what `writeInTurn` holds for the end of the turn (the stream is about to close). */
export function flushTurn(stream: Corkable): void {
  while (stream.writableCorked > 0) stream.uncork();
}
