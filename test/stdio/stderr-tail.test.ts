import { describe, expect, it } from "vitest";
import { DEFAULT_STDERR_TAIL_BYTES, DEFAULT_STDERR_TAIL_LINES, StderrTail } from "../../src/transport/stdio/stderr-tail.js";

const bytes = (text: string) => Buffer.from(text, "utf8");

describe("StderrTail", () => {
  it("is empty until something is written", () => {
    expect(new StderrTail().text()).toBe("");
  });

  it("keeps the last lines, newest last, including an unfinished one", () => {
    const tail = new StderrTail({ maxLines: 3 });
    tail.push(bytes("one\ntwo\nthree\nfour\nfi"));
    tail.push(bytes("ve"));
    expect(tail.text()).toBe("three\nfour\nfive");
  });

  it("joins lines split across chunks, even inside a multi-byte character", () => {
    const input = bytes("état ✓\nfin 😀\n");
    for (let cut = 1; cut < input.length; cut++) {
      const tail = new StderrTail();
      tail.push(input.subarray(0, cut));
      tail.push(input.subarray(cut));
      expect(tail.text()).toBe("état ✓\nfin 😀");
    }
  });

  it("drops CR of CRLF line endings", () => {
    const tail = new StderrTail();
    tail.push(bytes("a\r\nb\r\n"));
    expect(tail.text()).toBe("a\nb");
  });

  it("stays within maxBytes whatever arrives, keeping the newest lines", () => {
    const tail = new StderrTail({ maxLines: 1_000, maxBytes: 100 });
    for (let i = 0; i < 10_000; i++) tail.push(bytes(`line ${i}\n`));
    const text = tail.text();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(100);
    expect(text.endsWith("line 9998\nline 9999")).toBe(true);
    expect(text).not.toContain("line 1\n");
    expect(tail.bytesSeen).toBeGreaterThan(80_000);
  });

  it("keeps the end of a line longer than maxBytes, marked as cut, arriving a byte at a time", () => {
    const tail = new StderrTail({ maxBytes: 64 });
    const long = `${"é".repeat(1_000)}END`;
    for (const byte of bytes(long)) tail.push(Buffer.from([byte]));
    const text = tail.text();
    expect(text.startsWith("…")).toBe(true);
    expect(text.endsWith("END")).toBe(true);
    expect(text).not.toContain("\uFFFD"); // no broken character at the cut
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(64 + Buffer.byteLength("…"));
  });

  it("has bounded defaults", () => {
    expect(DEFAULT_STDERR_TAIL_LINES).toBeGreaterThan(0);
    expect(DEFAULT_STDERR_TAIL_BYTES).toBeGreaterThan(0);
    const tail = new StderrTail();
    tail.push(bytes("x\n".repeat(10 * DEFAULT_STDERR_TAIL_LINES)));
    expect(tail.text().split("\n").length).toBeLessThanOrEqual(DEFAULT_STDERR_TAIL_LINES);
  });

  it("refuses bounds that are not positive whole numbers", () => {
    expect(() => new StderrTail({ maxLines: 0 })).toThrow(TypeError);
    expect(() => new StderrTail({ maxBytes: -1 })).toThrow(TypeError);
  });
});
