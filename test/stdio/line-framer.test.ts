import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LineFramer } from "../../src/transport/stdio/line-framer.js";

const bytes = (text: string) => new TextEncoder().encode(text);

/** Feeds `input` cut at the given offsets; returns every line and whether a line was too long. */
function frame(input: Uint8Array, cuts: number[], max = 1_000_000): { lines: (string | null)[]; tooLong: boolean } {
  const framer = new LineFramer(max);
  const lines: (string | null)[] = [];
  let start = 0;
  for (const cut of [...cuts, input.length]) {
    const result = framer.push(input.subarray(start, cut));
    lines.push(...result.lines);
    if (result.tooLong) return { lines, tooLong: true };
    start = cut;
  }
  return { lines, tooLong: false };
}

describe("LineFramer", () => {
  it("returns many lines from one chunk, in order", () => {
    expect(frame(bytes('{"a":1}\n{"b":2}\n{"c":3}\n'), []).lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it("joins a line split across chunks, even inside a multi-byte character", () => {
    const input = bytes('{"t":"é✓😀"}\n');
    // Every cut inside the 4-byte emoji, the 3-byte check mark and the 2-byte é.
    for (let cut = 1; cut < input.length; cut++) {
      expect(frame(input, [cut]).lines).toEqual(['{"t":"é✓😀"}']);
    }
  });

  it("holds an unfinished line until its newline arrives", () => {
    const framer = new LineFramer(100);
    expect(framer.push(bytes('{"a":')).lines).toEqual([]);
    expect(framer.pendingBytes).toBe(5);
    expect(framer.push(bytes("1}\n{")).lines).toEqual(['{"a":1}']);
    expect(framer.pendingBytes).toBe(1);
  });

  it("accepts CRLF line endings and skips blank lines", () => {
    expect(frame(bytes('{"a":1}\r\n\n  \r\n{"b":2}\n'), []).lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it("reports a line that is not UTF-8 as null and goes on", () => {
    const input = new Uint8Array([0x7b, 0xff, 0x7d, 0x0a, ...bytes('{"ok":1}\n')]);
    expect(frame(input, []).lines).toEqual([null, '{"ok":1}']);
  });

  it("reports a line split across chunks that is not UTF-8 as null, wherever the bad byte falls", () => {
    const input = new Uint8Array([...bytes('{"a":"'), 0xff, ...bytes('x"}\n{"ok":1}\n')]);
    for (let cut = 1; cut < input.length - 9; cut++) {
      expect(frame(input, [cut]).lines).toEqual([null, '{"ok":1}']);
      expect(frame(input, [1, cut]).lines).toEqual([null, '{"ok":1}']);
    }
    // A multi-byte character cut off by the newline is invalid too.
    expect(frame(new Uint8Array([...bytes("abc"), 0xe2, 0x9c, 0x0a]), [2]).lines).toEqual([null]);
  });

  it("drops a CR and a byte order mark, and skips a blank line, when the line spans chunks", () => {
    const input = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('{"a":1}\r\n \r\n')]);
    for (let cut = 1; cut < input.length; cut++) expect(frame(input, [cut]).lines).toEqual(['{"a":1}']);
  });

  it("accepts a line of exactly maxLineBytes", () => {
    const line = "x".repeat(10);
    expect(frame(bytes(`${line}\n`), [], 10)).toEqual({ lines: [line], tooLong: false });
  });

  it("fails a line as soon as it crosses maxLineBytes, before its newline, and keeps none of it", () => {
    const framer = new LineFramer(10);
    expect(framer.push(bytes("ok\n12345")).lines).toEqual(["ok"]);
    const result = framer.push(bytes("678901"));
    expect(result.tooLong).toBe(true);
    expect(framer.pendingBytes).toBe(0);
    expect(framer.failed).toBe(true);
    // Refuses anything after.
    expect(framer.push(bytes("\n{}\n"))).toEqual({ lines: [], tooLong: true });
  });

  it("delivers the lines before an oversized one in the same chunk", () => {
    expect(frame(bytes(`a\nb\n${"x".repeat(20)}\nc\n`), [], 10)).toEqual({ lines: ["a", "b"], tooLong: true });
  });

  it("keeps at most maxLineBytes of a line that never ends, however it arrives", () => {
    const framer = new LineFramer(1_000);
    let tooLong = false;
    for (let i = 0; i < 10_000 && !tooLong; i++) {
      tooLong = framer.push(bytes("x".repeat(7))).tooLong;
      expect(framer.pendingBytes).toBeLessThanOrEqual(1_000);
    }
    expect(tooLong).toBe(true);
  });

  it("frames a large stream in time linear in its size (no rescans)", () => {
    // 1 MiB in 1-byte chunks: with a rescan of the held bytes per chunk this would be ~10^11 steps.
    const framer = new LineFramer(2 * 1024 * 1024);
    const line = bytes(`${"y".repeat(1024 * 1024)}\n`);
    let count = 0;
    for (let i = 0; i < line.length; i++) count += framer.push(line.subarray(i, i + 1)).lines.length;
    expect(count).toBe(1);
  });

  it("refuses a ceiling that is not a positive whole number", () => {
    expect(() => new LineFramer(0)).toThrow(RangeError);
    expect(() => new LineFramer(1.5)).toThrow(RangeError);
  });

  describe("properties", () => {
    const jsonText = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc.string({ unit: "binary", maxLength: 20 }),
      fc.string({ maxLength: 40 }),
    );
    const messages = fc.array(jsonText.map((text) => JSON.stringify({ jsonrpc: "2.0", method: "m", params: { text } })), {
      minLength: 1,
      maxLength: 8,
    });

    it("yields the same lines whatever the chunking", () => {
      fc.assert(
        fc.property(messages, fc.array(fc.nat(), { maxLength: 12 }), (lines, rawCuts) => {
          const input = bytes(lines.map((line) => `${line}\n`).join(""));
          const cuts = [...new Set(rawCuts.map((cut) => cut % (input.length + 1)))].sort((a, b) => a - b);
          expect(frame(input, cuts).lines).toEqual(lines);
        }),
      );
    });

    it("gives any bytes at all (invalid UTF-8, CR, BOM, blanks) the same lines however they are cut", () => {
      const anyLine = fc.uint8Array({ maxLength: 30 }).map((line) => line.filter((byte) => byte !== 0x0a));
      fc.assert(
        fc.property(fc.array(anyLine, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 12 }), (lines, rawCuts) => {
          const input = new Uint8Array(lines.flatMap((line) => [...line, 0x0a]));
          const cuts = [...new Set(rawCuts.map((cut) => cut % (input.length + 1)))].sort((a, b) => a - b);
          expect(frame(input, cuts).lines).toEqual(frame(input, []).lines);
        }),
        { numRuns: 300 },
      );
    });

    it("yields the same lines when split at every byte", () => {
      fc.assert(
        fc.property(messages, (lines) => {
          const input = bytes(lines.map((line) => `${line}\n`).join(""));
          const everyByte = Array.from({ length: input.length }, (_, i) => i);
          expect(frame(input, everyByte).lines).toEqual(lines);
        }),
        { numRuns: 50 },
      );
    });

    it("yields the same lines for every single cut point", () => {
      fc.assert(
        fc.property(messages, (lines) => {
          const input = bytes(lines.map((line) => `${line}\n`).join(""));
          for (let cut = 0; cut <= input.length; cut++) expect(frame(input, [cut]).lines).toEqual(lines);
        }),
        { numRuns: 30 },
      );
    });

    it("fails on the same line whatever the chunking, and never holds more than the ceiling", () => {
      fc.assert(
        fc.property(
          fc.array(fc.nat({ max: 40 }), { minLength: 1, maxLength: 10 }),
          fc.integer({ min: 1, max: 30 }),
          fc.array(fc.nat(), { maxLength: 10 }),
          (lengths, max, rawCuts) => {
            const lines = lengths.map((length, i) => String.fromCharCode(97 + (i % 26)).repeat(length)).filter((l) => l !== "");
            const input = bytes(lines.map((line) => `${line}\n`).join(""));
            const cuts = [...new Set(rawCuts.map((cut) => cut % (input.length + 1)))].sort((a, b) => a - b);
            const firstTooLong = lines.findIndex((line) => line.length > max);
            const expected = firstTooLong === -1 ? lines : lines.slice(0, firstTooLong);
            const framer = new LineFramer(max);
            const seen: (string | null)[] = [];
            let tooLong = false;
            let start = 0;
            for (const cut of [...cuts, input.length]) {
              const result = framer.push(input.subarray(start, cut));
              seen.push(...result.lines);
              expect(framer.pendingBytes).toBeLessThanOrEqual(max);
              if (result.tooLong) {
                tooLong = true;
                break;
              }
              start = cut;
            }
            expect(seen).toEqual(expected);
            expect(tooLong).toBe(firstTooLong !== -1);
          },
        ),
      );
    });
  });
});
