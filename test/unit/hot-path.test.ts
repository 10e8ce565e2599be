import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { TurnBatch, copyWith } from "../../src/util/hot-path.js";

/**
 * A stream that records each batch it is handed: one entry per write or writev. A slow one
 * finishes each write a turn later, so its buffer fills as a busy pipe's does.
 */
function recordingStream(highWaterMark = 16 * 1024, { slow = false } = {}): { stream: Writable; batches: string[][] } {
  const batches: string[][] = [];
  const finish = (done: () => void) => (slow ? setImmediate(done) : done());
  const stream = new Writable({
    highWaterMark,
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      batches.push([chunk]);
      finish(done);
    },
    writev(chunks, done) {
      batches.push(chunks.map(({ chunk }) => chunk as string));
      finish(done);
    },
  });
  return { stream, batches };
}

/** The end of this turn: every nextTick callback, and the promise reactions they queue, have run. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("TurnBatch", () => {
  it("hands the lines of one turn to the stream as one write, in order", async () => {
    const { stream, batches } = recordingStream();
    const lines = new TurnBatch(stream);
    for (const line of ["a\n", "b\n", "c\n"]) lines.write(line);
    expect(batches).toEqual([]); // held until the turn ends
    await nextTurn();
    expect(batches).toEqual([["a\nb\nc\n"]]);
  });

  it("holds the writes of promise reactions of the same turn with the others", async () => {
    const { stream, batches } = recordingStream();
    const lines = new TurnBatch(stream);
    // From a promise reaction, as the callers are whose requests a chunk of replies settled.
    await Promise.resolve();
    lines.write("first\n");
    await Promise.resolve();
    lines.write("second\n");
    await nextTurn();
    expect(batches).toEqual([["first\nsecond\n"]]);
  });

  it("holds a line sent alone too, and starts a new batch in the next turn", async () => {
    const { stream, batches } = recordingStream();
    const lines = new TurnBatch(stream);
    expect(lines.write("0\n")).toBe(true);
    expect(batches).toEqual([]);
    await nextTurn();
    lines.write("1\n");
    await nextTurn();
    lines.write("2\n");
    lines.write("3\n");
    await nextTurn();
    expect(batches).toEqual([["0\n"], ["1\n"], ["2\n3\n"]]);
  });

  it("keeps backpressure: held lines that reach the high-water mark are written at once, with the stream's answer", async () => {
    const { stream, batches } = recordingStream(8, { slow: true });
    const lines = new TurnBatch(stream);
    expect(lines.write("123\n")).toBe(true);
    expect(batches).toEqual([]);
    expect(lines.write("5678\n")).toBe(false);
    expect(batches).toEqual([["123\n5678\n"]]);
    // While the stream wants 'drain', a held line says so too; 'drain' comes.
    expect(lines.write("9\n")).toBe(false);
    await new Promise((resolve) => stream.once("drain", resolve));
    await nextTurn();
    expect(batches).toEqual([["123\n5678\n"], ["9\n"]]);
  });

  it("flush writes what is held at once, and the end of the turn finds nothing left", async () => {
    const { stream, batches } = recordingStream();
    const lines = new TurnBatch(stream);
    lines.write("cancel\n");
    lines.flush();
    expect(batches).toEqual([["cancel\n"]]);
    await nextTurn();
    expect(batches).toEqual([["cancel\n"]]);
  });

  it("a write that throws at the end of the turn destroys the stream with the error, and nothing is thrown", async () => {
    const stream = new Writable({ write: (_chunk, _encoding, done) => done() });
    const failure = new Error("cannot write");
    stream.write = () => {
      throw failure;
    };
    const errors: unknown[] = [];
    stream.on("error", (error) => errors.push(error));
    new TurnBatch(stream).write("x\n");
    await nextTurn();
    expect(stream.destroyed).toBe(true);
    expect(errors).toEqual([failure]);
  });

  it("a write that throws in the caller's turn (the held text reached the high-water mark) throws to the caller", () => {
    const stream = new Writable({ highWaterMark: 4, write: (_chunk, _encoding, done) => done() });
    const failure = new Error("cannot write");
    stream.write = () => {
      throw failure;
    };
    expect(() => new TurnBatch(stream).write("12345\n")).toThrow(failure);
    expect(stream.destroyed).toBe(false);
  });
});

describe("copyWith", () => {
  it("copies the own keys in order, sets the key, and leaves the original as it was", () => {
    const original = { b: 1, a: 2 };
    const copy = copyWith(original, "c", 3);
    expect(Object.keys(copy)).toEqual(["b", "a", "c"]);
    expect(copy).toEqual({ b: 1, a: 2, c: 3 });
    expect(original).toEqual({ b: 1, a: 2 });
    expect(copyWith(undefined, "k", "v")).toEqual({ k: "v" });
  });
});
