/**
 * Splits a command line into an argv the way a POSIX shell splits words (quotes and escapes),
 * so that `connect("npx -y @scope/server --root 'My Files'")` means what it would in a terminal,
 * yet the command runs WITHOUT a shell: nothing is expanded, substituted, piped or redirected.
 *
 * An unquoted shell operator or expansion (`|`, `;`, `&`, `<`, `>`, `(`, `)`, `$`, a backtick)
 * is refused rather than passed on literally, because whoever wrote it expected a shell to act on
 * it. Quoted, each is an ordinary character.
 */

const SHELL_SYNTAX = new Set(["|", ";", "&", "<", ">", "(", ")", "$", "`"]);

/** In double quotes, a backslash escapes only these (POSIX 2.2.3). */
const DOUBLE_QUOTE_ESCAPES = new Set(["$", "`", '"', "\\", "\n"]);

export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  const fail = (what: string): never => {
    throw new TypeError(`command line ${JSON.stringify(line)}: ${what}`);
  };
  while (i < line.length) {
    const c = line[i]!;
    if (c === " " || c === "\t" || c === "\n") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      i++;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) fail("a single quote is not closed");
      word += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      inWord = true;
      i++;
      for (;;) {
        if (i >= line.length) fail("a double quote is not closed");
        const d = line[i]!;
        if (d === '"') break;
        if (d === "\\" && i + 1 < line.length && DOUBLE_QUOTE_ESCAPES.has(line[i + 1]!)) {
          if (line[i + 1] !== "\n") word += line[i + 1];
          i += 2;
        } else {
          word += d;
          i++;
        }
      }
      i++;
    } else if (c === "\\") {
      if (i + 1 >= line.length) fail("it ends with a lone backslash");
      if (line[i + 1] !== "\n") {
        word += line[i + 1];
        inWord = true;
      }
      i += 2;
    } else if (SHELL_SYNTAX.has(c)) {
      fail(
        `"${c}" is shell syntax, and mcpwire runs commands without a shell; ` +
          "quote it if it is meant literally, or give { command, args } with the values already expanded",
      );
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  if (words.length === 0) fail("it names no command");
  return words;
}
