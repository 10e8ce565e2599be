/**
 * A child's stderr cut into lines (stderr-lines.ts): the same lines however the text is split
 * into pieces, a line ending in CRLF without its CR, a blank line skipped, a last line without a
 * newline given at the end, and a line past the bound cut to its beginning, never half a
 * character, whatever length it runs to.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StderrLines, type StderrLine } from "../../../src/gateway/children/stderr-lines.js";

function collect(maxChars: number): { lines: StderrLine[]; splitter: StderrLines } {
  const lines: StderrLine[] = [];
  return { lines, splitter: new StderrLines(maxChars, (line) => lines.push(line)) };
}

/** What the lines of `text` must be, written plainly. */
function expected(text: string, maxChars: number): StderrLine[] {
  const pieces = text.split("\n");
  const out: StderrLine[] = [];
  for (const piece of pieces) {
    const line = piece.endsWith("\r") ? piece.slice(0, -1) : piece;
    if (line.length > maxChars) {
      let end = maxChars;
      const code = line.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff) end--;
      out.push({ text: line.slice(0, end), truncated: true });
    } else if (line !== "") {
      out.push({ text: line, truncated: false });
    }
  }
  return out;
}

describe("StderrLines", () => {
  it("gives each line once it ends, the last one at the end", () => {
    const { lines, splitter } = collect(100);
    splitter.push("starting\nlisten");
    expect(lines).toEqual([{ text: "starting", truncated: false }]);
    splitter.push("ing on stdio\r\n\n\nwarn");
    expect(lines.map((line) => line.text)).toEqual(["starting", "listening on stdio"]);
    splitter.end();
    expect(lines.map((line) => line.text)).toEqual(["starting", "listening on stdio", "warn"]);
  });

  it("cuts a line past the bound to its beginning, and takes the next line whole", () => {
    const { lines, splitter } = collect(8);
    splitter.push("0123456789abcdef");
    splitter.push("more of the same line");
    splitter.push("\nnext\n");
    expect(lines).toEqual([
      { text: "01234567", truncated: true },
      { text: "next", truncated: false },
    ]);
  });

  it("takes a line that fits but for its CRLF ending as a whole line", () => {
    const { lines, splitter } = collect(4);
    splitter.push("abcd\r");
    splitter.push("\nabcde\r\n");
    expect(lines).toEqual([
      { text: "abcd", truncated: false },
      { text: "abcd", truncated: true },
    ]);
  });

  it("never keeps half of a character", () => {
    const { lines, splitter } = collect(4);
    splitter.push("abc\u{1F600}def\n");
    expect(lines).toEqual([{ text: "abc", truncated: true }]);
  });

  it("gives the same lines however the text is split into pieces", () => {
    const text = fc.array(fc.constantFrom("a", "b", "\n", "\r", "é", "\u{1F600}", " "), { maxLength: 80 }).map((chars) => chars.join(""));
    fc.assert(
      fc.property(text, fc.array(fc.nat(80), { maxLength: 6 }), fc.integer({ min: 2, max: 12 }), (whole, cuts, maxChars) => {
        const { lines, splitter } = collect(maxChars);
        let from = 0;
        for (const cut of [...cuts].sort((a, b) => a - b)) {
          const to = Math.min(cut, whole.length);
          splitter.push(whole.slice(from, to));
          from = Math.max(from, to);
        }
        splitter.push(whole.slice(from));
        splitter.end();
        expect(lines).toEqual(expected(whole, maxChars));
      }),
    );
  });
});
