/**
 * `node:util` `parseArgs` in the form every mcpwire command line takes: strict (an unknown or
 * malformed option is refused, never dropped) with positionals, its refusal a `UsageError`.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./usage.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** What `parseArgs` gives for these options, strict and with positionals. */
export type StrictArgs<T extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>>;

/**
 * Reads `argv` against `options`. `unknownOption`, when given, words the refusal of an option that
 * is none of them (a "did you mean"); otherwise parseArgs's own message is used: it names the
 * option and what is wrong with it.
 */
export function parseStrictArgs<T extends Options>(argv: readonly string[], options: T, unknownOption?: (flag: string) => string): StrictArgs<T> {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = (error as Error).message;
    const unknown = /Unknown option '(--?[^']+)'/.exec(message)?.[1];
    throw new UsageError(unknown !== undefined && unknownOption !== undefined ? unknownOption(unknown) : message);
  }
}
