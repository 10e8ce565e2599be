/**
 * The header syntax every place that takes headers from a user checks (src/util/header-syntax.ts):
 * names are RFC 9110 tokens; a value never breaks its line; the WebSocket transport also refuses
 * what Node's HTTP client would refuse later, at the upgrade.
 */
import { validateHeaderName, validateHeaderValue } from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { breaksHeaderLine, hasRefusedHeaderChar, isHeaderName } from "../../src/util/header-syntax.js";

function nodeTakesName(name: string): boolean {
  try {
    validateHeaderName(name);
    return true;
  } catch {
    return false;
  }
}

function nodeTakesValue(value: string): boolean {
  try {
    validateHeaderValue("x-test", value);
    return true;
  } catch {
    return false;
  }
}

describe("header syntax", () => {
  it("takes tokens as names, and nothing else", () => {
    for (const name of ["Authorization", "x-api-key", "X_Custom.1", "!#$%&'*+.^_`|~"]) expect(isHeaderName(name)).toBe(true);
    for (const name of ["", "a b", "a:b", "a\nb", "é", "a(b)", 'a"b']) expect(isHeaderName(name)).toBe(false);
  });

  it("agrees with Node's own check of names", () => {
    fc.assert(fc.property(fc.string({ unit: "binary-ascii", maxLength: 12 }), (name) => isHeaderName(name) === nodeTakesName(name)));
  });

  it("finds the line breaks and NUL a value may not hold", () => {
    expect(breaksHeaderLine("Bearer abc")).toBe(false);
    for (const value of ["a\r", "a\nX-Injected: 1", "a\0"]) expect(breaksHeaderLine(value)).toBe(true);
  });

  it("refuses in a value what Node's HTTP client refuses: control characters but tab, DEL, and above U+00FF", () => {
    for (const value of ["plain", "with\ttab", "caf\u00e9", ""]) expect(hasRefusedHeaderChar(value)).toBe(false);
    for (const value of ["\u0001", "a\u007f", "\u0100", "\u{1f600}", "a\nb"]) expect(hasRefusedHeaderChar(value)).toBe(true);
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 8 }), (value) => hasRefusedHeaderChar(value) === !nodeTakesValue(value)));
  });
});
