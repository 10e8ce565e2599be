/**
 * The arguments of `call` and `prompt` as written on the command line.
 *
 * `call`: one JSON object, or `key=value` pairs where a value that parses as JSON (a number,
 * true/false, null, an object, an array, a "quoted string") is taken as such and anything else
 * is the string as written. Quote a value to keep it a string: `zip='"02134"'`.
 * `prompt`: `key=value` pairs; prompt arguments are always strings.
 */
import { jsonOrText } from "../util/json-or-text.js";
import { UsageError } from "./usage.js";

export function parseToolArguments(operands: readonly string[]): Record<string, unknown> {
  if (operands.length === 0) return {};
  const first = operands[0]!.trim();
  if (first.startsWith("{") || first.startsWith("[")) {
    if (operands.length > 1) {
      throw new UsageError("give the tool's arguments as one JSON object or as key=value pairs, not both");
    }
    return parseJsonObject(first);
  }
  return parsePairs(operands, "call", (value) => jsonOrText(value));
}

export function parsePromptArguments(operands: readonly string[]): Record<string, string> {
  return parsePairs(operands, "prompt", (value) => value);
}

function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the tool's arguments are not valid JSON (${(error as Error).message})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`the tool's arguments must be a JSON object ({"key": value}), got ${Array.isArray(value) ? "an array" : typeof value}`);
  }
  return value as Record<string, unknown>;
}

function parsePairs<T>(operands: readonly string[], command: string, convert: (value: string) => T): Record<string, T> {
  const result: Record<string, T> = {};
  for (const operand of operands) {
    const equals = operand.indexOf("=");
    if (equals <= 0) {
      throw new UsageError(
        `${command}: ${JSON.stringify(operand)} is not key=value` +
          (command === "call" ? "; give key=value pairs or one JSON object" : "; prompt arguments are key=value pairs"),
      );
    }
    const key = operand.slice(0, equals);
    if (Object.hasOwn(result, key)) throw new UsageError(`${command}: argument "${key}" is given twice`);
    // Own data property even for "__proto__", so no key can reach the prototype.
    Object.defineProperty(result, key, { value: convert(operand.slice(equals + 1)), enumerable: true, writable: true, configurable: true });
  }
  return result;
}
