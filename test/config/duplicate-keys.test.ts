import { describe, expect, it } from "vitest";
import { findDuplicateKeys } from "../../src/config/duplicate-keys.js";

describe("findDuplicateKeys", () => {
  it("finds a key given twice in one object, with its path and both lines", () => {
    const text = ['{ "mcpServers": {', '  "a": { "command": "x" },', '  "b": { "command": "y",', '         "command": "z" },', '  "a": { "url": "http://h/mcp" } } }'].join("\n");
    expect(findDuplicateKeys(text)).toEqual([
      { path: ["mcpServers", "b"], key: "command", firstLine: 3, line: 4 },
      { path: ["mcpServers"], key: "a", firstLine: 2, line: 5 },
    ]);
  });

  it("does not count the same key in different objects, at the same or at different levels", () => {
    const text = JSON.stringify({ env: { env: { env: 1 } }, a: { env: 1 }, b: { env: 1 }, list: [{ env: 1 }, { env: 2 }] });
    expect(findDuplicateKeys(text)).toEqual([]);
  });

  it("does not read key-like text in a string, with escaped quotes and backslashes, as keys", () => {
    const text = String.raw`{ "args": ["\"a\": 1, \"a\": 2", "C:\\", "\\\"a\\\": 3", "x\", \"a\": \"y"], "note": "{\"a\":1,\"a\":2}", "a": 1, "more": "x\", \"a\": \"y" }`;
    expect(() => JSON.parse(text) as unknown).not.toThrow();
    expect(findDuplicateKeys(text)).toEqual([]);
  });

  it("compares keys decoded, as JSON.parse does", () => {
    expect(findDuplicateKeys(String.raw`{"a": 1, "\u0061": 2, "b\"": 3, "b\u0022": 4}`)).toEqual([
      { path: [], key: "a", firstLine: 1, line: 1 },
      { path: [], key: 'b"', firstLine: 1, line: 1 },
    ]);
  });

  it("gives array indexes in the path and counts CRLF and CR line ends once", () => {
    expect(findDuplicateKeys('[\r\n{},\r\n{ "x": {\r"k": 1,\r\n"k": 2 } }]')).toEqual([{ path: [1, "x"], key: "k", firstLine: 4, line: 5 }]);
  });
});
