import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { copyWith, flushTurn, writeInTurn } from "../../src/util/hot-path.js";

/** A stream that records each batch it is handed: one entry per write or writev. */
function recordingStream(highWaterMark = 16 * 1024): { stream: Writable; batches: string[][] } {
  const batches: string[][] = [];
  const stream = new Writable({
    highWaterMark,
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      batches.push([chunk]);
      done();
    },
    writev(chunks, done) {
      batches.push(chunks.map(({ chunk }) => chunk as string));
      done();
    },
  });
  return { stream, batches };
}

/** The end of this turn: every nextTick callback, and the promise reactions they queue, have run. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("writeInTurn", () => {
  it("hands the lines written in one turn to the stream as one batch, in order", async () => {
    const { stream, batches } = recordingStream();
    for (const line of ["a\n", "b\n", "c\n"]) writeInTurn(stream, line);
    expect(batches).toEqual([]); // held until the turn ends
    await nextTurn();
    expect(batches).toEqual([["a\n", "b\n", "c\n"]]);
  });

  it("holds the writes of promise reactions of the same turn with the others", async () => {
    const { stream, batches } = recordingStream();
    // From a promise reaction, as the callers are whose requests a chunk of replies settled.
    await Promise.resolve();
    writeInTurn(stream, "first\n");
    await Promise.resolve();
    writeInTurn(stream, "second\n");
    await nextTurn();
    expect(batches).toEqual([["first\n", "second\n"]]);
  });

  it("starts a new batch in the next turn", async () => {
    const { stream, batches } = recordingStream();
    writeInTurn(stream, "1\n");
    await nextTurn();
    writeInTurn(stream, "2\n");
    await nextTurn();
    expect(batches).toEqual([["1\n"], ["2\n"]]);
  });

  it("keeps backpressure: false once the held lines pass the high-water mark", async () => {
    const { stream, batches } = recordingStream(8);
    expect(writeInTurn(stream, "1234\n")).toBe(true);
    expect(writeInTurn(stream, "5678\n")).toBe(false);
    await nextTurn();
    expect(batches).toEqual([["1234\n", "5678\n"]]);
  });

  it("flushTurn writes what is held at once, and the end of the turn finds nothing left", async () => {
    const { stream, batches } = recordingStream();
    writeInTurn(stream, "cancel\n");
    flushTurn(stream);
    expect(batches).toEqual([["cancel\n"]]);
    await nextTurn();
    expect(batches).toEqual([["cancel\n"]]);
    expect(stream.writableCorked).toBe(0);
  });

  it("leaves a stream corked by its owner as it was", async () => {
    const { stream, batches } = recordingStream();
    stream.cork();
    writeInTurn(stream, "x\n");
    await nextTurn();
    expect(batches).toEqual([]);
    stream.uncork();
    expect(batches).toEqual([["x\n"]]);
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
