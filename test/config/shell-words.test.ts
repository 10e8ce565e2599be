import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitCommandLine } from "../../src/config/shell-words.js";

describe("splitCommandLine", () => {
  it.each([
    ["npx -y @modelcontextprotocol/server-memory", ["npx", "-y", "@modelcontextprotocol/server-memory"]],
    ["  node   server.js  ", ["node", "server.js"]],
    ["uvx handbook-mcp --root 'My Files'", ["uvx", "handbook-mcp", "--root", "My Files"]],
    ['node "a \\"quoted\\" word" \'it\'\\\'\'s\'', ["node", 'a "quoted" word', "it's"]],
    ["node a\\ b c", ["node", "a b", "c"]],
    ['node "" x', ["node", "", "x"]],
    ["node 'a|b' \"$HOME\" '`x`'", ["node", "a|b", "$HOME", "`x`"]],
    ['node "back\\slash"', ["node", "back\\slash"]],
  ])("splits %s", (line, words) => {
    expect(splitCommandLine(line)).toEqual(words);
  });

  it.each([
    ["node 'open", "single quote is not closed"],
    ['node "open', "double quote is not closed"],
    ["node x\\", "lone backslash"],
    ["   ", "names no command"],
    ["node server.js | tee log", '"|" is shell syntax'],
    ["node $HOME/server.js", '"$" is shell syntax'],
    ["node a; rm -rf /", '";" is shell syntax'],
    ["node a > out", '">" is shell syntax'],
  ])("refuses %s", (line, words) => {
    expect(() => splitCommandLine(line)).toThrow(words);
  });

  it("gives back any argv that was single-quoted word by word", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 0, maxLength: 12 }), { minLength: 1, maxLength: 6 }), (argv) => {
        const line = argv.map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
        expect(splitCommandLine(line)).toEqual(argv);
      }),
    );
  });
});
