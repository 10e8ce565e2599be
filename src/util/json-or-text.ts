/**
 * How a value written as text (a command-line `key=value`, an environment variable) is read when
 * it may be any JSON value: a number, true/false, null, an object, an array or a "quoted string"
 * is taken as such; anything else is the text as written. Quote it to keep it a string:
 * `'"02134"'`.
 */
export function jsonOrText(value: string): unknown {
  const text = value.trim();
  if (text === "") return value;
  const looksJson = /^[-\d[{"]/.test(text) || text === "true" || text === "false" || text === "null";
  if (!looksJson) return value;
  try {
    const parsed = JSON.parse(text) as unknown;
    // "1e999" parses as Infinity, which JSON cannot carry: keep what was written.
    return typeof parsed === "number" && !Number.isFinite(parsed) ? value : parsed;
  } catch {
    return value;
  }
}
