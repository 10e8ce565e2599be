/**
 * The header values of basic/transports/streamable-http, "Value Encoding": what a client encodes,
 * a server decodes back, and what a server refuses as malformed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { argumentAt, decodeHeaderValue, encodeHeaderValue } from "../../src/protocol/header-values.js";

describe("header values", () => {
  it("decodes what it encodes, for any string", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme" }).filter((value) => value.length > 0), (value) => decodeHeaderValue(encodeHeaderValue(value)) === value));
  });

  it.each([
    ["us-west1", "us-west1"],
    ["=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界"],
    ["=?base64?IHBhZGRlZCA=?=", " padded "],
    ["=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=", "=?base64?literal?="],
    ["a\tb", "a\tb"],
  ])("reads %j as %j (the specification's examples)", (header, value) => {
    expect(decodeHeaderValue(header)).toBe(value);
  });

  it.each([
    ["a sentinel that is not Base64", "=?base64?e!u?="],
    ["Base64 that does not round-trip", "=?base64?ZXV=?="],
    ["Base64 of bytes that are not UTF-8", "=?base64?/w==?="],
    ["a character outside visible ASCII", "caf\xe9"],
    ["a leading space", " x"],
    ["a control character", "a\u0001b"],
  ])("refuses %s", (_case, header) => {
    expect(decodeHeaderValue(header)).toBeUndefined();
  });

  it("reads an argument at a path of properties, undefined where there is none", () => {
    expect(argumentAt({ limits: { rows: 5 } }, ["limits", "rows"])).toBe(5);
    expect(argumentAt({ limits: 5 }, ["limits", "rows"])).toBeUndefined();
    expect(argumentAt(undefined, ["region"])).toBeUndefined();
  });
});
