/**
 * The arguments of the typed calls, checked before anything is sent. A tool's arguments given as
 * a string, a prompt's as numbers, a URI as a number: each is a mistake in the calling code that
 * the server would only answer with an error that does not say what was wrong (the official
 * servers answer -32603). Each is a TypeError naming the call, what it takes and what it got, as
 * the options' checks are (call-option-names.ts).
 *
 * `callTool` does not call into this file on its way: it tests the same conditions inline and
 * comes here only to word the refusal, so that the call path of every tool call has no function
 * more (bench/RESULTS.md, `npm run bench:call-path`).
 */
import { LOGGING_LEVELS } from "../protocol/methods.js";
import { describeValue } from "../util/whole-number.js";

/** The refusal of a tool call whose name or arguments are not what `tools/call` takes. */
export function badToolCall(call: string, name: unknown, args: unknown): TypeError {
  if (typeof name !== "string" || name === "") return new TypeError(`${call}: the tool's name must be a non-empty string, got ${describeValue(name)}`);
  return new TypeError(
    `${call} ${JSON.stringify(name)}: the arguments must be an object of the tool's named arguments ({ city: "Paris" }), got ${describeValue(args)}`,
  );
}

/** Refuses a tool call whose name is not a non-empty string or whose arguments are not an object. */
export function checkToolCall(call: string, name: unknown, args: unknown): void {
  // The same conditions as `callTool`'s inline test.
  if (typeof name !== "string" || name === "" || typeof args !== "object" || args === null || Array.isArray(args)) throw badToolCall(call, name, args);
}

/** Refuses a prompt call whose name is not a string or whose arguments are not strings by name (prompts/get). */
export function checkPromptCall(name: unknown, args: unknown): void {
  checkNonEmptyString(name, "getPrompt", "the prompt's name");
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new TypeError(`getPrompt ${JSON.stringify(name)}: the arguments must be an object of strings by name, got ${describeValue(args)}`);
  }
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== "string") {
      throw new TypeError(
        `getPrompt ${JSON.stringify(name)}: argument ${JSON.stringify(key)} must be a string (prompts take string arguments only), got ${describeValue(value)}`,
      );
    }
  }
}

/** Refuses a URI that is not a non-empty string. */
export function checkUri(uri: unknown, call: string): void {
  checkNonEmptyString(uri, call, "the resource's URI");
}

/** Refuses a logging level that is none of the eight (RFC 5424's severities). */
export function checkLoggingLevel(level: unknown): void {
  if (!(LOGGING_LEVELS as readonly unknown[]).includes(level)) {
    throw new TypeError(`setLoggingLevel: the level must be one of ${LOGGING_LEVELS.join(", ")}, got ${describeValue(level)}`);
  }
}

/** Refuses a completion reference or argument that is not what `completion/complete` takes. */
export function checkCompletion(ref: unknown, argument: unknown): void {
  const given = ref as { type?: unknown; name?: unknown; uri?: unknown } | null;
  const valid =
    typeof given === "object" &&
    given !== null &&
    ((given.type === "ref/prompt" && typeof given.name === "string") || (given.type === "ref/resource" && typeof given.uri === "string"));
  if (!valid) throw new TypeError('complete: ref must be { type: "ref/prompt", name } or { type: "ref/resource", uri }');
  const pair = argument as { name?: unknown; value?: unknown } | null;
  if (typeof pair !== "object" || pair === null || typeof pair.name !== "string" || typeof pair.value !== "string") {
    throw new TypeError("complete: argument must be { name, value }, both strings (the argument being completed and what is typed so far)");
  }
}

/** Refuses what is not a non-empty string (a name, a URI, a method, a task id), naming the call and what it got. */
export function checkNonEmptyString(value: unknown, call: string, what: string): asserts value is string {
  if (typeof value !== "string" || value === "") throw new TypeError(`${call}: ${what} must be a non-empty string, got ${describeValue(value)}`);
}
