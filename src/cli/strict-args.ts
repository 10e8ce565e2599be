/**
 * `node:util` `parseArgs` in the form every mcpwire command line takes: strict (an unknown or
 * malformed option is refused, never dropped) with positionals, its refusal a `UsageError`.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { didYouMean } from "../util/option-names.js";
import { UsageError } from "./usage.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** What `parseArgs` gives for these options, strict and with positionals. */
export type StrictArgs<T extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>>;

/**
 * Reads `argv` against `options`. An option that is none of them is refused by name, with the
 * nearest one for a typo (`unknown option --timeot (did you mean "--timeout"?)`); any other
 * refusal keeps parseArgs's own message, which names the option and what is wrong with it.
 */
export function parseStrictArgs<T extends Options>(argv: readonly string[], options: T): StrictArgs<T> {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /Unknown option '(--?[^']+)'/.exec(message)?.[1];
    throw new UsageError(unknown === undefined ? message : unknownOption(unknown, options));
  }
}

/** The refusal of `flag`, which is none of `options`. */
function unknownOption(flag: string, options: Options): string {
  // A one-letter flag is a letter away from every other: only long names get a guess.
  const guess = flag.startsWith("--") ? didYouMean(flag, Object.keys(options).map((name) => `--${name}`)) : "";
  // Without a near name, the flag may be an argument that starts with a dash (a negative number, say).
  return `unknown option ${flag}${guess === "" ? "; an argument that starts with - goes after -- at the end of the command line" : guess}`;
}
